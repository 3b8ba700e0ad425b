import ArgumentParser
import Foundation
import Logging
import TKCore

extension TKAgent {
    struct Config: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "config",
            abstract: "Show, get and set configuration.",
            subcommands: [Show.self, Get.self, Set.self, Init.self],
            defaultSubcommand: Show.self
        )

        /// The project of the working folder (its `.tk/config.json` applies), if it has one.
        static func project() -> PathBytes? {
            let cwd = FileSystem.absolute(FileManager.default.currentDirectoryPath)
            let root = CheckSession.projectRoot(startingAt: cwd)
            return FileSystem.lstatIfExists(root.appending(".tk"))?.kind == .directory ? root : nil
        }

        static let secretProviders = ["anthropic", "openai"]

        /// Where each provider's API key would come from: (dotted key, masked value, source).
        static func apiKeys(config: TKCore.Configuration, paths: Paths) -> [(String, String?, String)] {
            let env = ProcessEnvironment.current
            let store = SecretsStore(paths: paths)
            var out: [(String, String?, String)] = []
            for p in secretProviders {
                let key = "providers.\(p).api_key"
                let envName = p == "anthropic" ? config.providers.anthropic.apiKeyEnv : config.providers.openai.apiKeyEnv
                if let envName, let v = env[envName], !v.isEmpty {
                    out.append((key, SecretsStore.mask(v), "env \(envName)"))
                } else if let v = env["TK_API_KEY"], !v.isEmpty {
                    out.append((key, SecretsStore.mask(v), "env TK_API_KEY"))
                } else if let v = store.value(for: key) {
                    out.append((key, SecretsStore.mask(v), "secrets (\(store.location(of: key)?.description ?? "?"))"))
                } else if let v = store.value(for: "api_key") {
                    out.append((key, SecretsStore.mask(v), "secrets api_key (\(store.location(of: "api_key")?.description ?? "?"))"))
                } else {
                    out.append((key, nil, "not set"))
                }
            }
            return out
        }

        /// Whether a leaf holds something secret-looking that must not be printed.
        static func isSensitive(_ key: String) -> Bool {
            let last = key.split(separator: ".").last.map(String.init) ?? key
            return (last.contains("key") && !last.hasSuffix("_env")) || last.contains("token") || last.contains("secret")
        }

        static func display(_ v: JSONValue, key: String) -> String {
            if isSensitive(key), let s = v.stringValue { return SecretsStore.mask(s) }
            return JSON.string(v, pretty: false)
        }

        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "show",
                abstract: "Every effective setting and where it came from (flag, env, project, user, default).")
            @OptionGroup var output: OutputOptions
            @Option(name: .long, help: "Show the settings as with this --provider.") var provider: String?
            @Option(name: .long, help: "Show the settings as with this --model.") var model: String?

            func run() async throws {
                let paths = Paths.resolve()
                let project = Config.project()
                var flags: [String: JSONValue] = [:]
                if let provider { flags["provider"] = .string(provider) }
                if let model { flags["model"] = .string(model) }
                let loaded = ConfigurationStore(paths: paths).load(project: project, flags: .object(flags))
                let leaves = ConfigEditor.leaves(loaded.tree)
                let keys = Config.apiKeys(config: loaded.config, paths: paths)
                let projectFile = project?.appending(".tk/config.json")
                var logger = Logger(label: "tk-agent")
                logger.logLevel = .error
                let status = await ProviderFactory.status(configuration: loaded.config,
                                                          environment: ProcessEnvironment.current,
                                                          paths: paths, logger: logger)
                if output.json {
                    let value: JSONValue = .object([
                        "files": .object([
                            "user": .string(paths.userConfig.display),
                            "project": projectFile.map { .string($0.display) } ?? .null,
                            "secrets": .string(paths.secretsFile.display),
                        ]),
                        "values": .array(leaves.map { k, v in
                            .object(["key": .string(k),
                                     "value": Config.isSensitive(k) && v.stringValue != nil ? .string(Config.display(v, key: k)) : v,
                                     "source": .string((loaded.sources[k] ?? .default).rawValue)])
                        }),
                        "api_keys": .array(keys.map { k, v, s in
                            .object(["key": .string(k), "value": v.map(JSONValue.string) ?? .null, "source": .string(s)])
                        }),
                        "provider": .object([
                            "name": status.name.map(JSONValue.string) ?? .null,
                            "model": status.model.map(JSONValue.string) ?? .null,
                            "available": .bool(status.available),
                            "reason": status.reason.map(JSONValue.string) ?? .null,
                        ]),
                        "problems": .array(loaded.problems.map(JSONValue.string)),
                    ])
                    writeOut(JSON.string(value) + "\n")
                    return
                }
                var out = "# user config: \(paths.userConfig.display)"
                out += FileSystem.lstatIfExists(paths.userConfig) == nil ? " (not created; `tk-agent config init`)\n" : "\n"
                if let projectFile { out += "# project config: \(projectFile.display)\n" }
                out += "# provider in use: " + [status.name ?? "none", status.model].compactMap { $0 }.joined(separator: " ")
                out += status.available ? " (available)\n" : " (not available: \(status.reason ?? "unknown"))\n"
                let width = min(40, (leaves.map(\.0.count) + keys.map(\.0.count)).max() ?? 20)
                for (k, v) in leaves {
                    let src = (loaded.sources[k] ?? .default).rawValue
                    out += k.padding(toLength: max(width, k.count), withPad: " ", startingAt: 0) + "  "
                        + Config.display(v, key: k) + "  (\(src))\n"
                }
                for (k, v, s) in keys {
                    out += k.padding(toLength: max(width, k.count), withPad: " ", startingAt: 0) + "  "
                        + (v ?? "-") + "  (\(s))\n"
                }
                writeOut(out)
                for p in loaded.problems { printError("warning: \(p)") }
            }
        }

        struct Get: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "get", abstract: "Print one effective setting.")
            @Argument(help: "A dotted key, e.g. review.daily_budget_usd.") var key: String
            @OptionGroup var output: OutputOptions

            func run() async throws {
                let paths = Paths.resolve()
                let loaded = ConfigurationStore(paths: paths).load(project: Config.project())
                if SecretsStore.isSecretKey(key) {
                    let match = Config.apiKeys(config: loaded.config, paths: paths).first { $0.0 == key }
                    let store = SecretsStore(paths: paths)
                    let value = match?.1 ?? store.value(for: key).map(SecretsStore.mask)
                    let source = match?.2 ?? (value == nil ? "not set" : "secrets")
                    if output.json {
                        writeOut(JSON.string(JSONValue.object(["key": .string(key), "value": value.map(JSONValue.string) ?? .null,
                                                               "source": .string(source)])) + "\n")
                    } else {
                        writeOut((value ?? "") + "\n")
                    }
                    if value == nil { throw ExitCode(1) }
                    return
                }
                guard let v = ConfigurationLoader.value(at: key, in: loaded.tree) else {
                    throw usageError(ConfigEditError.unknownKey(key).description)
                }
                if output.json {
                    writeOut(JSON.string(JSONValue.object([
                        "key": .string(key),
                        "value": Config.isSensitive(key) && v.stringValue != nil ? .string(Config.display(v, key: key)) : v,
                        "source": .string((loaded.sources[key] ?? .default).rawValue),
                    ])) + "\n")
                } else if let s = v.stringValue, !Config.isSensitive(key) {
                    writeOut(s + "\n")
                } else {
                    writeOut(Config.display(v, key: key) + "\n")
                }
            }
        }

        struct Set: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "set",
                abstract: "Set a value in the user config (comments kept); api_key keys go to the secrets store.")
            @Argument(help: "A dotted key, e.g. review.auto or providers.anthropic.api_key.") var key: String
            @Argument(help: "The value: JSON (true, 2, null, [\"a\"]) or plain text.") var value: String

            func run() async throws {
                let paths = Paths.resolve()
                if SecretsStore.isSecretKey(key) {
                    let parts = key.split(separator: ".")
                    if key != "api_key", !(parts.count == 3 && parts[0] == "providers") {
                        throw usageError("API keys are set as api_key or providers.<provider>.api_key")
                    }
                    if value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                        throw usageError("the API key is empty")
                    }
                    let location: SecretsStore.Location
                    do { location = try SecretsStore(paths: paths).set(value, for: key) } catch {
                        throw CLIError("cannot store the key: \(error)")
                    }
                    printError("stored \(key) (\(SecretsStore.mask(value))) in \(location)")
                    return
                }
                let parsed = ConfigEditor.parseValue(value, forKey: key)
                do { try ConfigEditor.validate(parsed, at: key) } catch {
                    if case .unknownKey = error { throw usageError(error.description) }
                    throw usageError(error.description)
                }
                let file = paths.userConfig
                var existing = ""
                do { existing = String(decoding: try FileSystem.read(file, limit: 4 << 20), as: UTF8.self) } catch {
                    if !error.isNotFound { throw CLIError("\(file.display): cannot read (\(error))") }
                }
                let updated: String
                do { updated = try ConfigEditor.setting(parsed, at: key, in: existing) } catch {
                    throw CLIError("\(file.display): \(error.description)")
                }
                do {
                    try FileSystem.makeDirectories(file.parent, mode: 0o755)
                    try FileSystem.writeAtomically(Array(updated.utf8), to: file, mode: 0o644)
                } catch {
                    throw CLIError("\(file.display): cannot write (\(error))")
                }
                printError("set \(key) = \(JSON.string(parsed, pretty: false)) in \(file.display)")
            }
        }

        struct Init: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "init", abstract: "Write a commented starting user config.")
            @Flag(name: .long, help: "Replace an existing user config.") var force = false

            func run() async throws {
                let file = Paths.resolve().userConfig
                if FileSystem.lstatIfExists(file) != nil, !force {
                    throw CLIError("\(file.display) already exists; edit it, use `tk-agent config set`, or --force to replace it")
                }
                do {
                    try FileSystem.makeDirectories(file.parent, mode: 0o755)
                    try FileSystem.writeAtomically(Array(ConfigEditor.starter.utf8), to: file, mode: 0o644)
                } catch {
                    throw CLIError("\(file.display): cannot write (\(error))")
                }
                writeOut(file.display + "\n")
                printError("wrote a starting config to \(file.display)")
            }
        }
    }
}
