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
/// STUB: the providers work replaces the body; the signatures stay.
public enum ProviderFactory {
    /// The provider to use. `providerOverride`/`modelOverride` come from `--provider`/`--model`.
    public static func make(configuration: Configuration, environment: [String: String], paths: Paths,
                            providerOverride: String? = nil, modelOverride: String? = nil,
                            logger: Logger) async throws(LLMProviderError) -> any LLMProvider {
        throw .notConfigured("no LLM provider is configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY, or start Ollama")
    }

    /// Which provider would be used and whether it is available, without sending a request.
    public static func status(configuration: Configuration, environment: [String: String], paths: Paths,
                              logger: Logger) async -> ProviderStatus {
        ProviderStatus(name: nil, model: nil, available: false, reason: "no LLM provider is configured")
    }
}
