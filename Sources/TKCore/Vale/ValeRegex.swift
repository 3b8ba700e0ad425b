import Foundation

import CICURegex
import Synchronization

/// A compiled Vale pattern: Vale's regexp2 (.NET flavour, lookarounds allowed) run on ICU's regular
/// expressions, called through their C API (`CICURegex`). Offsets come back in Unicode scalars (Go
/// runes), as Vale counts them.
///
/// Matching needs a matcher, which holds state: the compiled pattern (`prototype`) is never matched
/// itself, only cloned, and each match borrows a clone from `idle` and gives it back.
public final class ValeRegex: @unchecked Sendable {
    // Why unchecked: the compiled patterns are only read once made (`uregex_clone` reads a compiled
    // pattern, which ICU never changes once compiled; Foundation's CFRegularExpression clones one
    // shared pattern from several threads the same way) — `factoredPrototype` in `init`, the
    // plain one in `init` or at its first use under `plain`'s mutex — and every clone is used by
    // one caller at a time, taken from and returned to `idle` under its mutex.
    public let pattern: String
    /// The pattern as handed to ICU (Go/.NET spellings translated).
    let translated: String
    /// Capture groups in the pattern (group 0, the whole match, not counted).
    let groupCount: Int
    /// The pattern compiled as written; for a pattern with a factored form, compiled at its first
    /// use (only texts the prefilter has not read need it: most checks never do, and compiling a
    /// long word list was a fifth of a pack's load). `Plain` holds it for the mutex.
    private let plain: Mutex<Plain>
    private struct Plain: @unchecked Sendable {
        // Unchecked: see the class; the pointer is written once, under the mutex.
        var p: OpaquePointer?
        /// The first use tried to compile it (a refusal is not tried again at every match).
        var tried = false
    }
    private let idle = Mutex<[Matcher]>([])
    /// The same pattern with its long word lists as trees (`ValeAlternation`), matched instead of
    /// `prototype` on texts the prefilter has read (nil when there is no such list). Same matches.
    private let factoredPrototype: OpaquePointer?
    private let factoredIdle = Mutex<[Matcher]>([])
    /// Whether the pattern has a factored form (tests).
    var isFactored: Bool { factoredPrototype != nil }
    /// Whether the pattern as written has been compiled yet (tests).
    var hasCompiledPlain: Bool { plain.withLock { $0.p != nil } }
    /// The pattern matches runs of word characters, one match a run (`\b(\w+)\b`, `\w+`, as
    /// packs count words in a sentence): on plain prose `count(in:)` counts the runs without ICU.
    let countsWordRuns: Bool

    /// A clone of `prototype`. Unchecked: it moves between threads only through `idle`, and is used
    /// by one caller at a time (see above).
    private struct Matcher: @unchecked Sendable { let p: OpaquePointer }

    public struct CompileError: Error, CustomStringConvertible {
        public let pattern: String
        public let code: Int32
        public let offset: Int32
        public var description: String { "ICU error \(code) at offset \(offset) of \(pattern)" }
    }

    /// Compiles `pattern`, translating the Go/.NET spellings ICU does not know.
    public init(_ pattern: String) throws {
        self.pattern = pattern
        let t = Self.translate(pattern)
        countsWordRuns = Self.isWordRunCount(pattern)
        var status: TKUErrorCode = 0
        // A pattern with long word lists compiles as trees first; as written only when a text needs
        // it. The trees change nothing but runs of plain words (no group, no syntax of their own),
        // so a pattern whose trees compile compiles as written too, with the same groups.
        if let f = ValeAlternation.factored(t), let factored = try? Self.open(f) {
            translated = t
            factoredPrototype = factored
            plain = Mutex(Plain(p: nil))
            groupCount = max(0, Int(swift_uregex_groupCount(factored, &status)))
            return
        }
        var compiled: OpaquePointer
        var used = t
        do { compiled = try Self.open(t) } catch {
            // .NET allows any lookbehind; ICU needs a bounded one: bound `+` and `*` inside it.
            used = Self.boundLookbehinds(t)
            compiled = try Self.open(used)
        }
        translated = used
        plain = Mutex(Plain(p: compiled))
        factoredPrototype = ValeAlternation.factored(used).flatMap { try? Self.open($0) }
        groupCount = max(0, Int(swift_uregex_groupCount(compiled, &status)))
    }

