import Foundation

/// The effective configuration, decoded from the merged layers (see `ConfigurationLoader`).
///
/// Keys are the snake_case keys of `config.example.json`.
public struct Configuration: Codable, Sendable, Equatable {
    public struct ProviderSettings: Codable, Sendable, Equatable {
        public var baseUrl: String
        public var apiKeyEnv: String?
        public var model: String?
    }
    public struct Providers: Codable, Sendable, Equatable {
        public var anthropic: ProviderSettings
        public var openai: ProviderSettings
        public var ollama: ProviderSettings
    }
    public struct Review: Codable, Sendable, Equatable {
        public var auto: Bool
        public var quietSeconds: Double
        public var minChangedWords: Int
        public var maxConcurrent: Int
        public var dailyBudgetUsd: Double
        public var exclude: [String]
        public var stallSeconds: Double
        public var maxAttempts: Int
        public var maxRetryWaitSeconds: Double
        /// The first backoff ceiling between retries, in seconds (doubles each retry) when the server
        /// names no wait.
        public var retryBackoffSeconds: Double
        public var maxOutputTokens: Int
        public var requestTimeoutSeconds: Double
    }
    public struct Watch: Codable, Sendable, Equatable {
        public var settleMs: Int
        public var maxSettleMs: Int
        public var ignore: [String]
        public var maxFileBytes: Int
        public var rescanMinutes: Double
    }
    public struct Notifications: Codable, Sendable, Equatable {
        public var enabled: Bool
        public var command: String
    }
    /// The embedding provider of retrieval (`ask --project`, `search --hybrid`), apart from the chat provider.
    public struct Embeddings: Codable, Sendable, Equatable {
        /// `auto` (a running Ollama with an embedding model), `ollama`, `openai` or `none`.
        public var provider: String
        public var model: String?
        public var baseUrl: String?
        /// Whether the server is remote; null decides by the host (loopback is local).
        public var remote: Bool?
        public var batchSize: Int
        /// How many tokens the model reads (null: learned from the server, see `EmbeddingContext`).
        /// A passage longer than this is embedded as overlapping windows.
        public var maxTokens: Int?
    }
    public struct Heuristics: Codable, Sendable, Equatable {
        public var maxSentenceWords: Int
        public var maxGrade: Double
        public var disabled: [String]
        public var allow: [String]
        /// Hunspell spell checking on or off, and the default dictionary (`en_US`).
        public var spelling: Bool
        public var lang: String
    }

    public var projects: [String]
    public var provider: String
    public var model: String?
    public var providers: Providers
    public var review: Review
    public var watch: Watch
    public var notifications: Notifications
    public var heuristics: Heuristics
    public var embeddings: Embeddings
    /// Words written and goals (`Progress/`).
    public var progress: ProgressSettings
    /// The version history (`History/`).
    public var history: HistorySettings
    /// Project-wide defaults for documents without a `tk:` block.
    public var storyType: String?
    public var advisors: [String]?
    public var draftStage: String?

    /// The built-in defaults (decoded once per process).
    public static let defaults: Configuration = {
        // The defaults are a constant, tested to decode; a failure here is a programming error.
        guard let c = try? ConfigurationLoader.decode(ConfigurationLoader.defaultTree) else {
            preconditionFailure("built-in default configuration does not decode")
        }
        return c
    }()
}

/// Where an effective configuration value came from, highest precedence first.
public enum ConfigSource: String, Codable, Sendable, Comparable {
    case flag, env, project, user, `default`
    private var rank: Int {
        switch self { case .flag: 4; case .env: 3; case .project: 2; case .user: 1; case .default: 0 }
    }
    public static func < (a: ConfigSource, b: ConfigSource) -> Bool { a.rank < b.rank }
}

/// A loaded configuration with each leaf key's source and any problems found on the way.
public struct LoadedConfiguration: Sendable {
    public var config: Configuration
    public var tree: JSONValue
    /// Dotted key → where its value came from.
    public var sources: [String: ConfigSource]
    /// One line per problem (a config file that is not valid JSON, a wrong type…).
    public var problems: [String]

    /// The dotted keys a user, project, environment or flag layer set (not built-in defaults).
    public var configured: Set<String> { Set(sources.lazy.filter { $0.value != .default }.map(\.key)) }

    /// A configuration given as a value, without its layers: the heuristics limits that differ
    /// from the built-in defaults count as configured.
    public static func given(_ config: Configuration) -> LoadedConfiguration {
        let d = Configuration.defaults.heuristics
        var sources: [String: ConfigSource] = [:]
        if config.heuristics.maxSentenceWords != d.maxSentenceWords { sources["heuristics.max_sentence_words"] = .project }
        if config.heuristics.maxGrade != d.maxGrade { sources["heuristics.max_grade"] = .project }
        return LoadedConfiguration(config: config, tree: .object([:]), sources: sources, problems: [])
    }
}

