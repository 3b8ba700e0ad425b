import Foundation
import Logging
import Synchronization

/// An API key. Prints as `***` so it cannot leak through string interpolation or a dump.
public struct APIKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public let value: String
    public init?(_ raw: String?) {
        guard let v = raw?.trimmingCharacters(in: .whitespacesAndNewlines), !v.isEmpty else { return nil }
        value = v
    }
    public var description: String { "***" }
    public var debugDescription: String { "***" }
    public var customMirror: Mirror { Mirror(self, children: []) }
}

/// What every HTTP provider is built from.
public struct ProviderSettings: Sendable {
    public var baseURL: String
    public var model: String
    public var apiKey: APIKey?
    /// The environment variable named for the key (for error hints only).
    public var keyEnv: String?
    /// Longest wait for the reply to start (covers a cold model load), seconds.
    public var requestTimeout: Double
    /// Longest silence inside a streamed reply, seconds.
    public var stallSeconds: Double
    public var retry: RetryPolicy
    public var transport: any HTTPTransport
    public var logger: Logger

    public init(baseURL: String, model: String, apiKey: APIKey?, keyEnv: String? = nil, requestTimeout: Double = 600,
                stallSeconds: Double = 60, retry: RetryPolicy = RetryPolicy(),
                transport: any HTTPTransport = CurlTransport(), logger: Logger) {
        var base = baseURL.trimmingCharacters(in: .whitespaces)
        while base.hasSuffix("/") { base.removeLast() }
        self.baseURL = base; self.model = model; self.apiKey = apiKey; self.keyEnv = keyEnv
        self.requestTimeout = requestTimeout; self.stallSeconds = stallSeconds; self.retry = retry
        self.transport = transport; self.logger = logger
    }

    /// Whether the base URL points at this machine or a private network (a local model server).
    public var isLocalServer: Bool {
        guard let host = URL(string: baseURL)?.host?.lowercased() else { return false }
        if host == "localhost" || host.hasSuffix(".localhost") || host == "::1" || host == "[::1]" || host.hasSuffix(".local") {
            return true
        }
        let parts = host.split(separator: ".").compactMap { Int($0) }
        guard parts.count == 4 else { return false }
        return parts[0] == 127 || parts[0] == 10 || (parts[0] == 192 && parts[1] == 168)
            || (parts[0] == 172 && (16...31).contains(parts[1])) || parts[0] == 0
    }
}

/// A reply decoded from the wire, before cost and attempts are added.
public struct DecodedReply: Sendable, Equatable {
    public var text: String
    public var structured: JSONValue?
    public var stopReason: LLMStopReason
    public var usage: LLMUsage
    public init(text: String, structured: JSONValue? = nil, stopReason: LLMStopReason = .complete,
                usage: LLMUsage = LLMUsage()) {
        self.text = text; self.structured = structured; self.stopReason = stopReason; self.usage = usage
    }
}

/// Decodes a streamed reply line by line.
public protocol StreamDecoder {
    /// Feeds one complete line (no terminator); returns text deltas for the writer.
    mutating func line(_ bytes: [UInt8]) throws(ProviderFailure) -> [String]
    /// The end of the body (`remainder`: bytes after the last line end). Throws `.incomplete` when
    /// the stream's final event never came.
    mutating func finish(remainder: [UInt8]?) throws(ProviderFailure) -> DecodedReply
}

/// One provider's wire format.
public protocol WireDialect: Sendable {
    associatedtype Decoder: StreamDecoder
    var settings: ProviderSettings { get }
    var context: ProviderContext { get }
    func httpRequest(for request: LLMRequest, model: String) -> HTTPRequest
    func decodeBody(_ bytes: [UInt8], request: LLMRequest) throws(ProviderFailure) -> DecodedReply
    func makeStreamDecoder(request: LLMRequest) -> Decoder
}

/// Forwards streamed text to the caller once: when an attempt is retried, text already delivered
/// is not repeated (the new attempt's text is forwarded only past what was shown, and only while
/// it starts with it). The final `LLMResponse.text` is always the successful attempt's text.
final class TextRelay: Sendable {
    private let state = Mutex<(delivered: [UInt8], current: [UInt8], diverged: Bool)>(([], [], false))
    private let sink: (@Sendable (String) -> Void)?

    init(_ sink: (@Sendable (String) -> Void)?) { self.sink = sink }

    func newAttempt() { state.withLock { $0.current = []; $0.diverged = false } }

    func push(_ delta: String) {
        guard let sink, !delta.isEmpty else { return }
        let out: String? = state.withLock { s in
            s.current.append(contentsOf: delta.utf8)
            if s.diverged { return nil }
            if s.current.count <= s.delivered.count {
                if !s.delivered.starts(with: s.current) { s.diverged = true }
                return nil
            }
            guard s.current.starts(with: s.delivered) else { s.diverged = true; return nil }
            let fresh = String(decoding: s.current[s.delivered.count...], as: UTF8.self)
            s.delivered = s.current
            return fresh
        }
        if let out { sink(out) }
    }
}

