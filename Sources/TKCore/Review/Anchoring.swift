import Foundation
import Synchronization

/// How a passage was found in the document.
public enum AnchorMethod: String, Sendable, Equatable, Comparable, CaseIterable {
    /// The same bytes.
    case exact
    /// Ignoring case, typographic quotes, dashes and ellipses, and Unicode normalisation (NFC/NFD).
    case ignoringCase = "ignoring_case"
    /// As above, and every run of whitespace (including line breaks) counts as one space.
    case ignoringWhitespace = "ignoring_whitespace"
    /// Only the start of the passage matched (at least 20 characters or about 40% of it).
    case prefix

    private var rank: Int { Self.allCases.firstIndex(of: self) ?? 0 }
    public static func < (a: AnchorMethod, b: AnchorMethod) -> Bool { a.rank < b.rank }
}

/// Where a passage stands in the document.
public struct AnchorMatch: Sendable, Equatable {
    /// UTF-8 byte offsets into the document, half-open.
    public var range: Range<Int>
    public var method: AnchorMethod
}

/// Finds passages quoted by a model in a document's bytes. Pure.
public enum Anchoring {
    /// The byte range of `original` in the document: exact, then ignoring case, then ignoring runs of
    /// whitespace, then by prefix.
    /// - Parameters:
    ///   - hint: a byte offset; when the passage occurs several times, the occurrence starting closest to it wins
    ///     (else the first).
    ///   - excluding: ranges a passage may not overlap (front matter, code).
    public static func anchor(original: String, in documentBytes: [UInt8], near hint: Int?,
                              excluding: [Range<Int>] = []) -> Range<Int>? {
        Anchorer(document: documentBytes, excluded: excluding).anchor(original, near: hint)?.range
    }

    /// The byte range of YAML front matter: a first line `---` up to and including the closing `---` or `...` line.
    public static func frontMatterRange(_ bytes: [UInt8]) -> Range<Int>? {
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        guard bytes.count >= i + 3, bytes[i] == 45, bytes[i + 1] == 45, bytes[i + 2] == 45 else { return nil }
        i += 3
        while i < bytes.count, bytes[i] == 32 || bytes[i] == 9 || bytes[i] == 13 { i += 1 }
        guard i < bytes.count, bytes[i] == 10 else { return nil }
        i += 1
        while i < bytes.count {
            var lineEnd = i
            while lineEnd < bytes.count, bytes[lineEnd] != 10 { lineEnd += 1 }
            var content = bytes[i..<lineEnd]
            while let last = content.last, last == 32 || last == 9 || last == 13 { content = content.dropLast() }
            if content.elementsEqual([45, 45, 45]) || content.elementsEqual([46, 46, 46]) {
                return 0..<min(bytes.count, lineEnd + 1)
            }
            i = lineEnd + 1
        }
        return nil
    }

    /// The 1-based line and the 1-based column (in Unicode scalars) of a byte offset.
    public static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        let end = min(max(0, offset), bytes.count)
        var line = 1
        var column = 1
        var i = 0
        while i < end {
            let b = bytes[i]
            if b == 10 {
                line += 1
                column = 1
            } else if b & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return (line, column)
    }
}

/// Finds passages in one document; build once and anchor many suggestions (the folded views are built lazily).
public struct Anchorer: Sendable {
    public let bytes: [UInt8]
    public let excluded: [Range<Int>]
    private let views: Views

    public init(document: [UInt8], excluded: [Range<Int>] = []) {
        self.bytes = document
        self.excluded = excluded
        self.views = Views(document)
    }

