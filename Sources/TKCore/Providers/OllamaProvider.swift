import Foundation

/// Ollama's native chat API (`POST /api/chat`). `stream` is always sent (Ollama streams by
/// default), `options.num_ctx` is sized to the prompt (without it Ollama silently truncates the
/// prompt to its default context) and a JSON schema goes in `format`.
public struct OllamaProvider: LLMProvider, WireDialect {
    public let settings: ProviderSettings
    public var name: String { "ollama" }
    public var model: String { settings.model }
    public var isLocal: Bool { true }

    /// The largest context asked for.
    public static let maxContext = 131_072

    public init(settings: ProviderSettings) { self.settings = settings }

    public var context: ProviderContext {
        ProviderContext(provider: "ollama", model: settings.model, baseURL: settings.baseURL,
                        keyEnv: settings.keyEnv, isLocal: true)
    }

    public func complete(_ request: LLMRequest, onText: (@Sendable (String) -> Void)?) async throws(LLMProviderError) -> LLMResponse {
        try await HTTPExchange.complete(self, providerName: name, request: request, onText: onText)
    }

    /// A context size for the request: prompt characters / 3 + the output allowance, rounded up
    /// to a power of two, at least 2048 and at most `maxContext`.
    public static func contextSize(for request: LLMRequest) -> Int {
        let chars = request.system.count + request.messages.reduce(0) { $0 + $1.content.count }
        let need = (chars + 2) / 3 + max(0, request.maxOutputTokens) + 64
        var size = 2048
        while size < need && size < maxContext { size *= 2 }
        return min(size, maxContext)
    }

    public func httpRequest(for request: LLMRequest, model: String) -> HTTPRequest {
        var messages: [JSONValue] = []
        if !request.system.isEmpty {
            messages.append(.object(["role": .string("system"), "content": .string(request.system)]))
        }
        for m in request.messages {
            messages.append(.object(["role": .string(m.role.rawValue), "content": .string(m.content)]))
        }
        var options: [String: JSONValue] = [
            "num_ctx": .number(Double(Self.contextSize(for: request))),
            "num_predict": .number(Double(max(1, request.maxOutputTokens))),
        ]
        if let t = request.temperature { options["temperature"] = .number(t) }
        var body: [String: JSONValue] = [
            "model": .string(model),
            "messages": .array(messages),
            "stream": .bool(request.stream),
            "options": .object(options),
        ]
        if let schema = request.jsonSchema { body["format"] = schema }
        var headers = ["content-type": "application/json"]
        if let key = settings.apiKey { headers["authorization"] = "Bearer \(key.value)" }
        return HTTPRequest(url: settings.baseURL + "/api/chat", headers: headers, body: HTTPExchange.encode(.object(body)))
    }

    static func stopReason(_ raw: String?) -> LLMStopReason {
        switch raw {
        case "length": return .maxTokens
        case "stop", nil: return .complete
        default: return .other
        }
    }

    /// Usage: `prompt_eval_count` is omitted on a full cache hit (0).
    static func usage(_ json: JSONValue) -> LLMUsage {
        LLMUsage(inputTokens: HTTPExchange.int(json["prompt_eval_count"]), outputTokens: HTTPExchange.int(json["eval_count"]))
    }

    static func reply(text: String, final: JSONValue, request: LLMRequest) -> DecodedReply {
        let stop = stopReason(final["done_reason"]?.stringValue)
        var structured: JSONValue?
        if request.jsonSchema != nil, stop == .complete, let v = try? JSONValue.parse(Array(text.utf8)),
           case .object = v {
            structured = v
        }
        return DecodedReply(text: text, structured: structured, stopReason: stop, usage: usage(final))
    }

    public func decodeBody(_ bytes: [UInt8], request: LLMRequest) throws(ProviderFailure) -> DecodedReply {
        let json = try HTTPExchange.parseBody(bytes, context: context)
        guard let message = json["message"] else {
            throw ProviderFailure(.invalidReply("\(context.displayName) sent a reply without a message"))
        }
        return Self.reply(text: message["content"]?.stringValue ?? "", final: json, request: request)
    }

    public func makeStreamDecoder(request: LLMRequest) -> OllamaStreamDecoder {
        OllamaStreamDecoder(context: context, request: request)
    }
}

/// Ollama's NDJSON stream: one object per line up to the one with `"done": true`.
public struct OllamaStreamDecoder: StreamDecoder {
    let context: ProviderContext
    let request: LLMRequest
    var text = ""
    var final: JSONValue?

    public init(context: ProviderContext, request: LLMRequest) { self.context = context; self.request = request }

    public mutating func line(_ bytes: [UInt8]) throws(ProviderFailure) -> [String] {
        guard let parsed = NDJSON.line(bytes) else { return [] }
        guard let json = parsed else {
            throw ProviderFailure(.incomplete("\(context.displayName) sent a stream line that is not JSON"))
        }
        if json["error"] != nil { throw ProviderErrorMapper.streamError(json, context: context) }
        var deltas: [String] = []
        if let t = json["message"]?["content"]?.stringValue, !t.isEmpty { text += t; deltas.append(t) }
        if json["done"]?.boolValue == true { final = json }
        return deltas
    }

    public mutating func finish(remainder: [UInt8]?) throws(ProviderFailure) -> DecodedReply {
        if final == nil, let remainder, let parsed = NDJSON.line(remainder), let json = parsed {
            if json["error"] != nil { throw ProviderErrorMapper.streamError(json, context: context) }
            text += json["message"]?["content"]?.stringValue ?? ""
            if json["done"]?.boolValue == true { final = json }
        }
        guard let final else {
            throw ProviderFailure(.incomplete("the reply stream from \(context.displayName) ended before its final (done) line"))
        }
        return OllamaProvider.reply(text: text, final: final, request: request)
    }
}
