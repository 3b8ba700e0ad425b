import ArgumentParser
import Foundation
import Logging
import Synchronization
import TKCore

/// One text a writing command works on.
struct InputDocument {
    /// What to call it in messages (`-` for standard input, `--text` for given text).
    var display: String
    /// The file, when the text came from one.
    var path: PathBytes?
    var bytes: [UInt8]

    var text: String { String(decoding: bytes, as: UTF8.self) }
    var fileName: String { path?.lastComponent.display ?? "stdin.md" }
    /// The project whose `.tk/config.json` applies: the file's, else the working folder's.
    var project: PathBytes {
        if let path { return CheckSession.projectRoot(forFile: path) }
        return CheckSession.projectRoot(startingAt: FileSystem.absolute(FileManager.default.currentDirectoryPath))
    }
}

/// Exit status 64 with one line on stderr: the command was used wrongly.
func usageError(_ message: String) -> ExitCode {
    printError("Error: \(message)")
    return ExitCode(64)
}

/// `--text` or standard input, for commands whose files are given separately.
struct InputOptions: ParsableArguments {
    @Option(name: .long, help: "Work on this text instead of a file.")
    var text: String?

    /// The documents: the files, else `--text`, else standard input when it is not a terminal.
    func documents(files: [String], command: String) throws -> [InputDocument] {
        if text != nil, !files.isEmpty { throw usageError("give FILE arguments or --text, not both") }
        if let text { return [InputDocument(display: "--text", path: nil, bytes: Array(text.utf8))] }
        if files.isEmpty || files == ["-"] {
            if files.isEmpty, isatty(STDIN_FILENO) != 0 {
                throw usageError("give a FILE, --text TEXT, or pipe text on standard input (e.g. tk-agent \(command) draft.md)")
            }
            return [InputDocument(display: "-", path: nil, bytes: Array(FileHandle.standardInput.readDataToEndOfFile()))]
        }
        var out: [InputDocument] = []
        for f in files {
            if f == "-" {
                out.append(InputDocument(display: "-", path: nil, bytes: Array(FileHandle.standardInput.readDataToEndOfFile())))
                continue
            }
            out.append(try Self.read(f))
        }
        return out
    }

    static func read(_ f: String) throws -> InputDocument {
        let abs = FileSystem.absolute(f)
        if let st = FileSystem.lstatIfExists(abs), st.kind == .directory {
            throw CLIError("\(f): is a folder; give a file")
        }
        do {
            return InputDocument(display: f, path: abs, bytes: try FileSystem.read(abs, limit: 64 << 20))
        } catch {
            throw CLIError("\(f): \(error.isNotFound ? "no such file" : "cannot read (\(String(cString: strerror(error.code))))")")
        }
    }
}

/// `--json`, `--ndjson`, `--quiet` for the writing commands.
struct WritingOutputOptions: ParsableArguments {
    @Flag(name: .long, help: "Print one JSON document.")
    var json = false
    @Flag(name: .long, help: "Print one JSON object per line, as each is ready.")
    var ndjson = false
    @Flag(name: .long, help: "Print only the essential text (e.g. the suggested text), one per line.")
    var quiet = false

    func validate() throws {
        if [json, ndjson, quiet].filter({ $0 }).count > 1 {
            throw ValidationError("--json, --ndjson and --quiet exclude one another; give one")
        }
    }

    var color: Bool { !json && !ndjson && stdoutIsColorTerminal }
}

/// Writes text to stdout at once (no buffering surprises when mixed with streaming).
func writeOut(_ s: String) {
    FileHandle.standardOutput.write(Data(s.utf8))
}