    /// Finds a passage, preferring occurrences that do not overlap `avoiding` (passages already taken by other
    /// suggestions), then the one closest to `hint`.
    public func anchor(_ original: String, near hint: Int? = nil, avoiding: [Range<Int>] = []) -> AnchorMatch? {
        let trimmed = original.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return nil }
        // 1. Exact bytes (as given, then trimmed).
        for candidate in Set([original, trimmed]).sorted(by: { $0.utf8.count > $1.utf8.count }) {
            let needle = Array(candidate.utf8)
            let found = Search.occurrences(of: needle, in: bytes).map { $0..<($0 + needle.count) }
            if let r = choose(found, hint: hint, avoiding: avoiding) { return AnchorMatch(range: r, method: .exact) }
        }
        // 2. Ignoring case and typography.
        let folded = views.folded
        let foldedNeedle = Fold.units(trimmed, collapse: false)
        if !foldedNeedle.isEmpty {
            let found = Search.occurrences(of: foldedNeedle, in: folded.units).map { folded.byteRange($0..<($0 + foldedNeedle.count)) }
            if let r = choose(found, hint: hint, avoiding: avoiding) { return AnchorMatch(range: r, method: .ignoringCase) }
        }
        // 3. Ignoring runs of whitespace.
        let collapsed = views.collapsed
        let needle = Fold.units(trimmed, collapse: true)
        if needle.isEmpty { return nil }
        let found = Search.occurrences(of: needle, in: collapsed.units).map { collapsed.byteRange($0..<($0 + needle.count)) }
        if let r = choose(found, hint: hint, avoiding: avoiding) { return AnchorMatch(range: r, method: .ignoringWhitespace) }
        // 4. By prefix.
        let prefixLength = max(20, Int((Double(needle.count) * 0.4).rounded(.up)))
        guard prefixLength < needle.count else { return nil }
        let starts = Search.occurrences(of: Array(needle[0..<prefixLength]), in: collapsed.units)
        let ranges = starts.map { prefixMatchEnd(start: $0, needle: needle, prefixLength: prefixLength, view: collapsed) }
        if let r = choose(ranges, hint: hint, avoiding: avoiding) { return AnchorMatch(range: r, method: .prefix) }
        return nil
    }

    /// The byte range of a prefix match: up to where the needle's ending reappears nearby, else about the
    /// needle's length, never past a blank line, ending at the end of a word.
    private func prefixMatchEnd(start: Int, needle: [UInt32], prefixLength: Int, view: FoldedView) -> Range<Int> {
        let hay = view.units
        var k = prefixLength
        while start + k < hay.count, k < needle.count, hay[start + k] == needle[k] { k += 1 }
        var endUnit = start + k
        let rest = needle.count - k
        if rest > 0 {
            let suffixLength = min(rest, max(8, needle.count / 4))
            let suffix = Array(needle[(needle.count - suffixLength)...])
            let windowEnd = min(hay.count, start + needle.count + needle.count / 2 + 40)
            if start + k < windowEnd,
               let q = Search.occurrences(of: suffix, in: Array(hay[(start + k)..<windowEnd])).first {
                endUnit = start + k + q + suffixLength
            } else {
                endUnit = min(hay.count, start + needle.count)
                while endUnit < hay.count, Fold.isWordUnit(hay[endUnit]), endUnit > start, Fold.isWordUnit(hay[endUnit - 1]) {
                    endUnit += 1
                }
            }
        }
        var range = view.byteRange(start..<max(start + 1, endUnit))
        // Never run past the end of the paragraph.
        if let blank = blankLine(in: range) { range = range.lowerBound..<blank }
        while range.count > 1, [32, 10, 9, 13].contains(bytes[range.upperBound - 1]) {
            range = range.lowerBound..<(range.upperBound - 1)
        }
        return range
    }

    /// The offset of the first `\n` that ends a paragraph (followed by an empty or blank line) inside the range.
    private func blankLine(in range: Range<Int>) -> Int? {
        var i = range.lowerBound
        while i < range.upperBound {
            if bytes[i] == 10 {
                var j = i + 1
                while j < bytes.count, bytes[j] == 32 || bytes[j] == 9 || bytes[j] == 13 { j += 1 }
                if j < bytes.count, bytes[j] == 10 { return i }
            }
            i += 1
        }
        return nil
    }

    private func choose(_ ranges: [Range<Int>], hint: Int?, avoiding: [Range<Int>]) -> Range<Int>? {
        let allowed = ranges.filter { r in !excluded.contains { $0.overlaps(r) } && !r.isEmpty }
        if allowed.isEmpty { return nil }
        let free = allowed.filter { r in !avoiding.contains { $0.overlaps(r) } }
        let pool = free.isEmpty ? allowed : free
        guard let hint else { return pool[0] }
        return pool.min { abs($0.lowerBound - hint) < abs($1.lowerBound - hint) } ?? pool[0]
    }

    /// The folded views of the document, built on first use and shared by copies of the anchorer.
    private final class Views: Sendable {
        private let bytes: [UInt8]
        private let cache = Mutex<(folded: FoldedView, collapsed: FoldedView)?>(nil)
        init(_ bytes: [UInt8]) { self.bytes = bytes }
        private func built() -> (folded: FoldedView, collapsed: FoldedView) {
            cache.withLock { c in
                if let c { return c }
                let built = (folded: FoldedView(bytes: bytes, collapse: false), collapsed: FoldedView(bytes: bytes, collapse: true))
                c = built
                return built
            }
        }
        var folded: FoldedView { built().folded }
        var collapsed: FoldedView { built().collapsed }
    }
}

/// The document as folded units, each pointing back to the bytes of the scalar it came from.
struct FoldedView: Sendable {
    var units: [UInt32] = []
    var starts: [Int] = []
    var ends: [Int] = []

