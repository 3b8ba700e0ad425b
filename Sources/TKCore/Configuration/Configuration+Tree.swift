import Foundation

/// The configuration read straight from a parsed tree, without `Codable`.
///
/// `ConfigurationLoader.decode` is on the way of every command: `check` decodes the built-in
/// defaults (and each layer) before its first document. Through `JSONEncoder` and `JSONDecoder` that
/// took some 5 ms of CPU, most of it the Swift runtime instantiating each nested type's keyed
/// containers for the first time in the process. This reader accepts exactly what the `Codable`
/// round trip accepts and gives nil for anything else (a missing key, a wrong type, a fraction where
/// a count goes): the loader then decodes through `Codable`, whose error names the key for the
/// writer. `ConfigurationTreeTests` holds the two readers to the same values.
extension Configuration {
    init?(tree: JSONValue) {
        guard let r = TreeReader(tree),
              let providers = r.object("providers").flatMap({ p -> Providers? in
                  guard let a = p.object("anthropic").flatMap(ProviderSettings.init(_:)),
                        let o = p.object("openai").flatMap(ProviderSettings.init(_:)),
                        let l = p.object("ollama").flatMap(ProviderSettings.init(_:)) else { return nil }
                  return Providers(anthropic: a, openai: o, ollama: l)
              }),
              let review = r.object("review").flatMap(Review.init(_:)),
              let watch = r.object("watch").flatMap(Watch.init(_:)),
              let notifications = r.object("notifications").flatMap(Notifications.init(_:)),
              let heuristics = r.object("heuristics").flatMap(Heuristics.init(_:)),
              let embeddings = r.object("embeddings").flatMap(Embeddings.init(_:)),
              let progress = r.object("progress").flatMap(ProgressSettings.init(_:)),
              let history = r.object("history").flatMap(HistorySettings.init(_:)),
              let projects = r.strings("projects"), let provider = r.string("provider"),
              let model = r.optional("model", r.string), let storyType = r.optional("story_type", r.string),
              let advisors = r.optional("advisors", r.strings), let draftStage = r.optional("draft_stage", r.string)
        else { return nil }
        self.init(projects: projects, provider: provider, model: model, providers: providers, review: review,
                  watch: watch, notifications: notifications, heuristics: heuristics, embeddings: embeddings,
                  progress: progress, history: history, storyType: storyType, advisors: advisors, draftStage: draftStage)
    }
}

extension Configuration.ProviderSettings {
    fileprivate init?(_ r: TreeReader) {
        guard let baseUrl = r.string("base_url"), let apiKeyEnv = r.optional("api_key_env", r.string),
              let model = r.optional("model", r.string) else { return nil }
        self.init(baseUrl: baseUrl, apiKeyEnv: apiKeyEnv, model: model)
    }
}

extension Configuration.Review {
    fileprivate init?(_ r: TreeReader) {
        guard let auto = r.bool("auto"), let quietSeconds = r.double("quiet_seconds"),
              let minChangedWords = r.int("min_changed_words"), let maxConcurrent = r.int("max_concurrent"),
              let dailyBudgetUsd = r.double("daily_budget_usd"), let exclude = r.strings("exclude"),
              let stallSeconds = r.double("stall_seconds"), let maxAttempts = r.int("max_attempts"),
              let maxRetryWaitSeconds = r.double("max_retry_wait_seconds"),
              let retryBackoffSeconds = r.double("retry_backoff_seconds"), let maxOutputTokens = r.int("max_output_tokens"),
              let requestTimeoutSeconds = r.double("request_timeout_seconds") else { return nil }
        self.init(auto: auto, quietSeconds: quietSeconds, minChangedWords: minChangedWords, maxConcurrent: maxConcurrent,
                  dailyBudgetUsd: dailyBudgetUsd, exclude: exclude, stallSeconds: stallSeconds, maxAttempts: maxAttempts,
                  maxRetryWaitSeconds: maxRetryWaitSeconds, retryBackoffSeconds: retryBackoffSeconds,
                  maxOutputTokens: maxOutputTokens, requestTimeoutSeconds: requestTimeoutSeconds)
    }
}