    /// The pattern as written, compiled now if it was left for its first use. Should ICU refuse it
    /// then (it accepted the same pattern with trees), the trees stand in: the same matches, but on
    /// a text where a character's case mapping reaches ASCII (see `ValeAlternation`).
    private var prototype: OpaquePointer? {
        plain.withLock { plain in
            if !plain.tried {
                plain.tried = true
                if plain.p == nil { plain.p = try? Self.open(translated) }
            }
            return plain.p ?? factoredPrototype
        }
    }

    deinit {
        if let p = plain.withLock({ $0.p }) { swift_uregex_close(p) }
        for m in idle.withLock({ $0 }) { swift_uregex_close(m.p) }
        if let factoredPrototype { swift_uregex_close(factoredPrototype) }
        for m in factoredIdle.withLock({ $0 }) { swift_uregex_close(m.p) }
    }

    private static func open(_ pattern: String) throws -> OpaquePointer {
        let units = Array(pattern.utf16)
        var status: TKUErrorCode = 0
        var pe = TKUParseError()
        let re = units.withUnsafeBufferPointer { b in
            swift_uregex_open(b.baseAddress, Int32(b.count), 0, &pe, &status)
        }
        guard let re, status <= 0 else {
            if let re { swift_uregex_close(re) }
            throw CompileError(pattern: pattern, code: status, offset: pe.offset)
        }
        return re
    }

    /// The same pattern for Foundation (Tengo scripts' `text.re_compile`).
    static func foundation(_ pattern: String) throws -> NSRegularExpression {
        let t = Self.translate(pattern)
        do { return try NSRegularExpression(pattern: t, options: []) } catch {
            return try NSRegularExpression(pattern: Self.boundLookbehinds(t), options: [])
        }
    }

    /// Runs `body` with a matcher of this pattern set on `units` (which must stay alive meanwhile:
    /// ICU reads the buffer in place), with plain bounds.
    /// `otherwise` when no matcher can be made (ICU out of memory).
    /// - Parameter prefiltered: the text is one the prefilter has read (`ValePrefilter.hits` gave
    ///   hits): the factored pattern may be used.
    private func withMatcher<T>(_ units: UnsafeBufferPointer<UInt16>, prefiltered: Bool = false, otherwise: T,
                                _ body: (OpaquePointer) -> T) -> T {
        var status: TKUErrorCode = 0
        let factored = prefiltered ? factoredPrototype : nil
        // The matchers kept for the pattern used (a clone of one pattern cannot match the other).
        func kept<R>(_ body: (inout [Matcher]) -> R) -> R {
            factored == nil ? idle.withLock { body(&$0) } : factoredIdle.withLock { body(&$0) }
        }
        guard let source = factored ?? prototype else { return otherwise }
        let m = kept { $0.popLast()?.p } ?? swift_uregex_clone(source, &status)
        guard let m, status <= 0 else { return otherwise }
        defer { kept { $0.append(Matcher(p: m)) } }
        // An empty buffer has no address; ICU wants one.
        var empty: UInt16 = 0
        if let base = units.baseAddress {
            swift_uregex_setText(m, base, Int32(units.count), &status)
        } else {
            swift_uregex_setText(m, &empty, 0, &status)
        }
        return body(m)
    }

    /// Calls `body` at each match in `units`, left to right (plain bounds), while it returns true.
    private func scan(_ units: UnsafeBufferPointer<UInt16>, prefiltered: Bool = false, _ body: (OpaquePointer) -> Bool) {
        withMatcher(units, prefiltered: prefiltered, otherwise: ()) { m in
            var status: TKUErrorCode = 0
            swift_uregex_useTransparentBounds(m, false, &status)
            swift_uregex_useAnchoringBounds(m, true, &status)
            while swift_uregex_findNext(m, &status), status <= 0, body(m) {}
        }
    }

