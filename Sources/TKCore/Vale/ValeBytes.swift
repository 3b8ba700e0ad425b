import CSystem
import Foundation

/// Byte-string helpers with Go's semantics (`strings.Index`, rune counts), for Vale's location logic.
enum VB {
    static func index(_ hay: [UInt8], _ needle: [UInt8], from: Int = 0) -> Int? {
        if needle.isEmpty { return from <= hay.count ? from : nil }
        if from < 0 || hay.count - from < needle.count { return nil }
        if needle.count == 1 {
            // One byte (the location walk's newline, line by line): memchr, without memmem's set-up.
            return hay.withUnsafeBytes { h -> Int? in
                guard let hb = h.baseAddress, let p = memchr(hb + from, Int32(needle[0]), h.count - from) else { return nil }
                return hb.distance(to: UnsafeRawPointer(p))
            }
        }
        return hay.withUnsafeBytes { h -> Int? in
            needle.withUnsafeBytes { n -> Int? in
                guard let hb = h.baseAddress, let nb = n.baseAddress else { return nil }
                var at = from
                if n.count > 256 {
                    // A long needle (a block's text sought in its line): glibc's memmem sets up a
                    // two-way search (a 2 KB shift table, two factorizations) at every call, ten
                    // thousand instructions before the first byte is compared. The first byte and
                    // memcmp find it sooner in text; after a few false starts, memmem after all.
                    let first = Int32(nb.load(as: UInt8.self))
                    var misses = 0
                    while misses < 8 {
                        guard h.count - at >= n.count, let p = memchr(hb + at, first, h.count - at - n.count + 1) else { return nil }
                        let i = hb.distance(to: UnsafeRawPointer(p))
                        if memcmp(hb + i, nb, n.count) == 0 { return i }
                        at = i + 1
                        misses += 1
                    }
                }
                guard h.count - at >= n.count, let p = memmem(hb + at, h.count - at, nb, n.count) else { return nil }
                return hb.distance(to: UnsafeRawPointer(p))
            }
        }
    }

    static func contains(_ hay: [UInt8], _ needle: [UInt8]) -> Bool { index(hay, needle) != nil }

    /// Whether the string's UTF-8 holds the byte: memchr on a native string's storage
    /// (`utf8.contains` steps through a generic iterator byte by byte).
    static func contains(_ s: String, byte: UInt8) -> Bool {
        s.utf8.withContiguousStorageIfAvailable { b in
            guard let base = b.baseAddress else { return false }
            return memchr(base, Int32(byte), b.count) != nil
        } ?? s.utf8.contains(byte)
    }

    /// Go's `strings.Count`.
    static func count(_ hay: [UInt8], _ needle: [UInt8]) -> Int {
        if needle.isEmpty { return runes(hay[...]) + 1 }
        var n = 0, from = 0
        while let i = index(hay, needle, from: from) { n += 1; from = i + needle.count }
        return n
    }

    /// Go's `strings.Split(s, sep)` for a separator that is not empty.
    static func split(_ s: String, _ sep: String) -> [String] {
        let b = Array(s.utf8), n = Array(sep.utf8)
        guard !n.isEmpty else { return [s] }
        var out: [String] = [], from = 0
        while let i = index(b, n, from: from) { out.append(str(b[from..<i])); from = i + n.count }
        out.append(str(b[from...]))
        return out
    }

    /// Go's `strings.Replace(s, old, new, 1)` for an `old` that is not empty.
    static func replaceFirst(_ s: String, _ old: String, with new: String) -> String {
        let b = Array(s.utf8)
        guard let i = index(b, Array(old.utf8)) else { return s }
        return str(b[..<i]) + new + str(b[(i + old.utf8.count)...])
    }

    /// Go's `strings.ReplaceAll(s, old, new)` for an `old` that is not empty: on bytes (Foundation's
    /// `replacingOccurrences` compares composed characters, and took a tenth of a pack's compile on
    /// patterns of thousands of words).
    static func replaceAll(_ s: String, _ old: String, with new: String) -> String {
        split(s, old).joined(separator: new)
    }

