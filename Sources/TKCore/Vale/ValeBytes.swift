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
        guard let i = index(src, sub) else { return src }
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
