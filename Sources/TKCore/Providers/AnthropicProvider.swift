import Foundation

/// Anthropic's Messages API (`POST /v1/messages`).
///
/// The system prompt is one text block marked `cache_control: ephemeral` (prompt caching); a JSON
/// schema becomes a forced tool whose input is the reply (no assistant prefill, which newer models
/// reject); `temperature` is sent only when asked for and the model accepts it.
public struct AnthropicProvider: LLMProvider, WireDialect {
    public static let apiVersion = "2023-06-01"
    public let settings: ProviderSettings
    public var name: String { "anthropic" }
    public var model: String { settings.model }
    public var isLocal: Bool { false }

    public init(settings: ProviderSettings) { self.settings = settings }

    public var context: ProviderContext {
        ProviderContext(provider: "anthropic", model: settings.model, baseURL: settings.baseURL,
                        keyEnv: settings.keyEnv, isLocal: false)
    }

    public func complete(_ request: LLMRequest, onText: (@Sendable (String) -> Void)?) async throws(LLMProviderError) -> LLMResponse {
        try await HTTPExchange.complete(self, providerName: name, request: request, onText: onText)
    }

    /// Models that reject sampling parameters (400 on `temperature`).
    public static func acceptsTemperature(_ model: String) -> Bool {
        let m = model.lowercased()
        return !["opus-4-7", "opus-4-8", "fable"].contains { m.contains($0) }
    }

    public func httpRequest(for request: LLMRequest, model: String) -> HTTPRequest {
        var body: [String: JSONValue] = [
            "model": .string(model),
            "max_tokens": .number(Double(max(1, request.maxOutputTokens))),
            "messages": .array(Self.messages(request.messages)),
            "stream": .bool(request.stream),
        ]
        if !request.system.isEmpty {
            body["system"] = .array([.object([
                "type": .string("text"), "text": .string(request.system),
                "cache_control": .object(["type": .string("ephemeral")]),
            ])])
        }
        if let t = request.temperature, Self.acceptsTemperature(model) { body["temperature"] = .number(t) }
        if let schema = request.jsonSchema {
            body["tools"] = .array([.object([
                "name": .string(request.schemaName),
                "description": .string("Give the reply by calling this tool; its input is the whole reply."),
                "input_schema": schema,
            ])])
            body["tool_choice"] = .object(["type": .string("tool"), "name": .string(request.schemaName)])
        }
        let url = settings.baseURL.hasSuffix("/v1") ? settings.baseURL + "/messages" : settings.baseURL + "/v1/messages"
        var headers = [
            "content-type": "application/json",
            "anthropic-version": Self.apiVersion,
            "accept": request.stream ? "text/event-stream" : "application/json",
        ]
        if let key = settings.apiKey { headers["x-api-key"] = key.value }
        return HTTPRequest(url: url, headers: headers, body: HTTPExchange.encode(.object(body)))
    }

    /// User/assistant turns: starting with the user, alternating, and never ending on an assistant turn.
    static func messages(_ messages: [LLMMessage]) -> [JSONValue] {
        var turns: [(LLMMessage.Role, String)] = []
        for m in messages {
            if let last = turns.last, last.0 == m.role {
                turns[turns.count - 1].1 += "\n\n" + m.content
            } else if turns.isEmpty && m.role == .assistant {
                continue
            } else {
                turns.append((m.role, m.content))
            }
        }
        while let last = turns.last, last.0 == .assistant { turns.removeLast() }
        if turns.isEmpty { turns = [(.user, "")] }
        return turns.map { .object(["role": .string($0.0.rawValue), "content": .string($0.1)]) }
    }

    static func stopReason(_ raw: String?) -> LLMStopReason {
        switch raw {
        case "max_tokens", "model_context_window_exceeded": return .maxTokens
        case "refusal": return .refusal
        case "end_turn", "stop_sequence", "tool_use", nil: return .complete
        default: return .other
        }
    }

    /// Usage with every prompt token in `inputTokens` (Anthropic counts cache tokens separately).
    static func usage(_ u: JSONValue?) -> LLMUsage {
        let input = HTTPExchange.int(u?["input_tokens"])
        let write = HTTPExchange.int(u?["cache_creation_input_tokens"])
        let read = HTTPExchange.int(u?["cache_read_input_tokens"])
        return LLMUsage(inputTokens: input + write + read, outputTokens: HTTPExchange.int(u?["output_tokens"]),
                        cacheReadTokens: read, cacheWriteTokens: write)
    }

