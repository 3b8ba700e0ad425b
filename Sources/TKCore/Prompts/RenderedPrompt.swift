/// A prompt ready for a provider: a cacheable system prompt, the per-call user message and,
/// when a JSON reply is expected, its schema.
public struct RenderedPrompt: Sendable, Equatable {
    /// Byte-stable for the same inputs that shape it (advisors, story type, draft stage), so providers can cache it.
    public var system: String
    /// The per-call part: the document, question or description.
    public var user: String
    /// The JSON schema of the expected reply (structured output or a forced tool), nil for a prose answer.
    public var schema: JSONValue?
    /// A name for the schema: the tool name or `json_schema.name` (letters, digits, `_`).
    public var schemaName: String?

    public init(system: String, user: String, schema: JSONValue? = nil, schemaName: String? = nil) {
        self.system = system
        self.user = user
        self.schema = schema
        self.schemaName = schemaName
    }
}
