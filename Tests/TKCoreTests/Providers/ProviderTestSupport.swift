import Foundation
import Logging
import Synchronization
@testable import TKCore

/// The recorded LLM API fixtures (copied from the shared fixture set into the test resources).
enum LLMFixtures {
    static var root: URL? { Bundle.module.resourceURL?.appendingPathComponent("Fixtures/llm") }

    /// The bytes of `provider/name.ext`.
    static func bytes(_ path: String) -> [UInt8] {
        guard let root, let data = try? Data(contentsOf: root.appendingPathComponent(path)) else { return [] }
        return Array(data)
    }

    /// Every fixture file under a provider folder with the given extension (sidecars excluded).
    static func files(_ folder: String, ext: String) -> [String] {
        guard let root, let names = try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(folder).path)
        else { return [] }
        return names.filter { $0.hasSuffix("." + ext) && !$0.hasSuffix(".headers.json") }.sorted().map { "\(folder)/\($0)" }
    }

    /// A scripted reply from a fixture and its `.headers.json` sidecar (status, headers, transport mode).
    static func response(_ base: String, chunk: Int = 64) -> ScriptedResponse {
        let body: [UInt8]
        if let file = ["json", "sse", "ndjson"].map({ "\(base).\($0)" }).first(where: { !bytes($0).isEmpty }) {
            body = bytes(file)
        } else {
            body = []
        }
        var status = 200
        var headers: [String: String] = [:]
        var end = ScriptedResponse.End.clean
        let sidecar = bytes("\(base).headers.json")
        if !sidecar.isEmpty, let meta = try? JSONValue.parse(sidecar) {
            status = meta["status"]?.doubleValue.map { Int($0) } ?? 200
            for (k, v) in meta["headers"]?.objectValue ?? [:] { headers[k.lowercased()] = v.stringValue }
            switch meta["transport"]?["mode"]?.stringValue {
            case "cut": end = .error(.connectionLost("connection reset"))
            case "stall": end = .error(.stalled(1))
            default: break
            }
        }
        if headers["content-type"] == nil {
            headers["content-type"] = base.contains("stream") ? (base.hasPrefix("ollama") ? "application/x-ndjson" : "text/event-stream")
                : "application/json"
        }
        return ScriptedResponse(status: status, headers: headers, body: body, chunk: chunk, end: end)
    }
}

struct ScriptedResponse: Sendable {
    enum End: Sendable { case clean, error(HTTPTransportError) }
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
    var chunk: Int = 64
    var end: End = .clean
    /// Fails before any reply (connection refused and the like).
    var failBeforeHead: HTTPTransportError?

    static func json(_ status: Int, _ body: String, headers: [String: String] = [:]) -> ScriptedResponse {
        var h = headers
        h["content-type"] = h["content-type"] ?? "application/json"
        return ScriptedResponse(status: status, headers: h, body: Array(body.utf8))
    }

    static func failure(_ e: HTTPTransportError) -> ScriptedResponse {
        ScriptedResponse(status: 0, headers: [:], body: [], failBeforeHead: e)
    }
}

/// An HTTP transport that replays scripted replies in order and records the requests.
final class ScriptedTransport: HTTPTransport {
    private let state: Mutex<(queue: [ScriptedResponse], requests: [HTTPRequest])>

    init(_ replies: [ScriptedResponse]) { state = Mutex((replies, [])) }

    var requests: [HTTPRequest] { state.withLock { $0.requests } }

    /// The JSON bodies of the requests.
    var bodies: [JSONValue] { requests.compactMap { $0.body.flatMap { try? JSONValue.parse($0) } } }

    func events(for request: HTTPRequest, timeouts: HTTPTimeouts) -> AsyncThrowingStream<HTTPEvent, any Error> {
        let next: ScriptedResponse? = state.withLock { s in
            s.requests.append(request)
            return s.queue.isEmpty ? nil : s.queue.removeFirst()
        }
        return AsyncThrowingStream { c in
            guard let r = next else { c.finish(throwing: HTTPTransportError.cannotConnect("Connection refused")); return }
            if let e = r.failBeforeHead { c.finish(throwing: e); return }
            c.yield(.head(HTTPHead(status: r.status, headers: r.headers)))
            var i = 0
            while i < r.body.count {
                let j = min(r.body.count, i + max(1, r.chunk))
                c.yield(.bytes(Array(r.body[i..<j])))
                i = j
            }
            switch r.end {
            case .clean: c.finish()
            case .error(let e): c.finish(throwing: e)
            }
        }
    }
}

/// A recorder of sleeps, so retry tests run instantly.
final class SleepRecorder: Sendable {
    private let slept = Mutex<[Double]>([])
    var delays: [Double] { slept.withLock { $0 } }
    var sleep: @Sendable (Double) async throws -> Void { { [self] d in slept.withLock { $0.append(d) } } }
}

/// Collects streamed text.
final class TextCollector: Sendable {
    private let parts = Mutex<[String]>([])
    var text: String { parts.withLock { $0.joined() } }
    var sink: @Sendable (String) -> Void { { [self] t in parts.withLock { $0.append(t) } } }
}

enum ProviderTestKit {
    static let anthropicKey = "sk-ant-test-SECRET-0123456789"
    static let openAIKey = "sk-openai-test-SECRET-9876543210"

    static func settings(_ base: String, model: String, key: String?, transport: ScriptedTransport,
                         sleeper: SleepRecorder = SleepRecorder(), maxAttempts: Int = 4, keyEnv: String? = nil) -> ProviderSettings {
        ProviderSettings(baseURL: base, model: model, apiKey: APIKey(key), keyEnv: keyEnv, requestTimeout: 5, stallSeconds: 1,
                         retry: RetryPolicy(maxAttempts: maxAttempts, maxTotalWait: 120, baseDelay: 0.5,
                                            sleep: sleeper.sleep, random: { 0.5 }),
                         transport: transport, logger: Logger(label: "test"))
    }

    static func anthropic(_ replies: [ScriptedResponse], sleeper: SleepRecorder = SleepRecorder(), maxAttempts: Int = 4)
        -> (AnthropicProvider, ScriptedTransport) {
        let t = ScriptedTransport(replies)
        return (AnthropicProvider(settings: settings("https://api.anthropic.com", model: "claude-haiku-4-5", key: anthropicKey,
                                                     transport: t, sleeper: sleeper, maxAttempts: maxAttempts,
                                                     keyEnv: "ANTHROPIC_API_KEY")), t)
    }

    static func openai(_ replies: [ScriptedResponse], base: String = "https://api.openai.com/v1", model: String = "gpt-4o",
                       sleeper: SleepRecorder = SleepRecorder()) -> (OpenAIProvider, ScriptedTransport) {
        let t = ScriptedTransport(replies)
        return (OpenAIProvider(settings: settings(base, model: model, key: openAIKey, transport: t, sleeper: sleeper,
                                                  keyEnv: "OPENAI_API_KEY")), t)
    }

    static func ollama(_ replies: [ScriptedResponse], sleeper: SleepRecorder = SleepRecorder()) -> (OllamaProvider, ScriptedTransport) {
        let t = ScriptedTransport(replies)
        return (OllamaProvider(settings: settings("http://127.0.0.1:11434", model: "llama3.2", key: nil, transport: t,
                                                  sleeper: sleeper)), t)
    }

    static func request(stream: Bool, schema: JSONValue? = nil) -> LLMRequest {
        LLMRequest(system: "You are an editor.", messages: [LLMMessage(role: .user, content: "Review this.")],
                   maxOutputTokens: 1000, jsonSchema: schema, schemaName: "tk_suggestions", stream: stream)
    }
}