/// Loads the configuration layers: flags › environment › project › user › defaults.
public enum ConfigurationLoader {
    public static let defaultJSON = """
    {
      "projects": [],
      "provider": "auto",
      "model": null,
      "providers": {
        "anthropic": {"base_url": "https://api.anthropic.com", "api_key_env": "ANTHROPIC_API_KEY", "model": "claude-sonnet-4-6"},
        "openai":    {"base_url": "https://api.openai.com/v1", "api_key_env": "OPENAI_API_KEY", "model": "gpt-4o-mini"},
        "ollama":    {"base_url": "http://127.0.0.1:11434", "api_key_env": null, "model": null}
      },
      "review": {"auto": true, "quiet_seconds": 60, "min_changed_words": 100, "max_concurrent": 2,
                 "daily_budget_usd": 1.0, "exclude": [], "stall_seconds": 60, "max_attempts": 4,
                 "max_retry_wait_seconds": 120, "retry_backoff_seconds": 0.5, "max_output_tokens": 4096, "request_timeout_seconds": 600},
      "watch": {"settle_ms": 300, "max_settle_ms": 5000, "ignore": [], "max_file_bytes": 10485760, "rescan_minutes": 60},
      "notifications": {"enabled": true, "command": "notify-send"},
      "heuristics": {"max_sentence_words": 30, "max_grade": 16, "disabled": [], "allow": [], "spelling": true, "lang": "en_US"},
      "embeddings": {"provider": "auto", "model": null, "base_url": null, "remote": null, "batch_size": 32, "max_tokens": null},
      "progress": {"daily_goal": null, "target_words": null, "deadline": null,
                   "writing_days": ["mon", "tue", "wed", "thu", "fri", "sat", "sun"], "day_starts": "04:00", "import_words": 500},
      "history": {"interval_minutes": 30, "keep": {"all_days": 7, "daily_days": 30}},
      "story_type": null,
      "advisors": null,
      "draft_stage": null
    }
    """

    /// `defaultJSON` parsed (once per process: every command and every document's settings start from it).
    public static let defaultTree: JSONValue = (try? JSONValue.parse(Array(defaultJSON.utf8))) ?? .object([:])

    /// The configuration a merged tree gives: read directly (`Configuration(tree:)`), or through
    /// `Codable` when that reader declines, for the error that names what is wrong.
    public static func decode(_ tree: JSONValue) throws -> Configuration {
        if let c = Configuration(tree: tree) { return c }
        return try decodeCodable(tree)
    }

    /// The `Codable` reading of a tree (the reference `Configuration(tree:)` is held to).
    static func decodeCodable(_ tree: JSONValue) throws -> Configuration {
        let d = JSONDecoder()
        d.keyDecodingStrategy = .convertFromSnakeCase
        return try d.decode(Configuration.self, from: Data(try JSON.encode(tree, pretty: false)))
    }