    /// Whether `s` starts with one or more decimal digits (`\d`: Unicode's Nd) and a full stop,
    /// as the regex `^\d+\.` decides.
    static func startsWithNumberAndDot(_ s: String) -> Bool {
        var digits = 0
        for c in s.unicodeScalars {
            if c.properties.generalCategory == .decimalNumber { digits += 1; continue }
            return digits > 0 && c == "."
        }
        return false
    }

    static func runes(_ s: ArraySlice<UInt8>) -> Int {
        var n = 0
        for b in s where b & 0xC0 != 0x80 { n += 1 }
        return n
    }
    static func runes(_ s: [UInt8]) -> Int { runes(s[...]) }

    /// `core.Substitute`: the first `sub` in `src` becomes one `ch` per character (newlines kept).
    static func substitute(_ src: [UInt8], _ sub: [UInt8], _ ch: UInt8) -> [UInt8] {
        substitute(src, sub, ch, at: index(src, sub))
    }

    /// `substitute` in place: without a copy when `sub` is ASCII (one byte a character already).
    static func substituteInPlace(_ src: inout [UInt8], _ sub: [UInt8], _ ch: UInt8, at first: Int?) {
        guard let i = first else { return }
        if sub.allSatisfy({ $0 < 0x80 }) {
            for j in i..<(i + sub.count) where src[j] != 10 { src[j] = ch }
        } else {
            src = substitute(src, sub, ch, at: i)
        }
    }

    /// `substitute` with the first occurrence of `sub` already found (nil: none).
    static func substitute(_ src: [UInt8], _ sub: [UInt8], _ ch: UInt8, at first: Int?) -> [UInt8] {
        guard let i = first else { return src }
        var out = [UInt8]()
        out.reserveCapacity(src.count)
        out.append(contentsOf: src[..<i])
        for b in sub where b & 0xC0 != 0x80 { out.append(b == 10 ? 10 : ch) }
        out.append(contentsOf: src[(i + sub.count)...])
        return out
    }

    /// `strings.SplitAfter(s, "\n")`.
    static func splitAfterNewline(_ s: [UInt8]) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var start = 0
        for (i, b) in s.enumerated() where b == 10 { out.append(s[start...i]); start = i + 1 }
        out.append(s[start...])
        return out
    }

    /// The UTF-8 bytes of each line of `s`, as `s.split(separator: "\n", omittingEmptySubsequences:
    /// false)` splits it: at every newline but one that ends a "\r\n" (one Character to Swift).
    static func lines(_ s: String) -> [[UInt8]] {
        var s = s
        s.makeContiguousUTF8()   // a no-op for native strings
        return s.utf8.withContiguousStorageIfAvailable { b in
            var out: [[UInt8]] = []
            var start = 0
            for i in 0..<b.count where b[i] == 10 && (i == 0 || b[i - 1] != 13) {
                out.append(Array(b[start..<i])); start = i + 1
            }
            out.append(Array(b[start..<b.count]))
            return out
        } ?? [Array(s.utf8)]
    }

    /// Go's `strings.Fields`.
    static func fields(_ s: [UInt8]) -> [[UInt8]] {
        // ASCII: the bytes Unicode calls White_Space there (tab to carriage return, space); a
        // "\r\n" is one Character, and a separator either way.
        if s.allSatisfy({ $0 < 0x80 }) {
            return s.split(whereSeparator: { $0 == 32 || ($0 >= 9 && $0 <= 13) }).map { Array($0) }
        }
        return String(decoding: s, as: UTF8.self).split(whereSeparator: { $0.isWhitespace }).map { Array($0.utf8) }
    }

    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
    static func str<S: Sequence>(_ b: S) -> String where S.Element == UInt8 { String(decoding: Array(b), as: UTF8.self) }

    /// `s.trimmingCharacters(in: .whitespacesAndNewlines)` without Foundation's bridging: that set
    /// is Unicode's White_Space property (Zs, tab, U+000A–U+000D, U+0085, U+2028, U+2029) and, in
    /// swift-corelibs-foundation, the zero-width space U+200B (compared over every scalar).
    static func trimmed<S: StringProtocol>(_ s: S) -> String {
        let u = s.unicodeScalars
        func space(_ c: Unicode.Scalar) -> Bool { c.value == 0x200B || c.properties.isWhitespace }
        guard let a = u.firstIndex(where: { !space($0) }), let z = u.lastIndex(where: { !space($0) }) else { return "" }
        let end = u.index(after: z)
        if a == u.startIndex, end == u.endIndex, let whole = s as? String { return whole }
        // The UTF-8 bytes copied at once (a scalar view built from a slice appends one scalar at a time).
        return String(decoding: s.utf8[a..<end], as: UTF8.self)
    }

    /// `s.trimmingCharacters(in: .whitespaces)`: on the bytes for ASCII text, where that set is the
    /// space and the tab; through Foundation otherwise (its set's other members are not ASCII, and
    /// bridging cost ~9,000 instructions a call: a fifth of a pack's compile was spent here and in
    /// `components(separatedBy:)`).
    static func trimmedSpaces<S: StringProtocol>(_ s: S) -> String {
        let str = String(s)
        let u = str.utf8
        guard !u.contains(where: { $0 >= 0x80 }) else { return str.trimmingCharacters(in: .whitespaces) }
        func space(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }
        guard let a = u.firstIndex(where: { !space($0) }), let z = u.lastIndex(where: { !space($0) }) else { return "" }
        let end = u.index(after: z)
        if a == u.startIndex, end == u.endIndex { return str }
        return String(decoding: u[a..<end], as: UTF8.self)
    }

    /// The string of some Unicode scalars, encoded into one buffer (`String.UnicodeScalarView`'s
    /// `append(contentsOf:)` appends them one at a time, a fifth of the walk's time on a chapter).
    static func string(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        if scalars.isEmpty { return "" }
        return String(unsafeUninitializedCapacity: scalars.count * 4) { buf in
            var n = 0
            for c in scalars { UTF8.encode(c) { buf[n] = $0; n += 1 } }
            return n
        }
    }

    static func isWord(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 95
    }
}

