import Foundation

/// A compiled Vale pattern: Vale's regexp2 (.NET flavour, lookarounds allowed) run on ICU through
/// `NSRegularExpression`. Offsets come back in Unicode scalars (Go runes), as Vale counts them.
///
/// `NSRegularExpression` is immutable and documented as thread-safe, so sharing one across tasks
/// is safe; Foundation on Linux does not mark it `Sendable`, hence the unchecked conformance.
public final class ValeRegex: @unchecked Sendable {
    public let pattern: String
    /// The pattern as handed to ICU (Go/.NET spellings translated).
    let translated: String
    let re: NSRegularExpression

    /// Compiles `pattern`, translating the Go/.NET spellings ICU does not know.
    public init(_ pattern: String) throws {
        self.pattern = pattern
        let t = Self.translate(pattern)
        translated = t
        do {
            re = try NSRegularExpression(pattern: t, options: [])
        } catch {
            // .NET allows any lookbehind; ICU needs a bounded one: bound `+` and `*` inside it.
            re = try NSRegularExpression(pattern: Self.boundLookbehinds(t), options: [])
        }
    }

    static func boundLookbehinds(_ p: String) -> String {
        let c = Array(p)
        var out = ""
        var i = 0
        var depth = 0          // parenthesis depth
        var lbDepth: [Int] = [] // depths at which lookbehinds opened
        var inClass = false
        while i < c.count {
            let ch = c[i]
            if ch == "\\" && i + 1 < c.count { out.append(ch); out.append(c[i + 1]); i += 2; continue }
            if inClass { if ch == "]" { inClass = false }; out.append(ch); i += 1; continue }
            if ch == "[" { inClass = true; out.append(ch); i += 1; continue }
            if ch == "(" {
                depth += 1
                if i + 3 < c.count, c[i + 1] == "?", c[i + 2] == "<", c[i + 3] == "=" || c[i + 3] == "!" { lbDepth.append(depth) }
            } else if ch == ")" {
                if lbDepth.last == depth { lbDepth.removeLast() }
                depth -= 1
            } else if !lbDepth.isEmpty && (ch == "+" || ch == "*") {
                out += ch == "+" ? "{1,100}" : "{0,100}"
                i += 1
                continue
            }
            out.append(ch)
            i += 1
        }
        return out
    }

    /// `(?P<name>` → `(?<name>`; POSIX classes outside brackets stay as they are.
    static func translate(_ p: String) -> String {
        var s = p.replacingOccurrences(of: "(?P<", with: "(?<")
        // A literal `[` inside a character class is a nested set in ICU; Go takes it literally.
        if s.contains("[") { s = escapeNestedBrackets(s) }
        if s.contains("{") { s = escapeLiteralBraces(s) }
        return s
    }

    /// Go reads a `{` that does not open a repetition (`{n}`, `{n,}`, `{n,m}`), and a `}` that
    /// closes none, as themselves; ICU rejects them (Hugo shortcodes `{{< … >}}` in BlockIgnores).
    static func escapeLiteralBraces(_ p: String) -> String {
        let c = Array(p.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        var inClass = false
        while i < c.count {
            let ch = c[i]
            if ch == "\\" && i + 1 < c.count {
                out.append(ch); out.append(c[i + 1]); i += 2
                // `\p{L}`, `\x{2019}`: the braces belong to the escape.
                if "pPxN".unicodeScalars.contains(c[i - 1]), i < c.count, c[i] == "{" {
                    while i < c.count { out.append(c[i]); i += 1; if c[i - 1] == "}" { break } }
                }
                continue
            }
            if inClass { if ch == "]" { inClass = false } }
            else if ch == "[" { inClass = true }
            else if ch == "{" {
                var j = i + 1
                var digits = 0
                while j < c.count, c[j].isASCII, c[j].properties.numericType == .decimal { j += 1; digits += 1 }
                if j < c.count, c[j] == "," { j += 1; while j < c.count, c[j].isASCII, c[j].properties.numericType == .decimal { j += 1 } }
                let repetition = digits > 0 && j < c.count && c[j] == "}"
                if repetition {
                    while i <= j { out.append(c[i]); i += 1 }
                    continue
                }
                out.append("\\")
            } else if ch == "}" {
                out.append("\\")
            }
            out.append(ch)
            i += 1
        }
        return String(out)
    }

    private static func escapeNestedBrackets(_ s: String) -> String {
        var out = ""
        var inClass = false
        var chars = Array(s)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c == "\\" && i + 1 < chars.count {
                out.append(c); out.append(chars[i + 1]); i += 2; continue
            }
            if inClass {
                if c == "[" {
                    if i + 1 < chars.count, chars[i + 1] == ":" { // [:alpha:]
                        if let end = findPosixEnd(chars, i) {
                            out.append(contentsOf: String(chars[i...end])); i = end + 1; continue
                        }
                    }
                    out.append("\\[")
                } else if c == "]" {
                    inClass = false; out.append(c)
                } else if c == "&" || c == "-" && i + 1 < chars.count && chars[i + 1] == "[" {
                    out.append("\\"); out.append(c)
                } else { out.append(c) }
            } else {
                if c == "[" {
                    inClass = true; out.append(c)
                    if i + 1 < chars.count, chars[i + 1] == "^" { out.append("^"); i += 1 }
                    if i + 1 < chars.count, chars[i + 1] == "]" { out.append("\\]"); i += 1 }
                } else { out.append(c) }
            }
            i += 1
        }
        chars = []
        return out
    }

