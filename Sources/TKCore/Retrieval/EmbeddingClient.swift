import Foundation
import Logging

/// What a text is embedded for (some models want a different prefix for each).
public enum EmbeddingPurpose: Sendable { case document, query }

/// An embedding model behind Ollama's `/api/embed` or OpenAI's `/v1/embeddings` (also served by
/// OpenAI-compatible local servers), with the chat providers' retries and error messages.
public struct EmbeddingClient: Sendable {
    /// `ollama` or `openai`.
    public var provider: String
    public var model: String
    public var baseURL: String
    public var apiKey: APIKey?
    public var keyEnv: String?
    /// Whether texts leave the machine (a non-loopback host, or `embeddings.remote: true`).
    public var isRemote: Bool
    public var batchSize: Int
    /// How many tokens the model reads (`EmbeddingContext.resolve`): longer passages are embedded
    /// as windows of `EmbeddingWindows.budget(contextTokens:)`.
    public var contextTokens: Int
    public var retry: RetryPolicy
    public var transport: any HTTPTransport
    public var requestTimeout: Double
    public var logger: Logger

    public init(provider: String, model: String, baseURL: String, apiKey: APIKey? = nil, keyEnv: String? = nil,
                isRemote: Bool, batchSize: Int = 32, contextTokens: Int = EmbeddingContext.fallback,
                retry: RetryPolicy = RetryPolicy(),
                transport: any HTTPTransport = CurlTransport(), requestTimeout: Double = 120,
                logger: Logger = Logger(label: "tk-agent.embeddings")) {
        self.provider = provider; self.model = model
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.apiKey = apiKey; self.keyEnv = keyEnv; self.isRemote = isRemote
        self.batchSize = max(1, batchSize); self.contextTokens = max(16, contextTokens); self.retry = retry; self.transport = transport
        self.requestTimeout = requestTimeout; self.logger = logger
    }

    /// What embeddings are stored under: the provider and the model (not the URL, so moving the
    /// server re-embeds nothing).
    public var modelID: String {
        "\(provider)/\(model.hasSuffix(":latest") ? String(model.dropLast(7)) : model)"
    }

    var context: ProviderContext {
        ProviderContext(provider: provider, model: model, baseURL: baseURL, keyEnv: keyEnv, isLocal: !isRemote)
    }

    /// The price of a million input tokens, for the models with a published price (local: free).
    public var usdPerMillionTokens: Double {
        guard provider == "openai", isRemote else { return 0 }
        switch model {
        case "text-embedding-3-small": return 0.02
        case "text-embedding-3-large": return 0.13
        case "text-embedding-ada-002": return 0.10
        default: return 0
        }
    }

    /// The most tokens one embedded text may hold (the task prefix left out).
    public var windowBudget: Int {
        EmbeddingWindows.budget(contextTokens: contextTokens) - EmbeddingWindows.estimatedTokens(prepared("", .document))
    }

    /// The text as the model was trained to read it (`EmbeddingClient.instruction`).
    func prepared(_ text: String, _ purpose: EmbeddingPurpose) -> String {
        Self.instruction(model: model, purpose) + text
    }

    /// The task instruction a model's card says to put before a text: nomic-embed-text was trained
    /// with a prefix on both sides (`search_query: ` / `search_document: `); mxbai-embed-large,
    /// snowflake-arctic-embed (v1, v1.5) and BGE's English models with an instruction before the
    /// question only, documents as they are; snowflake-arctic-embed2 with `query: ` before the
    /// question. Without it such a model compares a short question with passages as if it were
    /// one more passage. Other models (all-minilm, bge-m3, OpenAI's) take none.
    static func instruction(model: String, _ purpose: EmbeddingPurpose) -> String {
        let name = model.lowercased()
        if name.contains("nomic-embed") { return purpose == .query ? "search_query: " : "search_document: " }
        guard purpose == .query else { return "" }
        if name.contains("snowflake-arctic-embed2") { return "query: " }
        if name.contains("mxbai-embed-large") || name.contains("snowflake-arctic-embed")
            || (name.contains("bge-") && !name.contains("bge-m3") && !name.contains("multilingual")) {
            return "Represent this sentence for searching relevant passages: "
        }
        return ""
    }