/// Where a byte string first occurs in a document that only changes by masking — Vale's walker sets
/// the text it has placed to `@`, and each rule's context the matches it has reported to `#` — without
/// scanning from the start each time. Vale looks every block up from the start of the document, and
/// every reported match too, and the walker has masked everything before the block by then: on a
/// whole novel (122,000 words) those scans were two thirds of a Vale run.
///
/// Exact: a needle without a mask byte occurs only where its bytes are unmasked, that is where the
/// document as indexed (`original`) holds it. So its occurrences now are among its occurrences then:
/// they are found from the window of the needle that occurs least often (4 bytes, hashed; 2 bytes for
/// needles of 2 or 3), each checked against the bytes as they are now. The walker's masks only ever
/// grow, so a window found broken in its content stays broken: each bucket remembers how many of its
/// first windows are (`learn`), and a search in the content, or in a context made from it since,
/// starts after them (`known`).
struct ValeGramIndex {
    let original: [UInt8]
    var count: Int { original.count }

    struct Table {
        let gram: Int
        /// `positions[starts[h]..<starts[h + 1]]`: where a window keyed `h` starts, in order.
        let starts: [Int32]
        let positions: [Int32]
        /// Per bucket, how many of its first windows are known broken in the walker's content.
        var broken: [Int32]
    }
    private var wide: Table
    private var narrow: Table
    /// Bits of the wide table's key: about one bucket per window of the document (2^10 to 2^18
    /// buckets), so a short document does not clear and sum a novel's table. Any size finds the same
    /// places: each candidate is checked against the bytes.
    private let wideBits: Int

    init(_ bytes: [UInt8]) {
        original = bytes
        let bits = Self.wideBits(for: bytes.count)
        wideBits = bits
        wide = Self.table(bytes, gram: 4, buckets: 1 << bits) { Self.wideKey($0, $1, bits) }
        narrow = Self.table(bytes, gram: 2, buckets: 1 << 16, key: Self.narrowKey)
    }

    static func wideBits(for count: Int) -> Int {
        var bits = 10
        while bits < 18 && (1 << bits) < count { bits += 1 }
        return bits
    }

    @inline(__always)
    static func wideKey(_ b: UnsafeBufferPointer<UInt8>, _ i: Int, _ bits: Int) -> Int {
        let v = UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
        return Int((v &* 0x9E37_79B1) >> UInt32(32 - bits))
    }

