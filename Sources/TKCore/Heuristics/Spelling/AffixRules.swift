/// The parts of a Hunspell `.aff` file that decide which words are accepted, read by tk-agent so that
/// a `check` process can answer from a compiled word table (`WordTable`) instead of building Hunspell's.
///
/// Models what Debian's English dictionaries use: UTF-8, one-byte flags, `PFX`/`SFX` rules (strip, add,
/// condition, cross product) without continuation classes, `ICONV ’ '`, `NOSUGGEST`, `ONLYINCOMPOUND`,
/// `NEEDAFFIX`, `COMPOUNDRULE` with `COMPOUNDMIN`, and Hunspell's default word breaking at hyphens.
/// Anything else that can change a verdict (long or numeric flags, `AF` aliases, `FORBIDDENWORD`,
/// `KEEPCASE`, `BREAK`, `IGNORE`, compound flags, `FULLSTRIP`, `CHECKSHARPS`…) makes `parse` return
/// `.unmodelled`, and the speller falls back to Hunspell itself.
struct AffixRules: Sendable, Equatable {
    /// One condition position: any character, or a set (negated or not).
    enum Condition: Sendable, Equatable {
        case any
        case oneOf([Unicode.Scalar])
        case noneOf([Unicode.Scalar])

        func matches(_ c: Unicode.Scalar) -> Bool {
            switch self {
            case .any: return true
            case .oneOf(let s): return s.contains(c)
            case .noneOf(let s): return !s.contains(c)
            }
        }
    }

    struct Rule: Sendable, Equatable {
        var strip: [Unicode.Scalar]
        var add: [Unicode.Scalar]
        var condition: [Condition]
        var cross: Bool
    }

    /// Prefix and suffix rules by flag byte.
    var prefixes: [UInt8: [Rule]] = [:]
    var suffixes: [UInt8: [Rule]] = [:]
    var noSuggest: UInt8?
    var onlyInCompound: UInt8?
    var needAffix: UInt8?
    /// `COMPOUNDRULE` patterns: flag bytes, each maybe followed by `*` or `?` (kept as written).
    var compoundRules: [[UInt8]] = []
    var compoundMin = 3

    /// The flags compound rules name.
    var compoundFlags: Set<UInt8> {
        Set(compoundRules.joined().filter { $0 != 42 && $0 != 63 })
    }

    enum Parsed: Sendable, Equatable {
        case rules(AffixRules)
        /// The file uses something the table does not model (the keyword or construct named).
        case unmodelled(String)
    }

    /// Keywords that only shape suggestions or output, never a verdict of `spell`.
    private static let harmless: Set<Substring> = [
        "TRY", "KEY", "REP", "MAP", "PHONE", "WORDCHARS", "MAXNGRAMSUGS", "MAXDIFF", "ONLYMAXDIFF", "NOSPLITSUGS",
        "SUGSWITHDOTS", "MAXCPDSUGS", "OCONV", "NAME", "VERSION", "HOME", "FORBIDWARN", "WARN",
    ]