    /// Whether `pattern` (flags aside, in a group or not) is one that matches each maximal run of
    /// word characters once: ICU's `\w` on ASCII is `[A-Za-z0-9_]` and its `\b` falls between a
    /// word character and another one, so the matches are the runs themselves.
    static func isWordRunCount(_ pattern: String) -> Bool {
        var p = Substring(pattern)
        if p.hasPrefix("(?i)") { p = p.dropFirst(4) }
        if p.hasPrefix("(?:") && p.hasSuffix(")") { p = p.dropFirst(3).dropLast() }
        return ["\\b(\\w+)\\b", "\\b\\w+\\b", "\\w+", "(\\w+)"].contains(p)
    }

    /// The runs of word characters in a text of ASCII, Latin-1 letters and the common typographic
    /// punctuation (curly quotes, dashes, the ellipsis, the no-break space): nil when it holds anything
    /// else (a combining mark, which ICU's `\b` ignores, another script), and ICU counts then.
    static func plainWordRuns(_ scalars: [Unicode.Scalar]) -> Int? {
        var n = 0
        var inWord = false
        for s in scalars {
            let c = s.value
            let w: Bool
            if c < 0x80 {
                w = VB.isWord(UInt8(c))
            } else if c >= 0xC0 && c <= 0xFF && c != 0xD7 && c != 0xF7 {
                w = true                                   // Latin-1 letters: Alphabetic
            } else if c == 0xA0 || c == 0xAB || c == 0xBB || (c >= 0x2010 && c <= 0x2027 && c != 0x2011) {
                w = false                                  // punctuation and spaces: no word character
            } else {
                return nil
            }
            if w && !inWord { n += 1 }
            inWord = w
        }
        return n
    }

