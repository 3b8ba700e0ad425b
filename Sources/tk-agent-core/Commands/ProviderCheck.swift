import ArgumentParser
import Foundation
import Logging
import TKCore

extension TKAgent {
    /// A hidden debugging command: sends one request to the configured provider.
    struct ProviderCheck: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "provider-check",
            abstract: "Send one short request to the LLM provider and print the reply, usage and cost.",
            shouldDisplay: false
        )

        @Option(name: .long, help: "auto, anthropic, openai or ollama (default: the configured provider).")
        var provider: String?

        @Option(name: .long, help: "The model (default: the configured model).")
        var model: String?

        @Flag(inversion: .prefixedNo, help: "Stream the reply (default) or not.")
        var stream = true

        @Option(name: .long, help: "The prompt to send.")
        var prompt: String = "Reply with one short sentence: are you there?"

        @Option(name: .long, help: "A JSON schema the reply must follow (structured output).")
        var schema: String?

        @Option(name: .customLong("max-tokens"), help: "The output token limit.")
        var maxTokens: Int = 256

        @Flag(name: .long, help: "Print only the provider that would be used (no request).")
        var statusOnly = false

        @OptionGroup var output: OutputOptions

        func run() async throws {
            let env = ProcessEnvironment.current
            let paths = Paths.resolve(environment: env)
            let cwd = FileSystem.absolute(FileManager.default.currentDirectoryPath)
            let loaded = ConfigurationStore(paths: paths, environment: env).load(project: CheckSession.projectRoot(startingAt: cwd))
            for p in loaded.problems { printError(p) }
            var logger = Logger(label: "tk-agent")
            logger.logLevel = env["TK_LOG_LEVEL"].flatMap { Logger.Level(rawValue: $0) } ?? .warning

            if statusOnly {
                let s = await ProviderFactory.status(configuration: loaded.config, environment: env, paths: paths,
                                                     logger: logger)
                print(output.json ? JSON.string(s) : "\(s.name ?? "-") \(s.model ?? "-") "
                    + (s.available ? "available" : "unavailable: \(s.reason ?? "")"))
                return
            }
            var jsonSchema: JSONValue?
            if let schema {
                guard let v = try? JSONValue.parse(Array(schema.utf8)) else {
                    throw ValidationError("--schema is not valid JSON")
                }
                jsonSchema = v
            }
            let llm: any LLMProvider
            do {
                llm = try await ProviderFactory.make(configuration: loaded.config, environment: env, paths: paths,
                                                     providerOverride: provider, modelOverride: model, logger: logger)
            } catch {
                printError(error.message)
                throw ExitCode(1)
            }
            let request = LLMRequest(system: "You are a terse assistant used to check a connection.",
                                     messages: [LLMMessage(role: .user, content: prompt)],
                                     maxOutputTokens: maxTokens, jsonSchema: jsonSchema, schemaName: "reply",
                                     stream: stream)
            let live = stream && !output.json
            let printText: @Sendable (String) -> Void = { text in FileHandle.standardOutput.write(Data(text.utf8)) }
            let response: LLMResponse
            do {
                response = try await llm.complete(request, onText: live ? printText : nil)
            } catch {
                if live { print("") }
                printError(error.message)
                throw ExitCode(1)
            }
            if output.json {
                var usage: [String: JSONValue] = [
                    "input_tokens": .number(Double(response.usage.inputTokens)),
                    "output_tokens": .number(Double(response.usage.outputTokens)),
                    "cache_read_tokens": .number(Double(response.usage.cacheReadTokens)),
                    "cache_write_tokens": .number(Double(response.usage.cacheWriteTokens)),
                ]
                usage["cost_usd"] = .number(response.costUsd)
                let out: JSONValue = .object([
                    "provider": .string(response.provider),
                    "model": .string(response.model),
                    "text": .string(response.text),
                    "structured": response.structured ?? .null,
                    "stop_reason": .string(response.stopReason.rawValue),
                    "attempts": .number(Double(response.attempts)),
                    "stream": .bool(stream),
                    "local": .bool(llm.isLocal),
                    "usage": .object(usage),
                    "cost_usd": .number(response.costUsd),
                ])
                print(JSON.string(out))
                return
            }
            if live { print("") } else { print(response.text) }
            let u = response.usage
            print("provider: \(response.provider)  model: \(response.model)  attempts: \(response.attempts)"
                + "  stop: \(response.stopReason.rawValue)")
            print("usage: \(u.inputTokens) input (\(u.cacheReadTokens) cache read, \(u.cacheWriteTokens) cache write),"
                + " \(u.outputTokens) output  cost: $\(String(format: "%.6f", response.costUsd))")
        }
    }
}