    // swiftlint:disable:next cyclomatic_complexity function_body_length
    static func parse(_ bytes: [UInt8]) -> Parsed {
        var text = String(decoding: bytes, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        var out = AffixRules()
        var lines = text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })[...]
        var compoundCountSeen = false
        func flag(_ s: Substring) -> UInt8? { s.utf8.count == 1 ? s.utf8.first : nil }
        while let line = lines.popFirst() {
            let f = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let key = f.first, !key.hasPrefix("#") else { continue }
            switch key {
            case "SET":
                guard f.count >= 2, f[1].uppercased() == "UTF-8" else { return .unmodelled("SET \(f.dropFirst().first ?? "")") }
            case "LANG":
                guard f.count >= 2, f[1].hasPrefix("en") else { return .unmodelled("LANG") }
            case "ICONV":
                // "ICONV 1" is the count; the only pair modelled is ’ → ' (the collector applies it too).
                if f.count >= 3 && !(f[1] == "\u{2019}" && f[2] == "'") { return .unmodelled("ICONV") }
            case "NOSUGGEST", "ONLYINCOMPOUND", "NEEDAFFIX":
                guard f.count >= 2, let b = flag(f[1]) else { return .unmodelled(String(key)) }
                if key == "NOSUGGEST" { out.noSuggest = b } else if key == "ONLYINCOMPOUND" { out.onlyInCompound = b } else {
                    out.needAffix = b
                }
            case "COMPOUNDMIN":
                guard f.count >= 2, let n = Int(f[1]), n >= 1 else { return .unmodelled("COMPOUNDMIN") }
                out.compoundMin = n
            case "COMPOUNDRULE":
                guard f.count >= 2 else { return .unmodelled("COMPOUNDRULE") }
                if !compoundCountSeen { compoundCountSeen = true; continue }   // the first line is the count
                let rule = Array(f[1].utf8)
                // Parenthesised (long) flags are not modelled.
                if rule.contains(40) || rule.contains(41) || rule.first == 42 || rule.first == 63 {
                    return .unmodelled("COMPOUNDRULE")
                }
                out.compoundRules.append(rule)
            case "PFX", "SFX":
                guard f.count >= 4, let fl = flag(f[1]), let count = Int(f[3]), count >= 0, count < 100_000 else {
                    return .unmodelled(String(key))
                }
                let cross = f[2] == "Y"
                var rules: [Rule] = []
                for _ in 0..<count {
                    guard let l = lines.popFirst() else { return .unmodelled("\(key) \(f[1]) (too few lines)") }
                    let r = l.split(whereSeparator: { $0 == " " || $0 == "\t" })
                    guard r.count >= 4, r[0] == key, r[1] == f[1] else { return .unmodelled("\(key) \(f[1]) (a malformed line)") }
                    if r[3].contains("/") { return .unmodelled("\(key) \(f[1]) (continuation classes)") }
                    let strip = r[2] == "0" ? [] : Array(r[2].unicodeScalars)
                    let add = r[3] == "0" ? [] : Array(r[3].unicodeScalars)
                    let cond = r.count >= 5 ? r[4] : "."
                    guard let c = parseCondition(cond) else { return .unmodelled("\(key) \(f[1]) (condition \(cond))") }
                    rules.append(Rule(strip: strip, add: add, condition: c, cross: cross))
                }
                if key == "PFX" { out.prefixes[fl, default: []] += rules } else { out.suffixes[fl, default: []] += rules }
            default:
                if harmless.contains(key) { continue }
                return .unmodelled(String(key))
            }
        }
        return .rules(out)
    }

    /// `.`, literal characters and `[...]` / `[^...]` groups.
    static func parseCondition(_ s: Substring) -> [Condition]? {
        if s == "." { return [] }
        var out: [Condition] = []
        var it = Array(s.unicodeScalars)[...]
        while let c = it.popFirst() {
            if c == "." {
                out.append(.any)
            } else if c == "[" {
                var negated = false
                if it.first == "^" { negated = true; it.removeFirst() }
                var set: [Unicode.Scalar] = []
                var closed = false
                while let d = it.popFirst() {
                    if d == "]" { closed = true; break }
                    set.append(d)
                }
                guard closed else { return nil }
                out.append(negated ? .noneOf(set) : .oneOf(set))
            } else if c == "]" {
                return nil
            } else {
                out.append(.oneOf([c]))
            }
        }
        // Trailing "any" positions only ask for length, which `apply` checks anyway.
        return out
    }

    /// The prefix rule applied to `base` (a root, or a root with a cross-product suffix).
    static func applyPrefix(_ r: Rule, to base: [Unicode.Scalar]) -> [Unicode.Scalar]? {
        let n = base.count
        guard n > r.strip.count, n >= r.condition.count else { return nil }
        if !r.strip.isEmpty && !base[..<r.strip.count].elementsEqual(r.strip) { return nil }
        for (i, c) in r.condition.enumerated() where !c.matches(base[i]) { return nil }
        return r.add + Array(base[r.strip.count...])
    }
}
