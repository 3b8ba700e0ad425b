import Foundation
import Logging
import Testing
@testable import TKCore

@Suite("Provider factory")
struct ProviderFactoryTests {
    static let paths = Paths(userConfig: PathBytes("/nonexistent/tk/config.json"), configDirectory: PathBytes("/nonexistent/tk"),
                             dataDirectory: PathBytes("/nonexistent/data"), runtimeDirectory: PathBytes("/nonexistent/run"))
    static let logger = Logger(label: "test")
    static let tags = LLMFixtures.response("ollama/tags")

    static func make(_ env: [String: String], config: Configuration = .defaults, provider: String? = nil, model: String? = nil,
                     replies: [ScriptedResponse] = []) async throws(LLMProviderError) -> any LLMProvider {
        try await ProviderFactory.make(configuration: config, environment: env, paths: paths, providerOverride: provider,
                                       modelOverride: model, logger: logger, transport: ScriptedTransport(replies))
    }

    @Test("auto: a running Ollama with models comes first (configured model, else the first listed)")
    func autoOllama() async throws {
        let p = try await Self.make(["ANTHROPIC_API_KEY": "k1"], replies: [Self.tags])
        #expect(p.name == "ollama")
        #expect(p.model == "deepseek-r1:latest")
        var c = Configuration.defaults
        c.providers.ollama.model = "llama3.2"
        let q = try await Self.make([:], config: c, replies: [Self.tags])
        #expect(q.model == "llama3.2")
    }

    @Test("auto: Ollama is skipped when the model named explicitly is not one of its models")
    func autoExplicitModel() async throws {
        let p = try await Self.make(["ANTHROPIC_API_KEY": "k1", "TK_MODEL": "claude-haiku-4-5"], replies: [Self.tags])
        #expect(p.name == "anthropic" && p.model == "claude-haiku-4-5")
        let q = try await Self.make(["ANTHROPIC_API_KEY": "k1", "TK_MODEL": "llama3.2"], replies: [Self.tags])
        #expect(q.name == "ollama" && q.model == "llama3.2")
    }

    @Test("auto: Ollama without models is skipped")
    func autoEmptyOllama() async throws {
        let p = try await Self.make(["ANTHROPIC_API_KEY": "k1"], replies: [.json(200, #"{"models":[]}"#)])
        #expect(p.name == "anthropic")
    }

    @Test("auto: no Ollama → Anthropic key → OpenAI key → not configured")
    func autoOrder() async throws {
        #expect(try await Self.make(["ANTHROPIC_API_KEY": "k1", "OPENAI_API_KEY": "k2"]).name == "anthropic")
        let o = try await Self.make(["OPENAI_API_KEY": "k2"])
        #expect(o.name == "openai")
        #expect(o.model == "gpt-4o-mini")
        do {
            _ = try await Self.make([:])
            Issue.record("expected notConfigured")
        } catch {
            #expect(error.kind == "not_configured")
            #expect(error.message.contains("ANTHROPIC_API_KEY"))
        }
    }

    @Test("precedence: flag › TK_PROVIDER › config; model flag › TK_MODEL › model › providers.<name>.model")
    func precedence() async throws {
        var c = Configuration.defaults
        c.provider = "ollama"
        let env = ["TK_PROVIDER": "openai", "OPENAI_API_KEY": "k2", "ANTHROPIC_API_KEY": "k1"]
        #expect(try await Self.make(env, config: c).name == "openai")
        #expect(try await Self.make(env, config: c, provider: "anthropic").name == "anthropic")
        #expect(try await Self.make(env, config: c, provider: "anthropic").model == "claude-sonnet-4-6")
        c.model = "claude-haiku-4-5"
        #expect(try await Self.make(env, config: c, provider: "anthropic").model == "claude-haiku-4-5")
        var e2 = env
        e2["TK_MODEL"] = "claude-opus-4-8"
        #expect(try await Self.make(e2, config: c, provider: "anthropic").model == "claude-opus-4-8")
        #expect(try await Self.make(e2, config: c, provider: "anthropic", model: "m-flag").model == "m-flag")
    }

    @Test("keys: the configured variable, then TK_API_KEY; a missing key is an actionable line")
    func keys() async throws {
        var c = Configuration.defaults
        c.providers.anthropic.apiKeyEnv = "MY_KEY"
        let t = ScriptedTransport([LLMFixtures.response("anthropic/messages_ok")])
        let p = try await ProviderFactory.make(configuration: c, environment: ["MY_KEY": "sk-my"], paths: Self.paths,
                                               providerOverride: "anthropic", modelOverride: nil, logger: Self.logger, transport: t)
        _ = try await p.complete(ProviderTestKit.request(stream: false))
        #expect(t.requests.first?.headers["x-api-key"] == "sk-my")
        #expect(try await Self.make(["TK_API_KEY": "sk-any"], provider: "openai").name == "openai")
        do {
            _ = try await Self.make([:], provider: "anthropic")
            Issue.record("expected notConfigured")
        } catch {
            #expect(error.message.hasPrefix("no Anthropic API key: set ANTHROPIC_API_KEY"))
        }
        do {
            _ = try await Self.make([:], provider: "gemini")
        } catch {
            #expect(error.message.contains("unknown provider 'gemini'"))
        }
    }

    @Test("an OpenAI-compatible local server needs no key")
    func localOpenAI() async throws {
        var c = Configuration.defaults
        c.providers.openai.baseUrl = "http://127.0.0.1:8080/v1"
        let p = try await Self.make([:], config: c, provider: "openai", model: "qwen")
        #expect(p.isLocal)
    }

    @Test("status reports without a paid request")
    func status() async {
        let s = await ProviderFactory.status(configuration: .defaults, environment: ["ANTHROPIC_API_KEY": "k"], paths: Self.paths,
                                             logger: Self.logger, transport: ScriptedTransport([]))
        #expect(s == ProviderStatus(name: "anthropic", model: "claude-sonnet-4-6", available: true, reason: nil))
        let none = await ProviderFactory.status(configuration: .defaults, environment: [:], paths: Self.paths,
                                                logger: Self.logger, transport: ScriptedTransport([]))
        #expect(!none.available)
        #expect(none.reason?.isEmpty == false)
        var c = Configuration.defaults
        c.provider = "ollama"
        c.providers.ollama.model = "mistral"
        let missing = await ProviderFactory.status(configuration: c, environment: [:], paths: Self.paths, logger: Self.logger,
                                                   transport: ScriptedTransport([Self.tags]))
        #expect(missing.name == "ollama" && !missing.available)
        #expect(missing.reason?.contains("ollama pull mistral") == true)
    }
}
