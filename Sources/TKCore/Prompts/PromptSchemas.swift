/// JSON schemas of the replies the prompts ask for, usable for structured output or a forced tool.
///
/// Every object lists all its properties as required and forbids others, and no numeric ranges are
/// used, so the schemas are accepted by OpenAI's strict mode, Anthropic's `output_config.format`
/// and Ollama's `format`. Ranges are stated in descriptions and enforced by the reply parser.
public enum PromptSchemas {
    public static let suggestionsName = "tk_suggestions"
    public static let councilName = "tk_council_perspective"
    public static let assembleName = "tk_assemble"

    /// The schema of `tk.suggestions/1`; `advisor_id` is limited to the given ids when there are any.
    public static func suggestions(advisorIds: [String]) -> JSONValue {
        var advisor: [String: JSONValue] = [
            "type": .string("string"),
            "description": .string("The id of the advisor giving the suggestion."),
        ]
        if !advisorIds.isEmpty { advisor["enum"] = .array(advisorIds.map { .string($0) }) }
        let item = object([
            "advisor_id": .object(advisor),
            "type": .object([
                "type": .string("string"),
                "enum": .array(SuggestionType.allCases.map { .string($0.rawValue) }),
            ]),
            "original_text": .object([
                "type": .string("string"),
                "description": .string("The passage, quoted exactly from the document."),
            ]),
            "suggested_text": .object([
                "type": .string("string"),
                "description": .string("The text that replaces original_text."),
            ]),
            "reasoning": .object(["type": .string("string")]),
            "priority": .object([
                "type": .string("integer"),
                "description": .string("1 (most important) to 5 (minor)."),
            ]),
            "confidence": .object([
                "type": .string("number"),
                "description": .string("0 to 1."),
            ]),
        ], order: ["advisor_id", "type", "original_text", "suggested_text", "reasoning", "priority", "confidence"])
        return object(["suggestions": .object(["type": .string("array"), "items": item])], order: ["suggestions"])
    }

    /// The schema of a council member's reply: `{"perspective", "points", "sentiment"}`.
    public static let council: JSONValue = object([
        "perspective": .object(["type": .string("string")]),
        "points": .object(["type": .string("array"), "items": .object(["type": .string("string")])]),
        "sentiment": .object([
            "type": .string("string"),
            "enum": .array(["positive", "neutral", "negative"].map { .string($0) }),
        ]),
    ], order: ["perspective", "points", "sentiment"])

    /// The schema of an assemble reply: `{"story_type", "advisors": [{"id", "reason"}], "genre_context"}`.
    public static func assemble(storyTypeIds: [String], roleIds: [String]) -> JSONValue {
        var storyType: [String: JSONValue] = ["type": .string("string")]
        if !storyTypeIds.isEmpty { storyType["enum"] = .array(storyTypeIds.map { .string($0) }) }
        var roleID: [String: JSONValue] = ["type": .string("string")]
        if !roleIds.isEmpty { roleID["enum"] = .array(roleIds.map { .string($0) }) }
        let advisor = object(["id": .object(roleID), "reason": .object(["type": .string("string")])], order: ["id", "reason"])
        return object([
            "story_type": .object(storyType),
            "advisors": .object(["type": .string("array"), "items": advisor]),
            "genre_context": .object(["type": .string("string")]),
        ], order: ["story_type", "advisors", "genre_context"])
    }

    /// A closed object schema: every property required, no others.
    static func object(_ properties: [String: JSONValue], order: [String]) -> JSONValue {
        .object([
            "type": .string("object"),
            "properties": .object(properties),
            "required": .array(order.map { .string($0) }),
            "additionalProperties": .bool(false),
        ])
    }
}
