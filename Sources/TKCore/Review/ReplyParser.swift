import Foundation

/// One suggestion as the model gave it, with its fields made valid but not yet anchored in the document.
public struct RawSuggestion: Sendable, Equatable {
    public var advisorId: String
    public var type: SuggestionType
    public var originalText: String
    public var suggestedText: String
    public var reasoning: String
    /// 1 (most important) to 5.
    public var priority: Int
    /// 0…1.
    public var confidence: Double
    /// A byte offset the model claimed for the passage (`start`), only used to choose among several occurrences.
    public var hint: Int?

    public init(advisorId: String, type: SuggestionType, originalText: String, suggestedText: String,
                reasoning: String = "", priority: Int = 3, confidence: Double = 0.5, hint: Int? = nil) {
        self.advisorId = advisorId; self.type = type; self.originalText = originalText
        self.suggestedText = suggestedText; self.reasoning = reasoning; self.priority = priority
        self.confidence = confidence; self.hint = hint
    }
}

/// What a model's reply held.
public struct ParsedReply: Sendable, Equatable {
    public var suggestions: [RawSuggestion]
    /// The reply was cut off (by the provider's flag or because its JSON ends early); only complete suggestions were kept.
    public var truncated: Bool
    /// One line per thing worth telling the writer or the log (dropped entries, truncation).
    public var problems: [String]
    /// Entries dropped because they lacked `original_text` or `suggested_text`, changed nothing or repeated another.
    public var dropped: Int
    /// Whether the reply had a recognisable suggestions list at all (`false`: refusal, prose or garbage).
    public var found: Bool

    public init(suggestions: [RawSuggestion] = [], truncated: Bool = false, problems: [String] = [], dropped: Int = 0,
                found: Bool = false) {
        self.suggestions = suggestions; self.truncated = truncated; self.problems = problems
        self.dropped = dropped; self.found = found
    }
}

/// Reads `tk.suggestions/1` out of whatever a model replied. Pure.
public enum ReplyParser {
    /// Parses a reply into suggestions.
    ///
    /// Accepts the object as the whole reply, inside a ```` ```json ```` (or bare) fence, with prose around it
    /// (the first balanced `{…}` that parses and has `suggestions`), a tool call's input or structured output
    /// (`structured`), or a bare array of suggestions. A truncated reply keeps every complete suggestion.
    /// - Parameters:
    ///   - text: the reply's text (may be empty when `structured` is given).
    ///   - structured: a tool call's input or a parsed structured-output reply, if the provider had one.
    ///   - truncated: the provider said the reply stopped at its output limit.
    ///   - advisorIds: the advisors that were asked; used to fill in or correct `advisor_id`.
    public static func parseSuggestions(text: String, structured: JSONValue? = nil, truncated: Bool,
                                        advisorIds: [String] = []) -> ParsedReply {
        var scan = Scan(stripBOM(Array(text.utf8)))
        return parseSuggestions(&scan, structured: structured, truncated: truncated, advisorIds: advisorIds)
    }

    /// `parseSuggestions` on a prepared scan (whose `work` tests read).
    static func parseSuggestions(_ scan: inout Scan, structured: JSONValue?, truncated: Bool,
                                 advisorIds: [String]) -> ParsedReply {
        if let structured, let items = suggestionItems(in: structured, depth: 0) {
            return finish(items, truncated: truncated, cut: false, advisorIds: advisorIds)
        }
        if let items = locateComplete(&scan) {
            return finish(items, truncated: truncated, cut: false, advisorIds: advisorIds)
        }
        if let salvaged = salvage(&scan) {
            return finish(salvaged.items, truncated: truncated, cut: !salvaged.closed, advisorIds: advisorIds)
        }
        if let items = balancedCandidate(&scan, allowSingle: true) {
            return finish(items, truncated: truncated, cut: false, advisorIds: advisorIds)
        }
        var reply = ParsedReply(truncated: truncated)
        reply.problems.append(truncated
            ? "the reply was cut off at the output limit before any suggestion was complete"
            : "the reply holds no suggestions JSON")
        return reply
    }

    // MARK: - Locating the JSON