    @inline(__always)
    static func narrowKey(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 }

    static func table(_ bytes: [UInt8], gram: Int, buckets: Int,
                      key: (UnsafeBufferPointer<UInt8>, Int) -> Int) -> Table {
        var starts = [Int32](repeating: 0, count: buckets + 1)
        guard bytes.count >= gram, bytes.count < Int(Int32.max) else {
            return Table(gram: gram, starts: starts, positions: [], broken: [])
        }
        let windows = bytes.count - gram + 1
        var positions = [Int32](repeating: 0, count: windows)
        bytes.withUnsafeBufferPointer { b in
            for i in 0..<windows { starts[key(b, i) + 1] += 1 }
            for h in 0..<buckets { starts[h + 1] += starts[h] }
            var next = starts
            for i in 0..<windows {
                let h = key(b, i)
                positions[Int(next[h])] = Int32(i)
                next[h] += 1
            }
        }
        return Table(gram: gram, starts: starts, positions: positions, broken: [Int32](repeating: 0, count: buckets))
    }

    /// Whether `first` answers for this needle and document: one of the indexed length, a needle of
    /// two bytes or more without a mask byte (`@` or `#`).
    func covers(_ needle: [UInt8], in hay: [UInt8]) -> Bool {
        hay.count == count && count < Int(Int32.max) && needle.count >= 2 && !needle.contains(64) && !needle.contains(35)
    }

    /// Go's `strings.Index(hay[from:], needle) + from`, for a `hay` that is the indexed document with
    /// some bytes masked (`covers` must hold); nil when it does not occur.
    /// - Parameters:
    ///   - known: `hay` is the walker's content, or was made from it by more masks since it was last
    ///     searched with `learn`: windows known broken there are broken in `hay`.
    ///   - learn: `hay` is the walker's content itself: windows found broken are remembered.
    mutating func first(_ needle: [UInt8], in hay: [UInt8], from: Int = 0, known: Bool = false, learn: Bool = false) -> Int? {
        if needle.count >= 4 {
            let bits = wideBits
            return Self.search(&wide, needle, hay, original, from: from, known: known, learn: learn) { Self.wideKey($0, $1, bits) }
        }
        return Self.search(&narrow, needle, hay, original, from: from, known: known, learn: learn, key: Self.narrowKey)
    }

    private static func search(_ t: inout Table, _ needle: [UInt8], _ hay: [UInt8], _ original: [UInt8], from: Int,
                               known: Bool, learn: Bool, key: (UnsafeBufferPointer<UInt8>, Int) -> Int) -> Int? {
        let q = t.gram, m = needle.count
        let known = known || learn
        guard !t.positions.isEmpty, m >= q else { return nil }
        return needle.withUnsafeBufferPointer { n -> Int? in
            // The needle's window with the fewest places left to look at.
            var best = 0, bestKey = 0, fewest = Int32.max
            for k in 0...(m - q) {
                let h = key(n, k)
                let size = t.starts[h + 1] - t.starts[h] - (known ? t.broken[h] : 0)
                if size < fewest { fewest = size; best = k; bestKey = h; if size == 0 { return nil } }
            }
            let h = bestKey
            return hay.withUnsafeBufferPointer { b -> Int? in
                original.withUnsafeBufferPointer { o -> Int? in
                    guard let hb = b.baseAddress, let nb = n.baseAddress, let ob = o.baseAddress else { return nil }
                    var j = Int(t.starts[h]) + (known ? Int(t.broken[h]) : 0)
                    let end = Int(t.starts[h + 1])
                    var leading = learn
                    while j < end {
                        let p = Int(t.positions[j])
                        j += 1
                        // A window with a masked byte: broken for good in the walker's content.
                        if memcmp(hb + p, ob + p, q) != 0 {
                            if leading { t.broken[h] += 1 }
                            continue
                        }
                        leading = false
                        let s = p - best
                        if s < from { continue }
                        if s + m > b.count { return nil }
                        if memcmp(hb + s, nb, m) == 0 { return s }
                    }
                    return nil
                }
            }
        }
    }
}