    /// Embeds texts in one request per `batchSize`, retried like chat calls.
    /// - Returns: one vector per text and the prompt tokens the provider counted.
    public func embed(_ texts: [String], purpose: EmbeddingPurpose = .document) async throws(LLMProviderError) -> (vectors: [[Float]], tokens: Int) {
        var vectors: [[Float]] = []
        var tokens = 0
        var start = 0
        while start < texts.count {
            let batch = Array(texts[start..<min(texts.count, start + batchSize)]).map { prepared($0, purpose) }
            let (v, t) = try await retry.run({ (_: Int) async throws(ProviderFailure) -> ([[Float]], Int) in
                try await self.attempt(batch)
            }, onRetry: { failure, n, delay in
                self.logger.warning("embedding retry", metadata: [
                    "provider": "\(self.provider)", "model": "\(self.model)", "attempt": "\(n)",
                    "error": "\(failure.error.kind)", "delay_s": "\(String(format: "%.3f", delay))",
                ])
            }).0
            vectors += v
            tokens += t
            start += batchSize
        }
        return (vectors, tokens)
    }

    func request(_ batch: [String]) -> HTTPRequest {
        var headers = ["content-type": "application/json"]
        if let apiKey { headers["authorization"] = "Bearer \(apiKey.value)" }
        let input = JSONValue.array(batch.map(JSONValue.string))
        let body = JSONValue.object(["model": .string(model), "input": input])
        let url = provider == "ollama" ? baseURL + "/api/embed" : Self.openAIEndpoint(baseURL)
        return HTTPRequest(url: url, headers: headers, body: (try? JSON.encode(body, pretty: false)) ?? [])
    }

    /// `…/v1` + `/embeddings`; a base URL without `/v1` gets it.
    static func openAIEndpoint(_ base: String) -> String {
        base.hasSuffix("/v1") ? base + "/embeddings" : base + "/v1/embeddings"
    }

    func attempt(_ batch: [String]) async throws(ProviderFailure) -> ([[Float]], Int) {
        let ctx = context
        var head: HTTPHead?
        var body: [UInt8] = []
        do {
            for try await event in transport.events(for: request(batch), timeouts: HTTPTimeouts(firstByte: requestTimeout, idle: requestTimeout)) {
                switch event {
                case .head(let h): head = h
                case .bytes(let b): if body.count < 256 << 20 { body.append(contentsOf: b) }
                }
            }
        } catch let e as HTTPTransportError {
            throw ProviderErrorMapper.transport(e, context: ctx)
        } catch is CancellationError {
            throw ProviderFailure(.cancelled)
        } catch {
            throw ProviderFailure(.network("the embedding request to \(ctx.displayName) failed: \(error)"))
        }
        guard let head else { throw ProviderFailure(.incomplete("\(ctx.displayName) closed the connection without a reply")) }
        guard (200..<300).contains(head.status) else {
            throw ProviderErrorMapper.http(status: head.status, headers: head.headers, body: body, context: ctx)
        }
        guard let json = try? JSONValue.parse(body) else {
            throw ProviderFailure(.incomplete("\(ctx.displayName) sent an embedding reply that is not JSON"))
        }
        var vectors: [[Float]] = []
        var tokens = 0
        if provider == "ollama" {
            for v in json["embeddings"]?.arrayValue ?? [] { vectors.append(Self.floats(v)) }
            tokens = json["prompt_eval_count"]?.doubleValue.map { Int($0) } ?? 0
        } else {
            var byIndex: [(Int, [Float])] = []
            for (i, item) in (json["data"]?.arrayValue ?? []).enumerated() {
                let idx = item["index"]?.doubleValue.map { Int($0) } ?? i
                if let e = item["embedding"] { byIndex.append((idx, Self.floats(e))) }
            }
            vectors = byIndex.sorted { $0.0 < $1.0 }.map(\.1)
            tokens = json["usage"]?["prompt_tokens"]?.doubleValue.map { Int($0) } ?? 0
        }
        guard vectors.count == batch.count, let d = vectors.first?.count, d > 0, vectors.allSatisfy({ $0.count == d }) else {
            throw ProviderFailure(.incomplete("\(ctx.displayName) returned \(vectors.count) embeddings for \(batch.count) texts (model \(model))"))
        }
        return (vectors, tokens)
    }

    static func floats(_ v: JSONValue) -> [Float] {
        (v.arrayValue ?? []).map { Float($0.doubleValue ?? 0) }
    }
}

/// Picks the embedding provider from `embeddings.*`.
public enum EmbeddingClientFactory {
    /// The outcome: a client, or why there is none (shown once: retrieval is then keyword-only).
    public enum Outcome: Sendable {
        case client(EmbeddingClient)
        case none(String)
    }

    /// Words in a model name that mark an embedding model (for `auto` and a bare `ollama`).
    static let embeddingHints = ["embed", "minilm", "bge", "e5-", "gte", "arctic", "mxbai", "wordllama"]