    /// Reads a JSON config file. A missing file is an empty layer; a broken one is a problem.
    public static func readLayer(_ path: PathBytes) -> (JSONValue?, String?) {
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(path, limit: 4 << 20, followingLinks: true) } catch {
            if error.isNotFound { return (nil, nil) }
            return (nil, "config \(path.display): \(error)")
        }
        if bytes.allSatisfy({ $0 == 32 || $0 == 10 || $0 == 9 || $0 == 13 }) { return (nil, nil) }
        do {
            let v = try JSONValue.parse(stripComments(bytes))
            guard case .object = v else { return (nil, "config \(path.display): the top level must be a JSON object; ignored") }
            return (v, nil)
        } catch {
            if let problem = JSONSyntax.firstProblem(stripComments(bytes)) {
                return (nil, "config \(path.display): not valid JSON at line \(problem.line), column \(problem.column): "
                    + "\(problem.message); ignored until fixed")
            }
            return (nil, "config \(path.display): not valid JSON (\(shortJSONError(error))); ignored until fixed")
        }
    }

    /// The environment layer: `TK_PROVIDER`, `TK_MODEL`, `OLLAMA_HOST`.
    public static func environmentLayer(_ env: [String: String]) -> JSONValue {
        var o: [String: JSONValue] = [:]
        if let p = env["TK_PROVIDER"], !p.isEmpty { o["provider"] = .string(p) }
        if let m = env["TK_MODEL"], !m.isEmpty { o["model"] = .string(m) }
        if var host = env["OLLAMA_HOST"], !host.isEmpty {
            if !host.hasPrefix("http://") && !host.hasPrefix("https://") { host = "http://" + host }
            o["providers"] = .object(["ollama": .object(["base_url": .string(host)])])
        }
        return .object(o)
    }

    /// Loads every layer and merges them. Read through `ConfigurationStore`, which every surface
    /// asks (and which keeps each result until one of its files changes).
    /// - Parameters:
    ///   - paths: where the user config lives.
    ///   - project: a project root whose `.tk/config.json` applies, if any.
    ///   - environment: the process environment.
    ///   - flags: values given on the command line, as a partial tree.
    static func load(
        paths: Paths, project: PathBytes? = nil,
        environment: [String: String] = ProcessEnvironment.current,
        flags: JSONValue = .object([:])
    ) -> LoadedConfiguration {
        var problems: [String] = []
        var layers: [(JSONValue, ConfigSource)] = []
        let (user, userProblem) = readLayer(paths.userConfig)
        if let userProblem { problems.append(userProblem) }
        if let user { layers.append((user, .user)) }
        if let project {
            let (proj, projProblem) = readLayer(project.appending(".tk/config.json"))
            if let projProblem { problems.append(projProblem) }
            if let proj { layers.append((proj, .project)) }
        }
        layers.append((environmentLayer(environment), .env))
        layers.append((flags, .flag))

        var tree = defaultTree
        // The tree decoded as it stands (each layer is decoded once, when it is merged in).
        var config = Configuration.defaults
        var sources: [String: ConfigSource] = [:]
        recordSources(tree, prefix: "", source: .default, into: &sources)
        for (layer, source) in layers {
            // An empty layer (no flags, no environment) changes nothing and needs no decoding.
            if case .object(let o) = layer, o.isEmpty { continue }
            let candidate = merge(tree, layer)
            do {
                config = try decode(candidate)
                tree = candidate
                recordSources(layer, prefix: "", source: source, into: &sources)
            } catch {
                problems.append("config (\(source.rawValue)): \(describeDecodingError(error)); that layer is ignored until fixed")
            }
        }
        return LoadedConfiguration(config: config, tree: tree, sources: sources, problems: problems)
    }

    /// Deep-merges `over` onto `base`: objects merge key by key, anything else replaces.
    public static func merge(_ base: JSONValue, _ over: JSONValue) -> JSONValue {
        guard case .object(var b) = base, case .object(let o) = over else { return over }
        for (k, v) in o { b[k] = b[k].map { merge($0, v) } ?? v }
        return .object(b)
    }

    static func recordSources(_ v: JSONValue, prefix: String, source: ConfigSource, into: inout [String: ConfigSource]) {
        if case .object(let o) = v, !o.isEmpty {
            for (k, sub) in o { recordSources(sub, prefix: prefix.isEmpty ? k : prefix + "." + k, source: source, into: &into) }
        } else if !prefix.isEmpty {
            into[prefix] = source
        }
    }

    /// The value at a dotted key (`review.daily_budget_usd`).
    public static func value(at key: String, in tree: JSONValue) -> JSONValue? {
        var cur: JSONValue? = tree
        for part in key.split(separator: ".") { cur = cur?[String(part)] }
        return cur
    }

    /// A copy of `tree` with `value` set at a dotted key.
    public static func setting(_ value: JSONValue, at key: String, in tree: JSONValue) -> JSONValue {
        let parts = key.split(separator: ".").map(String.init)
        func go(_ node: JSONValue, _ i: Int) -> JSONValue {
            if i == parts.count { return value }
            var o = node.objectValue ?? [:]
            o[parts[i]] = go(o[parts[i]] ?? .object([:]), i + 1)
            return .object(o)
        }
        return go(tree, 0)
    }

    /// Removes `//` line comments outside strings, so a commented config (as `config init` writes) parses.
    public static func stripComments(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(bytes.count)
        var i = 0
        var inString = false
        while i < bytes.count {
            let b = bytes[i]
            if inString {
                out.append(b)
                if b == UInt8(ascii: "\\"), i + 1 < bytes.count { out.append(bytes[i + 1]); i += 2; continue }
                if b == UInt8(ascii: "\"") { inString = false }
                i += 1
                continue
            }
            if b == UInt8(ascii: "\"") { inString = true }
            if b == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "/") {
                while i < bytes.count, bytes[i] != 10 { i += 1 }
                continue
            }
            out.append(b)
            i += 1
        }
        return out
    }

    static func shortJSONError(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let ctx) = error {
            let under = (ctx.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return under ?? ctx.debugDescription
        }
        return "\(error)"
    }

    static func describeDecodingError(_ error: any Error) -> String {
        func keyPath(_ path: [any CodingKey]) -> String {
            path.map { k in k.intValue.map { "[\($0)]" } ?? snake(k.stringValue) }.joined(separator: ".")
        }
        switch error {
        case DecodingError.typeMismatch(let t, let ctx): return "\(keyPath(ctx.codingPath)) must be \(typeName(t))"
        case DecodingError.valueNotFound(let t, let ctx): return "\(keyPath(ctx.codingPath)) must be \(typeName(t)), not null"
        case DecodingError.keyNotFound(let k, let ctx): return "\(keyPath(ctx.codingPath + [k])) is missing"
        case DecodingError.dataCorrupted(let ctx): return "\(keyPath(ctx.codingPath)): \(ctx.debugDescription)"
        default: return "\(error)"
        }
    }

    static func typeName(_ t: Any.Type) -> String {
        switch t {
        case is Bool.Type: "true or false"
        case is Int.Type, is Double.Type: "a number"
        case is String.Type: "a string"
        case is [String].Type: "a list of strings"
        default: "of type \(t)"
        }
    }

    static func snake(_ s: String) -> String {
        var out = ""
        for ch in s {
            if ch.isUppercase { out += "_" + ch.lowercased() } else { out.append(ch) }
        }
        return out
    }
}
