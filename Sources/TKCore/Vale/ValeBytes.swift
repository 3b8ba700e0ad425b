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
                guard let hb = h.baseAddress, let nb = n.baseAddress,
                      let p = memmem(hb + from, h.count - from, nb, n.count) else { return nil }
                return hb.distance(to: UnsafeRawPointer(p))
            }
        }
    }

    static func contains(_ hay: [UInt8], _ needle: [UInt8]) -> Bool { index(hay, needle) != nil }

    /// Go's `strings.Count`.
    static func count(_ hay: [UInt8], _ needle: [UInt8]) -> Int {
        if needle.isEmpty { return runes(hay[...]) + 1 }
        var n = 0, from = 0
        while let i = index(hay, needle, from: from) { n += 1; from = i + needle.count }
        return n
    }

    static func runes(_ s: ArraySlice<UInt8>) -> Int {
        var n = 0
        for b in s where b & 0xC0 != 0x80 { n += 1 }
        return n
    }
    static func runes(_ s: [UInt8]) -> Int { runes(s[...]) }

    /// The walker's `subInplace`: the first `sub` in `ctx` gets its one-byte characters (not newlines) set to `ch`.
    @discardableResult
    static func subInplace(_ ctx: inout [UInt8], _ sub: [UInt8], _ ch: UInt8) -> Bool {
        guard let i = index(ctx, sub) else { return false }
        for j in i..<(i + sub.count) where ctx[j] < 0x80 && ctx[j] != 10 { ctx[j] = ch }
        return true
    }

    /// `core.Substitute`: the first `sub` in `src` becomes one `ch` per character (newlines kept).
    static func substitute(_ src: [UInt8], _ sub: [UInt8], _ ch: UInt8) -> [UInt8] {
        substitute(src, sub, ch, at: index(src, sub))
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

    static func split(_ s: String, _ sep: Character) -> [String] {
        s.split(separator: sep, omittingEmptySubsequences: false).map(String.init)
    }

    /// Go's `strings.Fields`.
    static func fields(_ s: [UInt8]) -> [[UInt8]] {
        String(decoding: s, as: UTF8.self).split(whereSeparator: { $0.isWhitespace }).map { Array($0.utf8) }
    }

    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
    static func str<S: Sequence>(_ b: S) -> String where S.Element == UInt8 { String(decoding: Array(b), as: UTF8.self) }

    static func isWord(_ b: UInt8) -> Bool {
        (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b == 95
    }
}

/// Where a byte string first occurs in a document that only changes by masking — Vale's walker sets
/// the text it has placed to `@`, and each rule's context the matches it has reported to `#` — without
/// scanning from the start each time. Vale looks every block up from the start of the document, and
/// every reported match too: on a whole novel (122,000 words) that was two thirds of a Vale run.
///
/// Exact: a needle without a mask byte can only occur where its bytes are unmasked, that is where the
/// document as indexed holds it. So its occurrences now are among its occurrences then, and those are
/// found from the 4-byte window of the needle that occurs least often; each is checked against the
/// bytes as they are now.
struct ValeGramIndex {
    static let gram = 4
    static let bits = 16
    let count: Int
    /// `positions[starts[h]..<starts[h + 1]]`: where a window hashing to `h` starts, in order.
    private let starts: [Int32]
    private let positions: [Int32]

    init(_ bytes: [UInt8]) {
        count = bytes.count
        let buckets = 1 << Self.bits
        var starts = [Int32](repeating: 0, count: buckets + 1)
        guard bytes.count >= Self.gram, bytes.count < Int(Int32.max) else {
            self.starts = starts
            positions = []
            return
        }
        let windows = bytes.count - Self.gram + 1
        var positions = [Int32](repeating: 0, count: windows)
        bytes.withUnsafeBufferPointer { b in
            for i in 0..<windows { starts[Self.hash(b, i) + 1] += 1 }
            for h in 0..<buckets { starts[h + 1] += starts[h] }
            var next = starts
            for i in 0..<windows {
                let h = Self.hash(b, i)
                positions[Int(next[h])] = Int32(i)
                next[h] += 1
            }
        }
        self.starts = starts
        self.positions = positions
    }

    @inline(__always)
    static func hash(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int {
        let v = UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
        return Int((v &* 0x9E37_79B1) >> UInt32(32 - bits))
    }

    /// Whether `first(_:in:from:)` answers for this needle and document: one of the indexed length,
    /// a needle long enough and without a mask byte (`@` or `#`).
    func covers(_ needle: [UInt8], in hay: [UInt8]) -> Bool {
        hay.count == count && needle.count >= Self.gram && !needle.contains(64) && !needle.contains(35)
    }

    /// Go's `strings.Index(hay[from:], needle) + from`, for a `hay` that is the indexed document with
    /// some bytes masked (`covers` must hold); nil when it does not occur.
    func first(_ needle: [UInt8], in hay: [UInt8], from: Int = 0) -> Int? {
        needle.withUnsafeBufferPointer { n -> Int? in
            let m = n.count
            var best = 0, fewest = Int32.max
            for k in 0...(m - Self.gram) {
                let h = Self.hash(n, k)
                let size = starts[h + 1] - starts[h]
                if size < fewest { fewest = size; best = k; if size == 0 { return nil } }
            }
            let h = Self.hash(n, best)
            return hay.withUnsafeBufferPointer { b -> Int? in
                guard let hb = b.baseAddress, let nb = n.baseAddress else { return nil }
                for j in Int(starts[h])..<Int(starts[h + 1]) {
                    let s = Int(positions[j]) - best
                    if s < from { continue }
                    if s + m > b.count { return nil }
                    if hb[s] == nb[0] && memcmp(hb + s, nb, m) == 0 { return s }
                }
                return nil
            }
        }
    }
}