extension Configuration.Watch {
    fileprivate init?(_ r: TreeReader) {
        guard let settleMs = r.int("settle_ms"), let maxSettleMs = r.int("max_settle_ms"), let ignore = r.strings("ignore"),
              let maxFileBytes = r.int("max_file_bytes"), let rescanMinutes = r.double("rescan_minutes") else { return nil }
        self.init(settleMs: settleMs, maxSettleMs: maxSettleMs, ignore: ignore, maxFileBytes: maxFileBytes, rescanMinutes: rescanMinutes)
    }
}

extension Configuration.Notifications {
    fileprivate init?(_ r: TreeReader) {
        guard let enabled = r.bool("enabled"), let command = r.string("command") else { return nil }
        self.init(enabled: enabled, command: command)
    }
}

extension Configuration.Heuristics {
    fileprivate init?(_ r: TreeReader) {
        guard let maxSentenceWords = r.int("max_sentence_words"), let maxGrade = r.double("max_grade"),
              let disabled = r.strings("disabled"), let allow = r.strings("allow"), let spelling = r.bool("spelling"),
              let lang = r.string("lang") else { return nil }
        self.init(maxSentenceWords: maxSentenceWords, maxGrade: maxGrade, disabled: disabled, allow: allow, spelling: spelling, lang: lang)
    }
}

extension Configuration.Embeddings {
    fileprivate init?(_ r: TreeReader) {
        guard let provider = r.string("provider"), let model = r.optional("model", r.string),
              let baseUrl = r.optional("base_url", r.string), let remote = r.optional("remote", r.bool),
              let batchSize = r.int("batch_size"), let maxTokens = r.optional("max_tokens", r.int) else { return nil }
        self.init(provider: provider, model: model, baseUrl: baseUrl, remote: remote, batchSize: batchSize, maxTokens: maxTokens)
    }
}

extension ProgressSettings {
    fileprivate init?(_ r: TreeReader) {
        guard let dailyGoal = r.optional("daily_goal", r.int), let targetWords = r.optional("target_words", r.int),
              let deadline = r.optional("deadline", r.string), let writingDays = r.strings("writing_days"),
              let dayStarts = r.string("day_starts"), let importWords = r.int("import_words") else { return nil }
        self.init(dailyGoal: dailyGoal, targetWords: targetWords, deadline: deadline, writingDays: writingDays,
                  dayStarts: dayStarts, importWords: importWords)
    }
}

extension HistorySettings {
    fileprivate init?(_ r: TreeReader) {
        guard let intervalMinutes = r.double("interval_minutes"),
              let keep = r.object("keep").flatMap({ k -> Keep? in
                  guard let all = k.int("all_days"), let daily = k.int("daily_days") else { return nil }
                  return Keep(allDays: all, dailyDays: daily)
              }) else { return nil }
        self.init(intervalMinutes: intervalMinutes, keep: keep)
    }
}

/// One JSON object's members, read as the `Codable` round trip reads them (snake_case keys; numbers
/// that are whole and fit read as `Int`; a missing key or null is nil for an optional).
private struct TreeReader {
    let members: [String: JSONValue]

    init?(_ v: JSONValue) {
        guard case .object(let o) = v else { return nil }
        members = o
    }

    func object(_ key: String) -> TreeReader? { members[key].flatMap(TreeReader.init) }

    func string(_ key: String) -> String? {
        if case .string(let s)? = members[key] { return s }
        return nil
    }

    func bool(_ key: String) -> Bool? {
        if case .bool(let b)? = members[key] { return b }
        return nil
    }

    func double(_ key: String) -> Double? {
        if case .number(let n)? = members[key] { return n }
        return nil
    }

    /// A whole number that fits an `Int` (`JSONDecoder` reads `1e+16`, as `JSON.encode` writes a large
    /// one, as an integer too; not `2.5`, nor one past `Int.max`).
    func int(_ key: String) -> Int? {
        guard case .number(let n)? = members[key] else { return nil }
        return Int(exactly: n)
    }

    func strings(_ key: String) -> [String]? {
        guard case .array(let a)? = members[key] else { return nil }
        var out: [String] = []
        out.reserveCapacity(a.count)
        for v in a {
            guard case .string(let s) = v else { return nil }
            out.append(s)
        }
        return out
    }

    /// `.some(nil)` for a missing key or null, `.some(value)` when `read` reads it, nil (not readable) otherwise.
    func optional<T>(_ key: String, _ read: (String) -> T?) -> T?? {
        switch members[key] {
        case nil, .null?: return .some(nil)
        default: return read(key).map { .some($0) }
        }
    }
}
