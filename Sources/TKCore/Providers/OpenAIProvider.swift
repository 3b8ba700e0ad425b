import Foundation

/// OpenAI Chat Completions (`POST {base_url}/chat/completions`), also for OpenAI-compatible local
/// servers (llama.cpp, vLLM, LM Studio) through `providers.openai.base_url`.
public struct OpenAIProvider: LLMProvider, WireDialect {
    public let settings: ProviderSettings
    public var name: String { "openai" }
    public var model: String { settings.model }
    /// A local server (llama.cpp, vLLM, LM Studio) serving a model with no known price: free.
    public var isLocal: Bool { settings.isLocalServer && CostTable.price(for: settings.model) == nil }

    public init(settings: ProviderSettings) { self.settings = settings }

    public var context: ProviderContext {
        ProviderContext(provider: "openai", model: settings.model, baseURL: settings.baseURL,
                        keyEnv: settings.keyEnv, isLocal: !isOfficial)
    }

    /// Whether the base URL is OpenAI's own API (not a compatible server).
    var isOfficial: Bool { URL(string: settings.baseURL)?.host?.lowercased() == "api.openai.com" }

    public func complete(_ request: LLMRequest, onText: (@Sendable (String) -> Void)?) async throws(LLMProviderError) -> LLMResponse {
        try await HTTPExchange.complete(self, providerName: name, request: request, onText: onText)
    }

    /// Reasoning models (o-series, gpt-5) take only the default temperature and want a `developer` message.
    public static func isReasoningModel(_ model: String) -> Bool {
        let m = model.lowercased().split(separator: "/").last.map(String.init) ?? model.lowercased()
        return m.hasPrefix("o1") || m.hasPrefix("o3") || m.hasPrefix("o4") || m.hasPrefix("gpt-5")
    }

    public func httpRequest(for request: LLMRequest, model: String) -> HTTPRequest {
        var messages: [JSONValue] = []
        if !request.system.isEmpty {
            let role = isOfficial && Self.isReasoningModel(model) ? "developer" : "system"
            messages.append(.object(["role": .string(role), "content": .string(request.system)]))
        }
        for m in request.messages {
            messages.append(.object(["role": .string(m.role.rawValue), "content": .string(m.content)]))
        }
        let maxTokens = JSONValue.number(Double(max(1, request.maxOutputTokens)))
        var body: [String: JSONValue] = [
            "model": .string(model),
            "messages": .array(messages),
            "max_completion_tokens": maxTokens,
            "stream": .bool(request.stream),
        ]
        // Compatible servers may only know the older name; OpenAI's reasoning models reject it.
        if !isOfficial { body["max_tokens"] = maxTokens }
        if request.stream { body["stream_options"] = .object(["include_usage": .bool(true)]) }
        if let t = request.temperature, !Self.isReasoningModel(model) { body["temperature"] = .number(t) }
        if let schema = request.jsonSchema {
            body["response_format"] = .object([
                "type": .string("json_schema"),
                "json_schema": .object(["name": .string(request.schemaName), "schema": schema, "strict": .bool(true)]),
            ])
        }
        var headers = ["content-type": "application/json", "accept": request.stream ? "text/event-stream" : "application/json"]
        if let key = settings.apiKey { headers["authorization"] = "Bearer \(key.value)" }
        return HTTPRequest(url: settings.baseURL + "/chat/completions", headers: headers,
                           body: HTTPExchange.encode(.object(body)))
    }

    static func stopReason(_ raw: String?) -> LLMStopReason {
        switch raw {
        case "length": return .maxTokens
        case "content_filter": return .refusal
        case "stop", "tool_calls", "function_call", nil: return .complete
        default: return .other
        }
    }

    /// Usage: `prompt_tokens` already includes the cached tokens (a subset, not added again).
    static func usage(_ u: JSONValue?) -> LLMUsage {
        LLMUsage(inputTokens: HTTPExchange.int(u?["prompt_tokens"]), outputTokens: HTTPExchange.int(u?["completion_tokens"]),
                 cacheReadTokens: HTTPExchange.int(u?["prompt_tokens_details"]?["cached_tokens"]), cacheWriteTokens: 0)
    }

