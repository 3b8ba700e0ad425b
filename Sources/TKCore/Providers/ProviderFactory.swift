import Foundation
import Logging

/// What `status` and `config show` say about the provider in use.
public struct ProviderStatus: Sendable, Equatable, Codable {
    public var name: String?
    public var model: String?
    public var available: Bool
    public var reason: String?
    public init(name: String?, model: String?, available: Bool, reason: String?) {
        self.name = name; self.model = model; self.available = available; self.reason = reason
    }
}

/// Builds the configured provider (`provider: auto|anthropic|openai|ollama`).
///
/// The provider is `--provider` › `TK_PROVIDER` › `provider`; the model `--model` › `TK_MODEL` ›
/// `model` › `providers.<name>.model`. `auto` takes a running Ollama that has a model, else
/// Anthropic when it has a key, else OpenAI when it has a key. A key comes from the variable
/// named by `providers.<name>.api_key_env`, else `TK_API_KEY`, else the secrets store
/// (`providers.<name>.api_key`, then `api_key`). Keys are never logged or printed.
public enum ProviderFactory {
    public static let names = ["auto", "anthropic", "openai", "ollama"]

    /// The provider to use. `providerOverride`/`modelOverride` come from `--provider`/`--model`.
    public static func make(configuration: Configuration, environment: [String: String], paths: Paths,
                            providerOverride: String? = nil, modelOverride: String? = nil,
                            logger: Logger) async throws(LLMProviderError) -> any LLMProvider {
        try await make(configuration: configuration, environment: environment, paths: paths,
                       providerOverride: providerOverride, modelOverride: modelOverride, logger: logger,
                       transport: CurlTransport())
    }

    /// `make` with an injected transport (tests).
    public static func make(configuration: Configuration, environment: [String: String], paths: Paths,
                            providerOverride: String?, modelOverride: String?, logger: Logger,
                            transport: any HTTPTransport) async throws(LLMProviderError) -> any LLMProvider {
        let r = Resolver(configuration: configuration, environment: environment, paths: paths,
                         providerOverride: providerOverride, modelOverride: modelOverride, logger: logger,
                         transport: transport)
        switch await r.resolve() {
        case .success(let choice):
            logger.debug("llm provider chosen", metadata: ["provider": "\(choice.name)", "model": "\(choice.model)"])
            return r.build(choice)
        case .failure(let error):
            throw error
        }
    }

    /// Which provider would be used and whether it is available, without sending a paid request
    /// (for `auto` and Ollama it asks Ollama for its model list).
    public static func status(configuration: Configuration, environment: [String: String], paths: Paths,
                              logger: Logger) async -> ProviderStatus {
        await status(configuration: configuration, environment: environment, paths: paths, logger: logger,
                     transport: CurlTransport())
    }

    /// `status` with an injected transport (tests).
    public static func status(configuration: Configuration, environment: [String: String], paths: Paths,
                              logger: Logger, transport: any HTTPTransport) async -> ProviderStatus {
        let r = Resolver(configuration: configuration, environment: environment, paths: paths,
                         providerOverride: nil, modelOverride: nil, logger: logger, transport: transport)
        switch await r.resolve() {
        case .success(let c):
            return ProviderStatus(name: c.name, model: c.model, available: c.problem == nil, reason: c.problem)
        case .failure(let e):
            return ProviderStatus(name: r.requestedName == "auto" ? nil : r.requestedName, model: r.explicitModel,
                                  available: false, reason: e.message)
        }
    }
}

/// The provider chosen, before it is built.
struct ProviderChoice: Sendable {
    var name: String
    var model: String
    var key: APIKey?
    /// Why it may not work (status only; e.g. the Ollama model is not pulled).
    var problem: String?
}

/// Resolves provider, model and key from flags, environment, configuration and secrets.
struct Resolver: Sendable {
    let configuration: Configuration
    let environment: [String: String]
    let paths: Paths
    let providerOverride: String?
    let modelOverride: String?
    let logger: Logger
    let transport: any HTTPTransport