    public func decodeBody(_ bytes: [UInt8], request: LLMRequest) throws(ProviderFailure) -> DecodedReply {
        let json = try HTTPExchange.parseBody(bytes, context: context)
        guard let blocks = json["content"]?.arrayValue else {
            throw ProviderFailure(.invalidReply("Anthropic sent a reply without content"))
        }
        var text = ""
        var structured: JSONValue?
        for block in blocks {
            switch block["type"]?.stringValue {
            case "text": text += block["text"]?.stringValue ?? ""
            case "tool_use":
                if structured == nil, let input = block["input"] { structured = input }
            default: break
            }
        }
        if request.jsonSchema != nil, let structured { text = JSON.string(structured, pretty: false) }
        return DecodedReply(text: text, structured: structured, stopReason: Self.stopReason(json["stop_reason"]?.stringValue),
                            usage: Self.usage(json["usage"]))
    }

    public func makeStreamDecoder(request: LLMRequest) -> AnthropicStreamDecoder {
        AnthropicStreamDecoder(context: context, wantsTool: request.jsonSchema != nil)
    }
}

/// Anthropic's event stream: `message_start` … `message_stop`; pings skipped; `error` events raised.
public struct AnthropicStreamDecoder: StreamDecoder {
    let context: ProviderContext
    let wantsTool: Bool
    var sse = SSEParser()
    var text = ""
    var toolJSON = ""
    var toolIndices: Set<Int> = []
    var usageJSON: [String: JSONValue] = [:]
    var stopReason: String?
    var finished = false

    public init(context: ProviderContext, wantsTool: Bool) { self.context = context; self.wantsTool = wantsTool }

    public mutating func line(_ bytes: [UInt8]) throws(ProviderFailure) -> [String] {
        guard let event = sse.line(bytes) else { return [] }
        return try handle(event)
    }

    mutating func handle(_ event: SSEEvent) throws(ProviderFailure) -> [String] {
        if event.event == "ping" { return [] }
        guard let json = try? JSONValue.parse(Array(event.data.utf8)) else {
            throw ProviderFailure(.incomplete("Anthropic sent a stream event that is not JSON"))
        }
        switch json["type"]?.stringValue ?? event.event {
        case "message_start":
            mergeUsage(json["message"]?["usage"])
        case "content_block_start":
            if json["content_block"]?["type"]?.stringValue == "tool_use" {
                toolIndices.insert(HTTPExchange.int(json["index"]))
            }
        case "content_block_delta":
            let delta = json["delta"]
            switch delta?["type"]?.stringValue {
            case "text_delta":
                let t = delta?["text"]?.stringValue ?? ""
                text += t
                return wantsTool ? [] : [t]
            case "input_json_delta":
                let p = delta?["partial_json"]?.stringValue ?? ""
                if toolIndices.isEmpty || toolIndices.contains(HTTPExchange.int(json["index"])) { toolJSON += p }
                return wantsTool ? [p] : []
            default: break
            }
        case "message_delta":
            if let r = json["delta"]?["stop_reason"]?.stringValue { stopReason = r }
            mergeUsage(json["usage"])
        case "message_stop":
            finished = true
        case "error":
            throw ProviderErrorMapper.streamError(json, context: context)
        default: break
        }
        return []
    }

    /// `message_delta.usage` is cumulative: its fields replace those of `message_start`.
    mutating func mergeUsage(_ u: JSONValue?) {
        for (k, v) in u?.objectValue ?? [:] where v.doubleValue != nil { usageJSON[k] = v }
    }

    public mutating func finish(remainder: [UInt8]?) throws(ProviderFailure) -> DecodedReply {
        if !finished, let event = sse.finish() { _ = try handle(event) }
        guard finished else {
            throw ProviderFailure(.incomplete("the reply stream from \(context.displayName) ended before message_stop"))
        }
        var structured: JSONValue?
        var out = text
        if wantsTool, !toolJSON.isEmpty {
            structured = try? JSONValue.parse(Array(toolJSON.utf8))
            out = toolJSON
        }
        return DecodedReply(text: out, structured: structured, stopReason: AnthropicProvider.stopReason(stopReason),
                            usage: AnthropicProvider.usage(.object(usageJSON)))
    }
}
