/// The `tk-agent` settings section a client sends in `initializationOptions` or
/// `workspace/didChangeConfiguration`. Each key overrides the project and user configuration
/// beneath it; keys left out leave that configuration alone.
///
/// ```json
/// {"tk-agent": {"rules": {"passive": false, "adverb": true}, "disabledRules": ["so_start"],
///   "severity": {"passive": "warning", "hedge": "off"}, "showSuggestions": true, "debounceMs": 100,
///   "maxFileBytes": 10485760}}
/// ```
public struct LSPSettings: Sendable, Equatable {
    /// Rules or categories switched off on top of `heuristics.disabled`.
    public var disabled: Set<String> = []
    /// Rules or categories switched on even when the configuration disables them.
    public var enabled: Set<String> = []
    /// Per rule or category: `warning`, `suggestion`, `info` (or LSP's `error`, `information`, `hint`), or `off`.
    public var severity: [String: String] = [:]
    /// Whether pending LLM suggestions of the sidecar show as diagnostics.
    public var showSuggestions = true
    /// Quiet time after a change before the buffer is linted.
    public var debounceMs = 100
    /// Documents bigger than this are not linted (one diagnostic says so); nil: `watch.max_file_bytes`.
    public var maxFileBytes: Int?

    public init() {}

    /// Problems found while reading the last settings (unknown keys, wrong types), one line each.
    public private(set) var problems: [String] = []

    /// Applies a settings object: `{"tk-agent": {…}}` or the section itself.
    public mutating func apply(_ value: JSONValue?) {
        problems = []
        guard var v = value, case .object = v else { return }
        if let inner = v["tk-agent"] ?? v["tkAgent"] ?? v["tk"] { v = inner }
        guard case .object(let o) = v else { return }
        for (key, val) in o {
            switch key {
            case "rules":
                guard case .object(let rules) = val else { problems.append("tk-agent.rules must be an object of rule: true|false"); continue }
                for (rule, on) in rules {
                    guard let b = on.boolValue else { problems.append("tk-agent.rules.\(rule) must be true or false"); continue }
                    if b { enabled.insert(rule); disabled.remove(rule) } else { disabled.insert(rule); enabled.remove(rule) }
                }
            case "disabledRules", "disabled":
                guard let a = val.arrayValue else { problems.append("tk-agent.\(key) must be a list of rule ids"); continue }
                for r in a.compactMap(\.stringValue) { disabled.insert(r); enabled.remove(r) }
            case "enabledRules", "enabled":
                guard let a = val.arrayValue else { problems.append("tk-agent.\(key) must be a list of rule ids"); continue }
                for r in a.compactMap(\.stringValue) { enabled.insert(r); disabled.remove(r) }
            case "severity", "severityOverrides":
                guard case .object(let m) = val else { problems.append("tk-agent.severity must be an object of rule: level"); continue }
                for (rule, level) in m {
                    guard let s = level.stringValue, Self.lspSeverity(s) != nil || s == "off" else {
                        problems.append("tk-agent.severity.\(rule): use warning, suggestion, info, error, hint or off")
                        continue
                    }
                    severity[rule] = s
                }
            case "showSuggestions":
                if let b = val.boolValue { showSuggestions = b } else { problems.append("tk-agent.showSuggestions must be true or false") }
            case "debounceMs", "debounce":
                if let n = val.intValue, n >= 0, n <= 10_000 { debounceMs = n } else { problems.append("tk-agent.debounceMs must be 0…10000") }
            case "maxFileBytes":
                if let n = val.intValue, n > 0 { maxFileBytes = n } else { problems.append("tk-agent.maxFileBytes must be a positive number") }
            default:
                problems.append("unknown setting tk-agent.\(key)")
            }
        }
    }

    /// The heuristics options with these settings on top of the configuration's.
    public func options(_ base: HeuristicsOptions) -> HeuristicsOptions {
        var o = base
        o.disabled.formUnion(disabled)
        o.disabled.subtract(enabled)
        return o
    }

    /// The LSP severity (1 error … 4 hint) of a finding, nil when its rule is set `off`.
    public func severity(rule: String, category: String, default s: Severity) -> Int? {
        if !severity.isEmpty, let level = severity[rule] ?? severity[category] {
            if level == "off" { return nil }
            if let n = Self.lspSeverity(level) { return n }
        }
        switch s {
        case .error: return 1
        case .warning: return 2
        case .suggestion: return 3
        case .info: return 4
        }
    }

    static func lspSeverity(_ s: String) -> Int? {
        switch s.lowercased() {
        case "error": 1
        case "warning": 2
        case "suggestion", "information": 3
        case "info", "hint": 4
        default: nil
        }
    }
}