    private func match(_ m: OpaquePointer, _ text: ValeText) -> Match {
        var status: TKUErrorCode = 0
        var groups: [Range<Int>?] = []
        groups.reserveCapacity(groupCount + 1)
        for g in 0...groupCount {
            let a = Int(swift_uregex_start(m, Int32(g), &status)), b = Int(swift_uregex_end(m, Int32(g), &status))
            groups.append(a < 0 || status > 0 ? nil : text.scalarRange(a, b))
        }
        return Match(range: groups[0] ?? 0..<0, groups: groups)
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
        var s = VB.replaceAll(p, "(?P<", with: "(?<")
        // A literal `[` inside a character class is a nested set in ICU; Go takes it literally.
        if VB.contains(s, byte: 0x5B) { s = escapeNestedBrackets(s) }   // [
        if VB.contains(s, byte: 0x7B) { s = escapeLiteralBraces(s) }    // {
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
    /// - Parameter prefiltered: `text` is one the prefilter has read (see `withMatcher`).
    public func matches(in text: ValeText, prefiltered: Bool = false) -> [Match] {
        var out: [Match] = []
        text.utf16.withUnsafeBufferPointer { units in
            scan(units, prefiltered: prefiltered) { m in out.append(match(m, text)); return true }
        }
        return out
    }

    /// How many non-overlapping matches `text` holds.
    public func count(in text: ValeText, prefiltered: Bool = false) -> Int {
        if countsWordRuns, let n = Self.plainWordRuns(text.scalars) { return n }
        var n = 0
        text.utf16.withUnsafeBufferPointer { units in scan(units, prefiltered: prefiltered) { _ in n += 1; return true } }
        return n
    }

    /// The matches `matches(in:)` finds, when every match starts at one of `starts` (sorted UTF-16
    /// offsets): the pattern is tried there only, anchored, seeing the whole text around it.
    /// The places come from the prefilter, which has read the text (see `withMatcher`).
    public func matches(in text: ValeText, startingAt starts: [Int]) -> [Match] {
        let n = text.utf16Count
        guard starts.contains(where: { $0 < n }) else { return [] }
        return text.utf16.withUnsafeBufferPointer { units in
            withMatcher(units, prefiltered: true, otherwise: []) { m in
                var status: TKUErrorCode = 0
                // Lookarounds and \b see past the region; ^ and $ only at the text's own ends.
                swift_uregex_useTransparentBounds(m, true, &status)
                swift_uregex_useAnchoringBounds(m, false, &status)
                var out: [Match] = []
                var pos = 0
                for c in starts where c >= pos && c < n {
                    status = 0
                    swift_uregex_setRegion(m, Int32(c), Int32(n), &status)
                    guard status <= 0, swift_uregex_lookingAt(m, -1, &status), status <= 0 else { continue }
                    let r = match(m, text)
                    out.append(r)
                    let a = Int(swift_uregex_start(m, 0, &status)), b = Int(swift_uregex_end(m, 0, &status))
                    pos = a + max(b - a, 1)
                }
                return out
            }
        }
    }

    /// Whether the pattern occurs anywhere in `s`.
    public func isMatch(_ s: String) -> Bool {
        var found = false
        Array(s.utf16).withUnsafeBufferPointer { units in scan(units) { _ in found = true; return false } }
        return found
    }

    /// `s` with every match replaced by `template`, as `NSRegularExpression` fills a template:
    /// `$n` is group n (as many digits as the group count needs; a group that did not take part, or
    /// does not exist, is empty), `\` takes the next character as it is.
    public func replace(_ s: String, template: String) -> String {
        let units = Array(s.utf16)
        var found: [[Range<Int>?]] = []   // each match's groups, in UTF-16 units
        units.withUnsafeBufferPointer { b in
            scan(b) { m in
                var status: TKUErrorCode = 0
                found.append((0...groupCount).map { g in
                    let a = Int(swift_uregex_start(m, Int32(g), &status)), e = Int(swift_uregex_end(m, Int32(g), &status))
                    return a < 0 ? nil : a..<e
                })
                return true
            }
        }
        if found.isEmpty { return s }
        let t = Array(template.utf16)
        var digits = 1, magnitude = 10
        while magnitude < groupCount + 1 && digits < 20 { digits += 1; magnitude *= 10 }
        var out: [UInt16] = []
        out.reserveCapacity(units.count)
        var last = 0
        for groups in found {
            guard let whole = groups[0] else { continue }
            out.append(contentsOf: units[last..<whole.lowerBound])
            var i = 0
            while i < t.count {
                let c = t[i]
                if c == 0x5C {                                   // \: the next character as it is
                    if i + 1 < t.count { out.append(t[i + 1]) }
                    i += 2
                } else if c == 0x24 {                            // $n
                    var j = i + 1, number = -1
                    while j < t.count, j < i + 1 + digits, t[j] >= 0x30, t[j] <= 0x39 {
                        number = max(number, 0) * 10 + Int(t[j] - 0x30); j += 1
                    }
                    if number < 0 { out.append(c); i += 1; continue }
                    if number < groups.count, let g = groups[number] { out.append(contentsOf: units[g]) }
                    i = j
                } else {
                    out.append(c); i += 1
                }
            }
            last = whole.upperBound
        }
        out.append(contentsOf: units[last...])
        return String(decoding: out, as: UTF16.self)
    }
}

/// A block of text with UTF-16 ↔ scalar conversion for regex results.
public struct ValeText: Sendable {
    public let string: String
    public let scalars: [Unicode.Scalar]
    /// The text as ICU reads it.
    let utf16: [UInt16]
    var utf16Count: Int { utf16.count }
    /// utf16 offset → scalar index; nil when every scalar is one UTF-16 unit.
    private let map: [Int]?

    public init(_ s: String) {
        string = s
        // One pass over the text for both views.
        var sc: [Unicode.Scalar] = [], u: [UInt16] = []
        sc.reserveCapacity(s.utf8.count)
        u.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            sc.append(c)
            if c.value < 0x10000 { u.append(UInt16(truncatingIfNeeded: c.value)) } else { u.append(contentsOf: c.utf16) }
        }
        scalars = sc
        utf16 = u
        if utf16.count != scalars.count {
            var m: [Int] = []
            m.reserveCapacity(utf16.count + 1)
            for (i, sc) in scalars.enumerated() {
                m.append(i)
                if sc.value > 0xFFFF { m.append(i) }
            }
            m.append(scalars.count)
            map = m
        } else {
            map = nil
        }
    }

    func scalarRange(_ lo16: Int, _ hi16: Int) -> Range<Int> {
        guard let map else { return lo16..<max(lo16, hi16) }
        let lo = map[min(lo16, map.count - 1)]
        let hi = map[min(hi16, map.count - 1)]
        return lo..<max(lo, hi)
    }

    /// The text of scalars `r` (clamped).
    public func slice(_ r: Range<Int>) -> String {
        let lo = max(0, min(r.lowerBound, scalars.count)), hi = max(lo, min(r.upperBound, scalars.count))
        return VB.string(scalars[lo..<hi])
    }
}