/// ANSI styles, empty when colour is off.
struct Style {
    var on: Bool
    func wrap(_ s: String, _ code: String) -> String { on ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
    func bold(_ s: String) -> String { wrap(s, "1") }
    func dim(_ s: String) -> String { wrap(s, "2") }
    func red(_ s: String) -> String { wrap(s, "31") }
    func green(_ s: String) -> String { wrap(s, "32") }
    func cyan(_ s: String) -> String { wrap(s, "36") }
}

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
        let loaded = ConfigurationLoader.load(paths: Paths.resolve(), project: project, flags: flagLayer)
        for p in loaded.problems { printError("warning: \(p)") }
        return loaded
    }

    /// The provider to use. Provider failures become one line and exit status 1.
    func makeProvider(configuration: Configuration) async throws -> any LLMProvider {
        let env = ProcessInfo.processInfo.environment
        if let hook = env["TK_FAKE_PROVIDER_REPLIES"], !hook.isEmpty {
            return try HookProvider(file: hook, log: env["TK_FAKE_PROVIDER_LOG"])
        }
        var logger = Logger(label: "tk-agent")
        logger.logLevel = verbose ? .info : .error
        do {
            return try await ProviderFactory.make(configuration: configuration, environment: env,
                                                  paths: Paths.resolve(), providerOverride: provider,
                                                  modelOverride: model, logger: logger)
        } catch {
            throw CLIError(error.message)
        }
    }

    /// `--verbose`: one line of tokens and cost on stderr.
    func report(_ u: WritingUsage) {
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

/// A provider for end-to-end tests, HIDDEN and not for users: when `TK_FAKE_PROVIDER_REPLIES` names a
/// JSON file holding an array of replies, the writing commands use them instead of a real provider.
/// Each reply is a string, or `{"text": "…", "delay_ms": 200}`, or `{"error": "message"}`; they are
/// given out in order. With `TK_FAKE_PROVIDER_LOG` set, each request appends one JSON line there
/// (`{"start", "end", "system", "messages"}`, times in seconds) so tests can check parallel calls.
final class HookProvider: LLMProvider {
    let name = "hook"
    let model = "hook-model"
    private let replies: Mutex<[JSONValue]>
    private let log: String?
    private let logLock = Mutex<Void>(())

    init(file: String, log: String?) throws {
        guard let bytes = try? FileSystem.read(FileSystem.absolute(file)),
              let list = (try? JSONValue.parse(bytes))?.arrayValue else {
            throw CLIError("TK_FAKE_PROVIDER_REPLIES: \(file) is not a JSON array of replies")
        }
        replies = Mutex(list)
        self.log = log
    }

    func complete(_ request: LLMRequest, onText: (@Sendable (String) -> Void)?) async throws(LLMProviderError) -> LLMResponse {
        let start = Date().timeIntervalSince1970
        let next: JSONValue? = replies.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        guard let next else { throw .invalidReply("test hook: no reply left") }
        let text = next.stringValue ?? next["text"]?.stringValue ?? ""
        if let ms = next["delay_ms"]?.doubleValue { try? await Task.sleep(for: .milliseconds(Int(ms))) }
        if let log {
            let line: JSONValue = .object([
                "start": .number(start), "end": .number(Date().timeIntervalSince1970),
                "system": .string(request.system),
                "messages": .array(request.messages.map { .object(["role": .string($0.role.rawValue), "content": .string($0.content)]) }),
            ])
            logLock.withLock { _ in
                if let fh = FileHandle(forWritingAtPath: log) ?? {
                    _ = FileManager.default.createFile(atPath: log, contents: nil)
                    return FileHandle(forWritingAtPath: log)
                }() {
                    fh.seekToEndOfFile()
                    fh.write(Data((JSON.string(line, pretty: false) + "\n").utf8))
                    try? fh.close()
                }
            }
        }
        if let error = next["error"]?.stringValue { throw .server(status: 500, error) }
        if let onText, request.stream {
            // Stream word by word, as a real provider would.
            var piece = ""
            for ch in text {
                piece.append(ch)
                if ch == " " || ch == "\n" { onText(piece); piece = "" }
            }
            if !piece.isEmpty { onText(piece) }
        }
        return LLMResponse(provider: name, model: request.model ?? model, text: text,
                           usage: LLMUsage(inputTokens: (request.system.count + 3) / 4, outputTokens: (text.count + 3) / 4))
    }
}