    init(configuration: Configuration, environment: [String: String], paths: Paths, providerOverride: String?,
         modelOverride: String?, logger: Logger, transport: any HTTPTransport) {
        self.configuration = configuration; self.environment = environment; self.paths = paths
        self.providerOverride = providerOverride; self.modelOverride = modelOverride; self.logger = logger
        self.transport = transport
    }

    func env(_ k: String) -> String? {
        environment[k].flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 }
    }

    static func nonEmpty(_ s: String?) -> String? {
        s.flatMap { $0.trimmingCharacters(in: .whitespaces).isEmpty ? nil : $0.trimmingCharacters(in: .whitespaces) }
    }

    var requestedName: String {
        (Self.nonEmpty(providerOverride) ?? env("TK_PROVIDER") ?? configuration.provider).lowercased()
    }

    /// The model named by a flag, the environment or the top-level `model`, if any.
    var explicitModel: String? {
        Self.nonEmpty(modelOverride) ?? env("TK_MODEL").map { $0.trimmingCharacters(in: .whitespaces) }
            ?? Self.nonEmpty(configuration.model)
    }

    func settings(_ name: String) -> Configuration.ProviderSettings {
        switch name {
        case "anthropic": return configuration.providers.anthropic
        case "openai": return configuration.providers.openai
        default: return configuration.providers.ollama
        }
    }

    func key(for name: String) -> APIKey? {
        if let envName = settings(name).apiKeyEnv, let k = APIKey(env(envName)) { return k }
        if let k = APIKey(env("TK_API_KEY")) { return k }
        let secrets = SecretsStore(paths: paths)
        return APIKey(secrets.value(for: "providers.\(name).api_key")) ?? APIKey(secrets.value(for: "api_key"))
    }

    func keyHint(_ name: String) -> String {
        let envName = settings(name).apiKeyEnv.map { "\($0) or " } ?? ""
        return "set \(envName)TK_API_KEY, or `tk-agent config set providers.\(name).api_key KEY`"
    }

    func resolve() async -> Result<ProviderChoice, LLMProviderError> {
        let name = requestedName
        switch name {
        case "auto": return await resolveAuto()
        case "anthropic", "openai": return resolveKeyed(name)
        case "ollama": return await resolveOllama()
        default:
            return .failure(.notConfigured("unknown provider '\(name)': use auto, anthropic, openai or ollama"
                + " (`tk-agent config set provider NAME`)"))
        }
    }

    func resolveKeyed(_ name: String) -> Result<ProviderChoice, LLMProviderError> {
        let s = settings(name)
        guard let model = explicitModel ?? Self.nonEmpty(s.model) else {
            return .failure(.notConfigured("no model set for \(name): set `model` or providers.\(name).model"
                + " (`tk-agent config set providers.\(name).model NAME`)"))
        }
        let key = key(for: name)
        let probe = ProviderSettings(baseURL: s.baseUrl, model: model, apiKey: nil, logger: logger)
        // OpenAI-compatible local servers (llama.cpp, LM Studio…) need no key; Anthropic always does.
        if key == nil && (name == "anthropic" || !probe.isLocalServer) {
            let label = name == "anthropic" ? "Anthropic" : "OpenAI"
            return .failure(.notConfigured("no \(label) API key: \(keyHint(name))"))
        }
        return .success(ProviderChoice(name: name, model: model, key: key))
    }

    func resolveOllama() async -> Result<ProviderChoice, LLMProviderError> {
        let configured = explicitModel ?? Self.nonEmpty(settings("ollama").model)
        let tags = await ollamaModels(timeout: configured == nil ? 2 : 0.5)
        let base = settings("ollama").baseUrl
        guard let model = configured ?? tags?.first else {
            if tags == nil {
                return .failure(.notConfigured("Ollama is not reachable at \(base) and no model is set: start it"
                    + " (`ollama serve`) or check providers.ollama.base_url / OLLAMA_HOST"))
            }
            return .failure(.notConfigured("Ollama at \(base) has no models: `ollama pull llama3.2`, or set"
                + " providers.ollama.model"))
        }
        var problem: String?
        if let tags {
            if !Self.listed(model, in: tags) {
                problem = "Ollama has no model '\(model)': run `ollama pull \(model)` or set providers.ollama.model"
            }
        } else {
            problem = "Ollama is not reachable at \(base): start it (`ollama serve`) or check providers.ollama.base_url"
        }
        return .success(ProviderChoice(name: "ollama", model: model, key: ollamaKey(), problem: problem))
    }

    /// Ollama needs a key only for ollama.com; only its own variable is read (never another provider's).
    func ollamaKey() -> APIKey? {
        settings("ollama").apiKeyEnv.flatMap { APIKey(env($0)) }
    }

    static func listed(_ model: String, in tags: [String]) -> Bool {
        tags.contains { $0 == model || $0 == model + ":latest" || $0.hasPrefix(model + ":") && !model.contains(":") }
    }

    func resolveAuto() async -> Result<ProviderChoice, LLMProviderError> {
        // A running Ollama with a model; when a model is named explicitly, Ollama must have it.
        if let tags = await ollamaModels(timeout: 0.3), let first = tags.first,
           explicitModel.map({ Self.listed($0, in: tags) }) ?? true {
            let configured = Self.nonEmpty(settings("ollama").model)
            let model = explicitModel ?? configured.flatMap { Self.listed($0, in: tags) ? $0 : nil } ?? configured ?? first
            return .success(ProviderChoice(name: "ollama", model: model, key: ollamaKey()))
        }
        for name in ["anthropic", "openai"] {
            let s = settings(name)
            guard let key = key(for: name) else { continue }
            guard let model = explicitModel ?? Self.nonEmpty(s.model) else { continue }
            return .success(ProviderChoice(name: name, model: model, key: key))
        }
        return .failure(.notConfigured("no LLM provider is available: start Ollama with a model (`ollama serve`,"
            + " `ollama pull llama3.2`), or set ANTHROPIC_API_KEY or OPENAI_API_KEY"))
    }

    /// The models a running Ollama lists (`GET /api/tags`), or nil when it does not answer in time.
    func ollamaModels(timeout: Double) async -> [String]? {
        var base = settings("ollama").baseUrl.trimmingCharacters(in: .whitespaces)
        while base.hasSuffix("/") { base.removeLast() }
        var headers: [String: String] = [:]
        if let key = ollamaKey() { headers["authorization"] = "Bearer \(key.value)" }
        let request = HTTPRequest(url: base + "/api/tags", method: "GET", headers: headers)
        var head: HTTPHead?
        var body: [UInt8] = []
        do {
            for try await event in transport.events(for: request, timeouts: HTTPTimeouts(firstByte: timeout, idle: timeout)) {
                switch event {
                case .head(let h): head = h
                case .bytes(let b): if body.count < 4 << 20 { body += b }
                }
            }
        } catch {
            logger.debug("ollama not reachable", metadata: ["url": "\(base)"])
            return nil
        }
        guard head?.status == 200, let json = try? JSONValue.parse(body) else { return nil }
        return (json["models"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue ?? $0["model"]?.stringValue }
    }

    func build(_ c: ProviderChoice) -> any LLMProvider {
        let s = settings(c.name)
        let review = configuration.review
        let ps = ProviderSettings(baseURL: s.baseUrl, model: c.model, apiKey: c.key, keyEnv: s.apiKeyEnv,
                                  requestTimeout: review.requestTimeoutSeconds, stallSeconds: review.stallSeconds,
                                  retry: RetryPolicy.from(configuration: configuration),
                                  transport: transport, logger: logger)
        switch c.name {
        case "anthropic": return AnthropicProvider(settings: ps)
        case "openai": return OpenAIProvider(settings: ps)
        default: return OllamaProvider(settings: ps)
        }
    }
}