    /// - Parameter forQuestions: the client embeds questions only (`ask`, `search`): the model's
    ///   context, which only decides how passages are cut, is not asked of the server (one request
    ///   less before every question).
    public static func make(configuration c: Configuration, environment: [String: String] = ProcessEnvironment.current,
                            transport: any HTTPTransport = CurlTransport(), forQuestions: Bool = false,
                            logger: Logger = Logger(label: "tk-agent.embeddings")) async -> Outcome {
        let e = c.embeddings
        let retry = RetryPolicy.from(configuration: c)
        func remote(_ url: String) -> Bool { e.remote ?? !ReviewPolicy.isLocalURL(url) }
        switch e.provider {
        case "none":
            return .none("embeddings.provider is none")
        case "openai":
            let base = e.baseUrl ?? c.providers.openai.baseUrl
            guard let model = e.model, !model.isEmpty else {
                return .none("embeddings.provider is openai but embeddings.model is not set (e.g. text-embedding-3-small)")
            }
            let keyEnv = c.providers.openai.apiKeyEnv
            let key = APIKey(keyEnv.flatMap { environment[$0] })
            if key == nil, remote(base) {
                return .none("embeddings.provider is openai at \(base) but \(keyEnv ?? "OPENAI_API_KEY") is not set")
            }
            let context = EmbeddingContext.resolve(configured: e.maxTokens, server: nil, model: model)
            return .client(EmbeddingClient(provider: "openai", model: model, baseURL: base, apiKey: key, keyEnv: keyEnv,
                                           isRemote: remote(base), batchSize: e.batchSize, contextTokens: context, retry: retry,
                                           transport: transport, logger: logger))
        case "ollama", "auto":
            let base = e.baseUrl ?? c.providers.ollama.baseUrl
            let explicit = e.provider == "ollama"
            // One quick look: is Ollama there, and which of its models embed?
            let tags = await ollamaModels(base: base, transport: transport)
            guard let tags else {
                return .none(explicit ? "Ollama at \(base) is not running" : "no embedding provider (no Ollama at \(base); set embeddings.provider)")
            }
            var model = e.model
            if model == nil || model?.isEmpty == true {
                model = tags.first { name in embeddingHints.contains { name.lowercased().contains($0) } }
            }
            guard let model else {
                return .none("Ollama at \(base) has no embedding model (ollama pull nomic-embed-text, or set embeddings.model)")
            }
            let server = e.maxTokens == nil && !forQuestions ? await ollamaContext(base: base, model: model, transport: transport) : nil
            let context = EmbeddingContext.resolve(configured: e.maxTokens, server: server, model: model)
            return .client(EmbeddingClient(provider: "ollama", model: model, baseURL: base, isRemote: remote(base),
                                           batchSize: e.batchSize, contextTokens: context, retry: retry,
                                           transport: transport, logger: logger))
        default:
            return .none("unknown embeddings.provider \"\(e.provider)\"; use auto, ollama, openai or none")
        }
    }

    /// The model names of an Ollama server (`/api/tags`), or nil when none answers within 2 s.
    static func ollamaModels(base: String, transport: any HTTPTransport) async -> [String]? {
        guard let json = await quickJSON(HTTPRequest(url: trimmed(base) + "/api/tags", method: "GET"), transport: transport) else {
            return nil
        }
        return (json["models"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue ?? $0["model"]?.stringValue }
    }

    /// The model's context as Ollama's `/api/show` tells it (nil: no answer within 2 s, or none said).
    static func ollamaContext(base: String, model: String, transport: any HTTPTransport) async -> Int? {
        let body = JSONValue.object(["model": .string(model), "name": .string(model)])
        let request = HTTPRequest(url: trimmed(base) + "/api/show", headers: ["content-type": "application/json"],
                                  body: (try? JSON.encode(body, pretty: false)) ?? [])
        return await quickJSON(request, transport: transport).flatMap(EmbeddingContext.fromOllamaShow)
    }

    static func trimmed(_ base: String) -> String { base.hasSuffix("/") ? String(base.dropLast()) : base }

    /// A small JSON reply within 2 s, or nil.
    static func quickJSON(_ request: HTTPRequest, transport: any HTTPTransport) async -> JSONValue? {
        var status = 0
        var body: [UInt8] = []
        do {
            for try await ev in transport.events(for: request, timeouts: HTTPTimeouts(firstByte: 2, idle: 2)) {
                switch ev {
                case .head(let h): status = h.status
                case .bytes(let x): if body.count < 4 << 20 { body.append(contentsOf: x) }
                }
            }
        } catch { return nil }
        guard status == 200 else { return nil }
        return try? JSONValue.parse(body)
    }
}