    private static func findPosixEnd(_ chars: [Character], _ start: Int) -> Int? {
        var j = start + 2
        while j + 1 < chars.count {
            if chars[j] == ":" && chars[j + 1] == "]" { return j + 1 }
            if !chars[j].isLetter { return nil }
            j += 1
        }
        return nil
    }

    /// One match: the whole span and each group's span (nil when the group did not take part).
    public struct Match {
        public var range: Range<Int>          // scalars
        public var groups: [Range<Int>?]      // index 0 = whole match
    }

    /// Every non-overlapping match in `text`.
    public func matches(in text: ValeText) -> [Match] {
        let results = re.matches(in: text.string, options: [], range: NSRange(location: 0, length: text.utf16Count))
        return results.map { r in
            var groups: [Range<Int>?] = []
            groups.reserveCapacity(r.numberOfRanges)
            for g in 0..<r.numberOfRanges {
                let nr = r.range(at: g)
                groups.append(nr.location == NSNotFound ? nil : text.scalarRange(nr))
            }
            return Match(range: text.scalarRange(r.range), groups: groups)
        }
    }

    /// The matches `matches(in:)` finds, when every match starts at one of `starts` (sorted UTF-16
    /// offsets): the pattern is tried there only, anchored, seeing the whole text around it.
    public func matches(in text: ValeText, startingAt starts: [Int]) -> [Match] {
        var out: [Match] = []
        var pos = 0
        let n = text.utf16Count
        for c in starts where c >= pos && c < n {
            guard let r = re.firstMatch(in: text.string, options: [.anchored, .withTransparentBounds, .withoutAnchoringBounds],
                                        range: NSRange(location: c, length: n - c)) else { continue }
            var groups: [Range<Int>?] = []
            for g in 0..<r.numberOfRanges {
                let nr = r.range(at: g)
                groups.append(nr.location == NSNotFound ? nil : text.scalarRange(nr))
            }
            out.append(Match(range: text.scalarRange(r.range), groups: groups))
            pos = r.range.location + max(r.range.length, 1)
        }
        return out
    }

    /// Whether the pattern occurs anywhere in `s`.
    public func isMatch(_ s: String) -> Bool {
        re.firstMatch(in: s, options: [], range: NSRange(location: 0, length: (s as NSString).length)) != nil
    }

    /// `s` with every match replaced by `template` (`$1` refers to groups).
    public func replace(_ s: String, template: String) -> String {
        re.stringByReplacingMatches(in: s, options: [], range: NSRange(location: 0, length: (s as NSString).length),
                                    withTemplate: template)
    }

    /// Named-group index, or nil.
    func groupNames() -> Int { re.numberOfCaptureGroups }
}

/// A block of text with UTF-16 ↔ scalar conversion for regex results.
public struct ValeText {
    public let string: String
    public let scalars: [Unicode.Scalar]
    let utf16Count: Int
    /// utf16 offset → scalar index; nil when every scalar is one UTF-16 unit.
    private let map: [Int]?

    public init(_ s: String) {
        string = s
        scalars = Array(s.unicodeScalars)
        var u = 0
        var needsMap = false
        for sc in scalars where sc.value > 0xFFFF { needsMap = true; break }
        if needsMap {
            var m: [Int] = []
            m.reserveCapacity(scalars.count * 2 + 1)
            for (i, sc) in scalars.enumerated() {
                m.append(i)
                if sc.value > 0xFFFF { m.append(i) }
            }
            m.append(scalars.count)
            u = m.count - 1
            map = m
        } else {
            u = scalars.count
            map = nil
        }
        utf16Count = u
    }

    func scalarRange(_ r: NSRange) -> Range<Int> {
        guard let map else { return r.location..<(r.location + r.length) }
        let lo = map[min(r.location, map.count - 1)]
        let hi = map[min(r.location + r.length, map.count - 1)]
        return lo..<max(lo, hi)
    }

    /// The text of scalars `r` (clamped).
    public func slice(_ r: Range<Int>) -> String {
        let lo = max(0, min(r.lowerBound, scalars.count)), hi = max(lo, min(r.upperBound, scalars.count))
        var s = String.UnicodeScalarView()
        s.append(contentsOf: scalars[lo..<hi])
        return String(s)
    }
}