    init(bytes: [UInt8], collapse: Bool) {
        units.reserveCapacity(bytes.count)
        starts.reserveCapacity(bytes.count)
        ends.reserveCapacity(bytes.count)
        var i = 0
        var inSpace = false
        while i < bytes.count {
            let (scalar, length) = UTF8Decoding.scalar(in: bytes, at: i)
            let folded = Fold.fold(scalar)
            if collapse, folded.count == 1, folded[0] == 32 || Fold.isSpace(scalar) {
                if inSpace, let last = ends.indices.last {
                    ends[last] = i + length
                } else {
                    units.append(32); starts.append(i); ends.append(i + length)
                }
                inSpace = true
            } else {
                for u in folded {
                    units.append(u); starts.append(i); ends.append(i + length)
                }
                if !folded.isEmpty { inSpace = false }
            }
            i += length
        }
    }

    /// The bytes covered by a range of units.
    func byteRange(_ r: Range<Int>) -> Range<Int> {
        guard !r.isEmpty, r.lowerBound < starts.count else { return 0..<0 }
        return starts[r.lowerBound]..<ends[min(r.upperBound, ends.count) - 1]
    }
}

/// Case and typography folding of single scalars.
enum Fold {
    /// A passage as folded units (`collapse`: whitespace runs as one space, trimmed).
    static func units(_ s: String, collapse: Bool) -> [UInt32] {
        let view = FoldedView(bytes: Array(s.utf8), collapse: collapse)
        var u = view.units
        if collapse {
            while u.first == 32 { u.removeFirst() }
            while u.last == 32 { u.removeLast() }
        }
        return u
    }

    static func isSpace(_ s: Unicode.Scalar) -> Bool {
        s.properties.isWhitespace
    }

    static func isWordUnit(_ u: UInt32) -> Bool {
        guard let s = Unicode.Scalar(u) else { return false }
        return s.properties.isAlphabetic || s.properties.numericType != nil || s.properties.generalCategory == .nonspacingMark
    }

    /// A scalar folded: lower case, canonical decomposition, quotes/dashes/ellipsis/spaces made plain,
    /// invisible characters dropped.
    static func fold(_ s: Unicode.Scalar) -> [UInt32] {
        let v = s.value
        if v < 0x80 {
            if v >= 65 && v <= 90 { return [v + 32] }
            if v == 9 || v == 10 || v == 13 { return [32] }
            return [v]
        }
        switch v {
        case 0x2018, 0x2019, 0x201A, 0x201B, 0x2032, 0x02BC, 0x2035: return [39]
        case 0x201C, 0x201D, 0x201E, 0x201F, 0x2033, 0x00AB, 0x00BB, 0x2036: return [34]
        case 0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0x2212: return [45]
        case 0x2026: return [46, 46, 46]
        case 0x00AD, 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF: return []
        default: break
        }
        if s.properties.isWhitespace { return [32] }
        let str = String(Character(s))
        let mapped = str.decomposedStringWithCanonicalMapping.lowercased()
        return mapped.unicodeScalars.map(\.value)
    }
}

/// Decoding UTF-8 one scalar at a time, keeping byte lengths exact even for invalid input.
enum UTF8Decoding {
    /// The scalar at `i` and its length in bytes; an invalid byte is U+FFFD of length 1.
    static func scalar(in b: [UInt8], at i: Int) -> (Unicode.Scalar, Int) {
        let replacement = Unicode.Scalar(0xFFFD)!
        let b0 = b[i]
        if b0 < 0x80 { return (Unicode.Scalar(b0), 1) }
        let length: Int
        var value: UInt32
        switch b0 {
        case 0xC2...0xDF: length = 2; value = UInt32(b0 & 0x1F)
        case 0xE0...0xEF: length = 3; value = UInt32(b0 & 0x0F)
        case 0xF0...0xF4: length = 4; value = UInt32(b0 & 0x07)
        default: return (replacement, 1)
        }
        guard i + length <= b.count else { return (replacement, 1) }
        for k in 1..<length {
            let c = b[i + k]
            guard c & 0xC0 == 0x80 else { return (replacement, 1) }
            value = (value << 6) | UInt32(c & 0x3F)
        }
        let minimum: UInt32 = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000
        guard value >= minimum, let s = Unicode.Scalar(value) else { return (replacement, 1) }
        return (s, length)
    }
}

/// Substring search over arrays.
enum Search {
    /// Every start index of `needle` in `hay` (overlapping occurrences included), at most `limit`.
    static func occurrences<T: Equatable>(of needle: [T], in hay: [T], limit: Int = 1000) -> [Int] {
        guard !needle.isEmpty, hay.count >= needle.count else { return [] }
        var out: [Int] = []
        let first = needle[0]
        let last = hay.count - needle.count
        var i = 0
        while i <= last {
            if hay[i] == first {
                var k = 1
                while k < needle.count, hay[i + k] == needle[k] { k += 1 }
                if k == needle.count {
                    out.append(i)
                    if out.count >= limit { break }
                }
            }
            i += 1
        }
        return out
    }
}
