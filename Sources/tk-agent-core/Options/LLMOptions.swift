import ArgumentParser
import Foundation
import Logging
import TKCore

/// `--provider`, `--model`, `--verbose` for every command that calls a model.
struct LLMOptions: ParsableArguments {
    @Option(name: .long, help: "LLM provider: anthropic, openai or ollama (default: the configured one).")
    var provider: String?
    @Option(name: .long, help: "Model name for the provider.")
    var model: String?
    @Flag(name: .shortAndLong, help: "Print tokens and cost to standard error.")
    var verbose = false

    func validate() throws {
        if let provider, !["auto", "anthropic", "openai", "ollama"].contains(provider) {
            throw ValidationError("unknown provider \"\(provider)\"; use anthropic, openai, ollama or auto")
        }
    }

    /// Command-line flags as a configuration layer.
    var flagLayer: JSONValue {
        var o: [String: JSONValue] = [:]
        if let provider { o["provider"] = .string(provider) }
        if let model { o["model"] = .string(model) }
        return .object(o)
    }

    /// The configuration for a project, with problems printed as warnings.
    func loadConfiguration(project: PathBytes?) -> LoadedConfiguration {
        let loaded = ConfigurationStore(paths: Paths.resolve()).load(project: project, flags: flagLayer)
        for p in loaded.problems { printError("warning: \(p)") }
        return loaded
    }

    /// The provider to use. Provider failures become one line and exit status 1.
    func makeProvider(configuration: Configuration) async throws -> any LLMProvider {
        switch try await providerResult(configuration: configuration) {
        case .success(let p): return p
        case .failure(let e): throw CLIError(e.message)
        }
    }

    /// The provider to use, or why there is none.
    func providerResult(configuration: Configuration) async throws -> Result<any LLMProvider, LLMProviderError> {
        let env = ProcessEnvironment.current
        var logger = Logger(label: "tk-agent")
        logger.logLevel = verbose ? .info : .error
        do throws(LLMProviderError) {
            return .success(try await ProviderFactory.make(configuration: configuration, environment: env,
                                                           paths: Paths.resolve(), providerOverride: provider,
                                                           modelOverride: model, logger: logger))
        } catch {
            return .failure(error)
        }
    }

    /// Records the calls in the usage ledger (`tk-agent usage`), then, with `--verbose`, prints one
    /// line of tokens and cost on stderr. A ledger that cannot be written is a warning, never fatal.
    func report(_ u: WritingUsage, configuration: Configuration) {
        record(u, configuration: configuration)
        guard verbose else { return }
        let who = [u.provider, u.model].compactMap { $0 }.joined(separator: "/")
        var line = "tokens: \(u.usage.inputTokens) in, \(u.usage.outputTokens) out"
        if u.usage.cacheReadTokens > 0 { line += " (\(u.usage.cacheReadTokens) cached)" }
        line += String(format: " · cost $%.4f", u.costUsd)
        line += " · \(u.calls) call\(u.calls == 1 ? "" : "s")"
        if !who.isEmpty { line += " · \(who)" }
        printError(line)
    }
}

extension LLMOptions {
    func record(_ u: WritingUsage, configuration config: Configuration) {
        guard u.calls > 0, let provider = u.provider, provider != "hook" else { return }
        let paths = Paths.resolve()
        do {
            let db = try AppDatabase.open(paths: paths)
            try UsageLedger(database: db).record(provider: provider, model: u.model ?? "", usage: u.usage,
                                                 costUsd: u.costUsd, kind: .cli,
                                                 local: ReviewPolicy.isLocal(providerName: provider, config: config))
        } catch {
            printError("warning: could not record usage in \(paths.dataDirectory.display): \(error)")
        }
    }
}

/// Usage as JSON for `metadata`.
func usageJSON(_ u: WritingUsage) -> JSONValue {
    .object([
        "provider": u.provider.map(JSONValue.string) ?? .null,
        "model": u.model.map(JSONValue.string) ?? .null,
        "calls": .number(Double(u.calls)),
        "input_tokens": .number(Double(u.usage.inputTokens)),
        "output_tokens": .number(Double(u.usage.outputTokens)),
        "cost_usd": .number(u.costUsd),
    ])
}
