import Foundation

/// One message of a conversation sent to a model.
public struct LLMMessage: Sendable, Equatable, Codable {
    public enum Role: String, Sendable, Codable { case user, assistant }
    public var role: Role
    public var content: String
    public init(role: Role, content: String) { self.role = role; self.content = content }
}

/// A provider-neutral request. Each provider maps it to its own wire format.
public struct LLMRequest: Sendable, Equatable {
    /// Stable system prompt (sent first, cached where the provider supports it).
    public var system: String
    public var messages: [LLMMessage]
    /// Overrides the provider's configured model.
    public var model: String?
    public var maxOutputTokens: Int
    /// A JSON schema the reply must follow, when the model supports structured output.
    public var jsonSchema: JSONValue?
    /// Name for the schema / forced tool (e.g. "suggestions").
    public var schemaName: String
    /// Sampling temperature; nil leaves the model default (required by models that reject it).
    public var temperature: Double?
    public var stream: Bool

    public init(system: String, messages: [LLMMessage], model: String? = nil, maxOutputTokens: Int = 4096,
                jsonSchema: JSONValue? = nil, schemaName: String = "reply", temperature: Double? = nil,
                stream: Bool = true) {
        self.system = system; self.messages = messages; self.model = model
        self.maxOutputTokens = maxOutputTokens; self.jsonSchema = jsonSchema; self.schemaName = schemaName
        self.temperature = temperature; self.stream = stream
    }
}

/// Token counts of one reply, normalised so nothing is counted twice:
/// `inputTokens` is every prompt token (uncached + cache writes + cache reads).
public struct LLMUsage: Sendable, Equatable, Codable {
    public var inputTokens: Int
    public var outputTokens: Int
    /// Part of `inputTokens` read from the provider's prompt cache.
    public var cacheReadTokens: Int
    /// Part of `inputTokens` written to the provider's prompt cache.
    public var cacheWriteTokens: Int
    public init(inputTokens: Int = 0, outputTokens: Int = 0, cacheReadTokens: Int = 0, cacheWriteTokens: Int = 0) {
        self.inputTokens = inputTokens; self.outputTokens = outputTokens
        self.cacheReadTokens = cacheReadTokens; self.cacheWriteTokens = cacheWriteTokens
    }
    public static func + (a: LLMUsage, b: LLMUsage) -> LLMUsage {
        LLMUsage(inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens,
                 cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
                 cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens)
    }
}

/// Why a reply ended.
public enum LLMStopReason: String, Sendable, Equatable {
    case complete
    /// Cut at the output-token limit.
    case maxTokens = "max_tokens"
    case refusal
    case other
}

/// A complete reply.
public struct LLMResponse: Sendable, Equatable {
    public var provider: String
    public var model: String
    /// The text of the reply (for a forced tool call: the tool input as JSON text).
    public var text: String
    /// Structured output when the provider returned it as a value (tool input), else nil.
    public var structured: JSONValue?
    public var stopReason: LLMStopReason
    public var usage: LLMUsage
    /// Cost in US dollars from the embedded price table (0 for local models or unknown prices).
    public var costUsd: Double
    /// Attempts made (1 when the first try succeeded).
    public var attempts: Int

    public init(provider: String, model: String, text: String, structured: JSONValue? = nil,
                stopReason: LLMStopReason = .complete, usage: LLMUsage = LLMUsage(), costUsd: Double = 0,
                attempts: Int = 1) {
        self.provider = provider; self.model = model; self.text = text; self.structured = structured
        self.stopReason = stopReason; self.usage = usage; self.costUsd = costUsd; self.attempts = attempts
    }

    public var truncated: Bool { stopReason == .maxTokens }
}

/// Typed provider failures, each with one actionable line (`message`). Never contains a key.
public enum LLMProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    case notConfigured(String)
    case authentication(String)
    case permission(String)
    case unknownModel(String)
    case contextTooLong(String)
    case quotaExhausted(String)
    case rateLimited(String, retryAfter: Double?)
    case overloaded(String, retryAfter: Double?)
    case server(status: Int, String)
    case badRequest(String)
    case network(String)
    case timedOut(String)
    case stalled(String)
    case incomplete(String)
    case invalidReply(String)
    case cancelled

    /// One line for the writer: what went wrong and what to do.
    public var message: String {
        switch self {
        case .notConfigured(let m), .authentication(let m), .permission(let m), .unknownModel(let m),
             .contextTooLong(let m), .quotaExhausted(let m), .badRequest(let m), .network(let m),
             .timedOut(let m), .stalled(let m), .incomplete(let m), .invalidReply(let m):
            return m
        case .rateLimited(let m, _), .overloaded(let m, _), .server(_, let m):
            return m
        case .cancelled:
            return "the request was cancelled"
        }
    }

    public var description: String { message }

    /// Whether trying again can help (the retry policy decides when).
    public var isRetryable: Bool {
        switch self {
        case .rateLimited, .overloaded, .network, .timedOut, .stalled, .incomplete: return true
        case .server(let status, _): return status >= 500 || status == 408 || status == 409
        default: return false
        }
    }
}

/// Streamed pieces of a reply.
public enum LLMStreamEvent: Sendable, Equatable {
    case text(String)
    case done(LLMResponse)
}

/// A chat model behind a provider's API.
public protocol LLMProvider: Sendable {
    /// `anthropic`, `openai`, `ollama` (or `scripted` in tests).
    var name: String { get }
    /// The model used when the request names none.
    var model: String { get }
    /// Whether the model runs on a local server and costs nothing (exempt from the daily budget).
    var isLocal: Bool { get }
    /// Sends the request (with retries) and returns the whole reply. `onText` receives text
    /// deltas as they stream in (never called when the request does not stream). When a stream
    /// fails and is retried, text already delivered is not delivered again; the returned
    /// `LLMResponse.text` is always the text of the successful attempt.
    func complete(_ request: LLMRequest, onText: (@Sendable (String) -> Void)?) async throws(LLMProviderError) -> LLMResponse
}

extension LLMProvider {
    public var isLocal: Bool { false }

    public func complete(_ request: LLMRequest) async throws(LLMProviderError) -> LLMResponse {
        try await complete(request, onText: nil)
    }
}