    /// The finished reply; an empty reply from a local server that produced no tokens is a context overflow.
    static func reply(text: String, refusal: String?, finish: String?, usage: LLMUsage, request: LLMRequest,
                      context: ProviderContext) throws(ProviderFailure) -> DecodedReply {
        var stop = stopReason(finish)
        var out = text
        if let refusal, !refusal.isEmpty, text.isEmpty { stop = .refusal; out = refusal }
        if context.isLocal, out.isEmpty, usage.outputTokens == 0, stop == .complete {
            throw ProviderFailure(.contextTooLong("\(context.displayName) returned an empty reply (\(usage.inputTokens)"
                + " prompt tokens): the prompt probably exceeds the model's context; raise its context length"
                + " or shorten the document"))
        }
        var structured: JSONValue?
        if request.jsonSchema != nil, stop == .complete { structured = try? JSONValue.parse(Array(out.utf8)) }
        if case .object = structured {} else { structured = nil }
        return DecodedReply(text: out, structured: structured, stopReason: stop, usage: usage)
    }

    public func decodeBody(_ bytes: [UInt8], request: LLMRequest) throws(ProviderFailure) -> DecodedReply {
        let json = try HTTPExchange.parseBody(bytes, context: context)
        guard let choice = json["choices"]?.arrayValue?.first else {
            throw ProviderFailure(.invalidReply("\(context.displayName) sent a reply without choices"))
        }
        let message = choice["message"]
        return try Self.reply(text: message?["content"]?.stringValue ?? "", refusal: message?["refusal"]?.stringValue,
                              finish: choice["finish_reason"]?.stringValue, usage: Self.usage(json["usage"]),
                              request: request, context: context)
    }

    public func makeStreamDecoder(request: LLMRequest) -> OpenAIStreamDecoder {
        OpenAIStreamDecoder(context: context, request: request)
    }
}

/// OpenAI's `data:` chunks up to `data: [DONE]`; the usage chunk (`choices: []`) comes last.
public struct OpenAIStreamDecoder: StreamDecoder {
    let context: ProviderContext
    let request: LLMRequest
    var sse = SSEParser()
    var text = ""
    var refusal = ""
    var finish: String?
    var usage = LLMUsage()
    var done = false

    public init(context: ProviderContext, request: LLMRequest) { self.context = context; self.request = request }

    public mutating func line(_ bytes: [UInt8]) throws(ProviderFailure) -> [String] {
        guard let event = sse.line(bytes) else { return [] }
        return try handle(event)
    }

    mutating func handle(_ event: SSEEvent) throws(ProviderFailure) -> [String] {
        if let legacy = event.error {
            // llama.cpp builds through 2025: `error: {…}` at HTTP 200.
            let json = (try? JSONValue.parse(Array(legacy.utf8))) ?? .object(["error": .string(legacy)])
            throw ProviderErrorMapper.streamError(json["error"] == nil ? .object(["error": json]) : json, context: context)
        }
        let data = event.data.trimmingCharacters(in: .whitespaces)
        if data == "[DONE]" { done = true; return [] }
        if data.isEmpty { return [] }
        guard let json = try? JSONValue.parse(Array(data.utf8)) else {
            throw ProviderFailure(.incomplete("\(context.displayName) sent a stream chunk that is not JSON"))
        }
        if json["error"] != nil && json["choices"] == nil { throw ProviderErrorMapper.streamError(json, context: context) }
        if case .object = json["usage"] { usage = OpenAIProvider.usage(json["usage"]) }
        var deltas: [String] = []
        for choice in json["choices"]?.arrayValue ?? [] where HTTPExchange.int(choice["index"]) == 0 {
            if let t = choice["delta"]?["content"]?.stringValue, !t.isEmpty { text += t; deltas.append(t) }
            if let r = choice["delta"]?["refusal"]?.stringValue { refusal += r }
            if let f = choice["finish_reason"]?.stringValue { finish = f }
        }
        return deltas
    }

    public mutating func finish(remainder: [UInt8]?) throws(ProviderFailure) -> DecodedReply {
        if !done, let event = sse.finish() { _ = try handle(event) }
        guard done else {
            throw ProviderFailure(.incomplete("the reply stream from \(context.displayName) ended before [DONE]"))
        }
        return try OpenAIProvider.reply(text: text, refusal: refusal.isEmpty ? nil : refusal, finish: finish,
                                        usage: usage, request: request, context: context)
    }
}