    /// A reply's bytes with what the search for JSON learnt about them, so that the search stays linear
    /// in the reply's length whatever it holds (a hostile reply of thousands of brackets included):
    /// each bracket's matching end is found once, and the bytes handed to the JSON parser while trying
    /// candidates are capped at a multiple of the reply's length.
    struct Scan {
        let bytes: [UInt8]
        /// Per byte: 0 not known yet, -1 never closes, else the end (exclusive) + 1 of its balanced span.
        private var ends: [Int32]
        /// Bytes looked at by bracket matching and handed to the JSON parser (what tests bound).
        private(set) var work = 0
        /// The bytes candidate parses may still use.
        private var parseBudget: Int

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
            ends = []
            parseBudget = 8 * bytes.count + 65_536
        }

        /// Parses `range` leniently when the budget allows (nil otherwise).
        mutating func parse(_ range: Range<Int>, budgeted: Bool = true) -> JSONValue? {
            if budgeted {
                guard parseBudget >= range.count else { return nil }
                parseBudget -= range.count
            }
            work += range.count
            return parseLenient(Array(bytes[range]))
        }

        /// The end (exclusive) of the balanced `{…}` or `[…]` starting at `start`, string-aware; nil if it
        /// never closes. Spans inside it are remembered, so that all calls together read each byte about once.
        mutating func matchingEnd(from start: Int) -> Int? {
            if ends.isEmpty { ends = Array(repeating: 0, count: bytes.count + 1) }
            if ends[start] != 0 { return ends[start] < 0 ? nil : Int(ends[start]) - 1 }
            var stack = [start]
            var inString = false
            var escaped = false
            var i = start + 1
            while i < bytes.count {
                work += 1
                let b = bytes[i]
                if inString {
                    if escaped { escaped = false } else if b == 92 { escaped = true } else if b == 34 { inString = false }
                    i += 1
                    continue
                }
                switch b {
                case 34:
                    inString = true
                    i += 1
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    let known = ends[i]
                    if known > 0 {
                        i = Int(known) - 1
                    } else if known < 0 {
                        i = bytes.count
                    } else {
                        stack.append(i)
                        i += 1
                    }
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    let open = stack.removeLast()
                    ends[open] = Int32(i + 2)
                    i += 1
                    if stack.isEmpty { return i }
                default:
                    i += 1
                }
            }
            for open in stack { ends[open] = -1 }
            return nil
        }
    }

    /// The suggestion objects of the first complete candidate: the whole text, a fence, then a balanced
    /// `{…}`/`[…]` span holding a suggestions list (a lone suggestion object inside a longer text does not
    /// count here, so that the elements of a cut-off list go to `salvage` together).
    static func locateComplete(_ scan: inout Scan) -> [JSONValue]? {
        let trimmed = trim(scan.bytes[...])
        if !trimmed.isEmpty, let v = scan.parse(trimmed.startIndex..<trimmed.endIndex, budgeted: false),
           let items = suggestionItems(in: v, depth: 0) {
            return items
        }
        for fence in fences(scan.bytes) {
            let body = trim(scan.bytes[fence])
            if let v = scan.parse(body.startIndex..<body.endIndex, budgeted: false),
               let items = suggestionItems(in: v, depth: 0) { return items }
        }
        return balancedCandidate(&scan, allowSingle: false)
    }

    /// The first balanced span (string-aware) that parses and holds suggestions.
    static func balancedCandidate(_ scan: inout Scan, allowSingle: Bool) -> [JSONValue]? {
        var attempts = 0
        var i = 0
        let bytes = scan.bytes
        while i < bytes.count, attempts < 400 {
            let b = bytes[i]
            if b == UInt8(ascii: "{") || b == UInt8(ascii: "[") {
                attempts += 1
                if let end = scan.matchingEnd(from: i), let v = scan.parse(i..<end),
                   let items = suggestionItems(in: v, depth: 0, allowSingle: allowSingle) {
                    return items
                }
            }
            i += 1
        }
        return nil
    }

    /// The suggestion objects inside a parsed value, or nil when it is not a suggestions reply.
    static func suggestionItems(in value: JSONValue, depth: Int, allowSingle: Bool = true) -> [JSONValue]? {
        if depth > 4 { return nil }
        switch value {
        case .object(let o):
            if let s = o["suggestions"] {
                switch s {
                case .array(let a): return a
                case .null: return []
                case .string(let str):
                    if let v = parseLenient(Array(str.utf8)) { return suggestionItems(in: v, depth: depth + 1) }
                    return nil
                default: return nil
                }
            }
            // Tool-call and wrapper shapes: {"input": {...}}, {"arguments": "{...}"}, {"output": ...}.
            for key in ["input", "arguments", "parameters", "output", "result", "response", "data", "content"] {
                if let inner = o[key], let items = suggestionItems(in: inner, depth: depth + 1) { return items }
            }
            if allowSingle, looksLikeSuggestion(o) { return [value] }
            return nil
        case .array(let a):
            if a.isEmpty { return nil }
            if a.contains(where: { $0.objectValue.map(looksLikeSuggestion) ?? false }) { return a }
            for inner in a {
                if let items = suggestionItems(in: inner, depth: depth + 1) { return items }
            }
            return nil
        case .string(let s):
            guard let v = parseLenient(Array(s.utf8)) else { return nil }
            return suggestionItems(in: v, depth: depth + 1)
        default:
            return nil
        }
    }

    static func looksLikeSuggestion(_ o: [String: JSONValue]) -> Bool {
        Keys.original.contains { o[$0] != nil } && Keys.suggested.contains { o[$0] != nil }
    }

    /// The byte ranges of fenced code blocks' bodies (an unclosed fence runs to the end).
    static func fences(_ bytes: [UInt8]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var i = 0
        while let open = find(bytes, [96, 96, 96], from: i) {
            var bodyStart = open + 3
            while bodyStart < bytes.count, bytes[bodyStart] == 96 { bodyStart += 1 }
            // Skip the info string (`json`, `JSON`, …) up to the end of the line, if the line has only that.
            var j = bodyStart
            while j < bytes.count, bytes[j] != 10, bytes[j] != UInt8(ascii: "{"), bytes[j] != UInt8(ascii: "[") { j += 1 }
            if j < bytes.count, bytes[j] == 10 { bodyStart = j + 1 }
            if let close = find(bytes, [96, 96, 96], from: bodyStart) {
                out.append(bodyStart..<close)
                i = close + 3
            } else {
                out.append(bodyStart..<bytes.count)
                break
            }
        }
        return out
    }

    // MARK: - Truncated replies

    /// The complete suggestion objects of a suggestions array that may be cut off, and whether it closed.
    static func salvage(_ scan: inout Scan) -> (items: [JSONValue], closed: Bool)? {
        let bytes = scan.bytes
        guard var i = arrayStart(bytes) else { return nil }
        var items: [JSONValue] = []
        while i < bytes.count {
            let b = bytes[i]
            if isSpace(b) || b == UInt8(ascii: ",") {
                i += 1
                continue
            }
            if b == UInt8(ascii: "]") { return (items, true) }
            guard b == UInt8(ascii: "{"), let end = scan.matchingEnd(from: i) else { break }
            if let v = scan.parse(i..<end, budgeted: false), v.objectValue != nil { items.append(v) }
            i = end
        }
        return (items, false)
    }

    /// The index just after the `[` of the suggestions array: after `"suggestions": [`, else the first `[` before a `{`.
    static func arrayStart(_ bytes: [UInt8]) -> Int? {
        let key = Array("\"suggestions\"".utf8)
        var from = 0
        while let k = find(bytes, key, from: from) {
            var i = k + key.count
            while i < bytes.count, isSpace(bytes[i]) { i += 1 }
            if i < bytes.count, bytes[i] == UInt8(ascii: ":") {
                i += 1
                while i < bytes.count, isSpace(bytes[i]) { i += 1 }
                if i < bytes.count, bytes[i] == UInt8(ascii: "[") { return i + 1 }
            }
            from = k + 1
        }
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "[") {
                var j = i + 1
                while j < bytes.count, isSpace(bytes[j]) { j += 1 }
                if j < bytes.count, bytes[j] == UInt8(ascii: "{") { return i + 1 }
            }
            i += 1
        }
        return nil
    }

    // MARK: - Fields

    enum Keys {
        static let original = ["original_text", "originalText", "original", "text", "quote", "passage", "excerpt",
                               "source_text"]
        static let suggested = ["suggested_text", "suggestedText", "suggestion", "replacement", "suggested",
                                "revised_text", "revision", "new_text", "rewrite"]
        static let reasoning = ["reasoning", "reason", "explanation", "rationale", "comment", "why"]
        static let advisor = ["advisor_id", "advisorId", "advisor", "role_id", "role"]
        static let type = ["type", "kind", "suggestion_type", "action"]
        static let priority = ["priority", "importance"]
        static let confidence = ["confidence", "certainty"]
    }

    static func finish(_ items: [JSONValue], truncated: Bool, cut: Bool, advisorIds: [String]) -> ParsedReply {
        var reply = ParsedReply(truncated: truncated || cut, found: true)
        var missing = 0
        var noChange = 0
        var repeated = 0
        var reattributed = 0
        for item in items {
            guard let o = item.objectValue else {
                missing += 1
                continue
            }
            switch normalize(o, advisorIds: advisorIds) {
            case .success(let (s, wasReattributed)):
                if reply.suggestions.contains(where: {
                    $0.originalText == s.originalText && $0.suggestedText == s.suggestedText
                }) {
                    repeated += 1
                    continue
                }
                if wasReattributed { reattributed += 1 }
                reply.suggestions.append(s)
            case .failure(let why):
                if why == .noChange { noChange += 1 } else { missing += 1 }
            }
        }
        reply.dropped = missing + noChange + repeated
        if reply.truncated {
            reply.problems.append("the reply was cut off at the output limit; kept the \(reply.suggestions.count) "
                + "complete suggestion\(reply.suggestions.count == 1 ? "" : "s")")
        }
        if missing > 0 {
            reply.problems.append("dropped \(missing) suggestion\(missing == 1 ? "" : "s") without original_text or suggested_text")
        }
        if noChange > 0 {
            reply.problems.append("dropped \(noChange) suggestion\(noChange == 1 ? "" : "s") that changed nothing")
        }
        if repeated > 0 {
            reply.problems.append("dropped \(repeated) repeated suggestion\(repeated == 1 ? "" : "s")")
        }
        if reattributed > 0 {
            reply.problems.append("\(reattributed) suggestion\(reattributed == 1 ? "" : "s") named an advisor that "
                + "was not asked; attributed to \(advisorIds.count == 1 ? advisorIds[0] : "general")")
        }
        return reply
    }

    enum DropReason: Error { case missingText, noChange }

    /// Makes one suggestion object valid: defaults, clamps and aliases as the contract allows.
    static func normalize(_ o: [String: JSONValue], advisorIds: [String]) -> Result<(RawSuggestion, Bool), DropReason> {
        func first(_ keys: [String]) -> JSONValue? {
            for k in keys { if let v = o[k], v != .null { return v } }
            return nil
        }
        let type = suggestionType(first(Keys.type))
        guard let original = text(first(Keys.original)),
              !original.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        else { return .failure(.missingText) }
        var suggested = text(first(Keys.suggested))
        if suggested == nil, type == .remove { suggested = "" }
        guard let suggested else { return .failure(.missingText) }
        if suggested == original { return .failure(.noChange) }
        let (advisor, reattributed) = advisorID(text(first(Keys.advisor)), asked: advisorIds)
        var hint: Int?
        if let n = o["start"]?.doubleValue, n >= 0, n < 1e12 { hint = Int(n) }
        let s = RawSuggestion(
            advisorId: advisor, type: type, originalText: original, suggestedText: suggested,
            reasoning: text(first(Keys.reasoning)) ?? "", priority: priority(first(Keys.priority)),
            confidence: confidence(first(Keys.confidence)), hint: hint)
        return .success((s, reattributed))
    }

    static func text(_ v: JSONValue?) -> String? {
        switch v {
        case .string(let s): s
        case .number(let n): JSON.string(JSONValue.number(n), pretty: false)
        default: nil
        }
    }

    static func suggestionType(_ v: JSONValue?) -> SuggestionType {
        guard let raw = v?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() else { return .improve }
        if let t = SuggestionType(rawValue: raw) { return t }
        switch raw {
        case "correction", "correct", "error", "grammar", "spelling", "typo": return .fix
        case "reword", "rewrite", "rephrasing", "clarify", "clarity", "simplify": return .rephrase
        case "insert", "addition", "expand", "add_text": return .add
        case "delete", "deletion", "cut", "removal", "omit": return .remove
        default: return .improve
        }
    }

    /// 1…5; missing or unreadable → 3.
    static func priority(_ v: JSONValue?) -> Int {
        var n: Double?
        switch v {
        case .number(let d): n = d
        case .string(let s):
            let t = s.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            if let d = Double(t) { n = d } else {
                switch t {
                case "critical", "highest", "urgent": n = 1
                case "high", "important", "major": n = 2
                case "medium", "normal", "moderate": n = 3
                case "low": n = 4
                case "minor", "lowest", "trivial", "nit": n = 5
                default: n = nil
                }
            }
        default: n = nil
        }
        guard let n, n.isFinite else { return 3 }
        // Clamped before the conversion: a reply's "priority": 1e300 must not trap.
        return Int(min(5, max(1, n.rounded())))
    }

    /// 0…1; missing → 0.5; a percentage (1 < x ≤ 100) is divided by 100.
    static func confidence(_ v: JSONValue?) -> Double {
        var n: Double?
        switch v {
        case .number(let d): n = d
        case .string(let s): n = Double(s.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "%", with: ""))
        default: n = nil
        }
        guard var n, n.isFinite else { return 0.5 }
        if n > 1, n <= 100 { n /= 100 }
        return min(1, max(0, n))
    }

    /// The advisor id to keep, and whether it was changed from one the model named.
    static func advisorID(_ raw: String?, asked: [String]) -> (String, Bool) {
        let given = (raw ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let norm = given.lowercased().replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: "-", with: "_")
        if asked.contains(given) { return (given, false) }
        if asked.contains(norm) { return (norm, false) }
        if asked.isEmpty { return (norm.isEmpty ? "general" : norm, false) }
        if asked.count == 1 { return (asked[0], !norm.isEmpty) }
        if let m = asked.first(where: { $0 == "custom_" + norm }) { return (m, false) }
        return ("general", !norm.isEmpty)
    }

    // MARK: - Bytes

    /// Parses JSON, retrying once without trailing commas (a common slip of local models).
    static func parseLenient(_ bytes: [UInt8]) -> JSONValue? {
        if bytes.isEmpty { return nil }
        if let v = try? JSONValue.parse(bytes) { return v }
        let repaired = removingTrailingCommas(bytes)
        if repaired != bytes, let v = try? JSONValue.parse(repaired) { return v }
        return nil
    }

    static func removingTrailingCommas(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var inString = false
        var escaped = false
        var pendingComma: Int?
        for b in bytes {
            if inString {
                if escaped { escaped = false } else if b == 92 { escaped = true } else if b == 34 { inString = false }
                out.append(b)
                continue
            }
            if b == UInt8(ascii: ",") {
                pendingComma = out.count
                out.append(b)
                continue
            }
            if (b == UInt8(ascii: "}") || b == UInt8(ascii: "]")), let c = pendingComma {
                // Drop the comma: move the blanks after it back by one (a short run, so this stays linear).
                for k in c..<(out.count - 1) { out[k] = out[k + 1] }
                out.removeLast()
            }
            if !isSpace(b) { pendingComma = nil }
            if b == 34 { inString = true }
            out.append(b)
        }
        return out
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 32 || b == 9 || b == 10 || b == 13 }

    static func trim(_ s: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var lo = s.startIndex
        var hi = s.endIndex
        while lo < hi, isSpace(s[lo]) { lo += 1 }
        while hi > lo, isSpace(s[hi - 1]) { hi -= 1 }
        return s[lo..<hi]
    }

    static func stripBOM(_ b: [UInt8]) -> [UInt8] {
        b.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(b.dropFirst(3)) : b
    }

    static func find(_ hay: [UInt8], _ needle: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, hay.count >= needle.count, from <= hay.count - needle.count else { return nil }
        var i = from
        let first = needle[0]
        while i <= hay.count - needle.count {
            if hay[i] == first {
                var k = 1
                while k < needle.count, hay[i + k] == needle[k] { k += 1 }
                if k == needle.count { return i }
            }
            i += 1
        }
        return nil
    }
}