/// The request/response cycle shared by the HTTP providers: retries, streaming, error mapping.
public enum HTTPExchange {
    /// Sends the request with retries and returns the whole reply.
    public static func complete<D: WireDialect>(_ dialect: D, providerName: String, request: LLMRequest,
                                                onText: (@Sendable (String) -> Void)?) async throws(LLMProviderError) -> LLMResponse {
        let s = dialect.settings
        let model = request.model ?? s.model
        var context = dialect.context
        context.model = model
        let relay = TextRelay(request.stream ? onText : nil)
        let secrets = [s.apiKey?.value].compactMap { $0 }
        let logger = s.logger
        do {
            let (reply, attempts) = try await s.retry.run({ (n: Int) async throws(ProviderFailure) -> DecodedReply in
                relay.newAttempt()
                logger.debug("llm request", metadata: ["provider": "\(providerName)", "model": "\(model)",
                                                      "stream": "\(request.stream)", "attempt": "\(n)"])
                return try await attempt(dialect, request: request, model: model, context: context, relay: relay)
            }, onRetry: { failure, n, delay in
                logger.warning("llm retry", metadata: [
                    "provider": "\(providerName)", "model": "\(model)", "attempt": "\(n)",
                    "error": "\(failure.error.kind)", "status": "\(failure.status.map(String.init) ?? "-")",
                    "delay_s": "\(String(format: "%.3f", delay))",
                ])
            })
            // Ollama is free; other servers are priced by model (an unknown model, e.g. one served by
            // llama.cpp, costs 0), so a proxy or test server on localhost still counts as paid.
            let cost = CostTable.cost(model: model, usage: reply.usage, local: providerName == "ollama")
            return LLMResponse(provider: providerName, model: model, text: reply.text, structured: reply.structured,
                               stopReason: reply.stopReason, usage: reply.usage, costUsd: cost, attempts: attempts)
        } catch {
            let e = error.redacting(secrets)
            logger.debug("llm failed", metadata: ["provider": "\(providerName)", "model": "\(model)", "error": "\(e.kind)"])
            throw e
        }
    }

    /// One attempt.
    static func attempt<D: WireDialect>(_ dialect: D, request: LLMRequest, model: String, context: ProviderContext,
                                        relay: TextRelay) async throws(ProviderFailure) -> DecodedReply {
        let s = dialect.settings
        let http = dialect.httpRequest(for: request, model: model)
        let timeouts = HTTPTimeouts(firstByte: s.requestTimeout, idle: request.stream ? s.stallSeconds : s.requestTimeout)
        var head: HTTPHead?
        var body: [UInt8] = []
        var streaming = false
        var splitter = LineSplitter()
        var decoder = dialect.makeStreamDecoder(request: request)
        do {
            for try await event in s.transport.events(for: http, timeouts: timeouts) {
                switch event {
                case .head(let h):
                    head = h
                    let type = h.headers["content-type"]?.lowercased() ?? ""
                    // A server that ignores `stream` (or answers with a JSON error) is read whole.
                    streaming = request.stream && (200..<300).contains(h.status)
                        && !(type.contains("json") && !type.contains("ndjson"))
                case .bytes(let b):
                    if streaming {
                        for line in splitter.push(b) {
                            for delta in try decoder.line(line) { relay.push(delta) }
                        }
                    } else if body.count < 64 << 20 {
                        body.append(contentsOf: b)
                    }
                }
            }
        } catch let f as ProviderFailure {
            throw f
        } catch let e as HTTPTransportError {
            throw ProviderErrorMapper.transport(e, context: context)
        } catch is CancellationError {
            throw ProviderFailure(.cancelled)
        } catch {
            throw ProviderFailure(.network("the request to \(context.displayName) failed: \(error)"))
        }
        if Task.isCancelled { throw ProviderFailure(.cancelled) }
        guard let head else {
            throw ProviderFailure(.incomplete("\(context.displayName) closed the connection without a reply"))
        }
        guard (200..<300).contains(head.status) else {
            throw ProviderErrorMapper.http(status: head.status, headers: head.headers, body: body, context: context)
        }
        if streaming {
            return try decoder.finish(remainder: splitter.finish())
        }
        do {
            return try dialect.decodeBody(body, request: request)
        } catch {
            // A stream sent with a JSON content type: decode it as the stream it is.
            guard request.stream, body.first == UInt8(ascii: "{") || body.first == UInt8(ascii: "d")
                    || body.first == UInt8(ascii: "e") || body.first == UInt8(ascii: ":") else { throw error }
            var retry = dialect.makeStreamDecoder(request: request)
            var lines = LineSplitter()
            for line in lines.push(body) { for delta in try retry.line(line) { relay.push(delta) } }
            guard let reply = try? retry.finish(remainder: lines.finish()) else { throw error }
            return reply
        }
    }

    /// Encodes a request body.
    static func encode(_ value: JSONValue) -> [UInt8] {
        (try? JSON.encode(value, pretty: false)) ?? Array("{}".utf8)
    }

    /// Parses a non-streamed JSON body, or fails with a clear line.
    static func parseBody(_ bytes: [UInt8], context: ProviderContext) throws(ProviderFailure) -> JSONValue {
        if bytes.isEmpty {
            throw ProviderFailure(.incomplete("\(context.displayName) sent an empty reply"))
        }
        guard let json = try? JSONValue.parse(bytes) else {
            throw ProviderFailure(.incomplete("\(context.displayName) sent a reply that is not complete JSON"))
        }
        if json["error"] != nil, json["choices"] == nil, json["content"] == nil, json["message"] == nil {
            throw ProviderErrorMapper.streamError(json, context: context)
        }
        return json
    }

    /// An integer field (missing or null → 0).
    static func int(_ v: JSONValue?) -> Int { v?.doubleValue.map { Int($0) } ?? 0 }
}
