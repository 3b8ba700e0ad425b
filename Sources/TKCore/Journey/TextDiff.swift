/// The byte-level differences between two versions of a document, used to follow passages as the
/// text around them moves. Pure.
///
/// Lines are compared first (Myers, `SequenceDiff`), then each changed run of lines
/// is narrowed to the bytes that really differ, on UTF-8 character boundaries.
public struct TextDiff: Sendable, Equatable {
    /// One changed region: the bytes `old` of the previous version became the bytes `new`.
    public struct Hunk: Sendable, Equatable {
        public var old: Range<Int>
        public var new: Range<Int>
        public init(old: Range<Int>, new: Range<Int>) { self.old = old; self.new = new }
        var delta: Int { new.count - old.count }
    }

    /// The changed regions, in document order, not overlapping.
    public let hunks: [Hunk]

    public init(hunks: [Hunk]) { self.hunks = hunks }

    /// Above this many lines (either version) the diff is one region between the common prefix and suffix.
    static let maxLines = 40_000

    /// Computes the differences from `old` to `new`.
    public init(old: [UInt8], new: [UInt8]) {
        if old == new {
            hunks = []
            return
        }
        let oldStarts = Self.lineStarts(old)
        let newStarts = Self.lineStarts(new)
        let oldLines = oldStarts.count - 1
        let newLines = newStarts.count - 1
        if oldLines > Self.maxLines || newLines > Self.maxLines {
            hunks = [Self.narrow(old: old, new: new, 0..<old.count, 0..<new.count)].compactMap { $0 }
            return
        }
        func oldLine(_ k: Int) -> ArraySlice<UInt8> { old[oldStarts[k]..<oldStarts[k + 1]] }
        func newLine(_ k: Int) -> ArraySlice<UInt8> { new[newStarts[k]..<newStarts[k + 1]] }
        // Equal lines at both ends need no diff (the usual save changes a few lines in the middle).
        var head = 0
        while head < oldLines, head < newLines, oldLine(head) == newLine(head) { head += 1 }
        var tail = 0
        while tail < oldLines - head, tail < newLines - head, oldLine(oldLines - 1 - tail) == newLine(newLines - 1 - tail) { tail += 1 }
        let a = (head..<(oldLines - tail)).map(oldLine)
        let b = (head..<(newLines - tail)).map(newLine)
        let middle = SequenceDiff.changed(a, b)
        let removed = [Bool](repeating: false, count: head) + middle.removed + [Bool](repeating: false, count: tail)
        let inserted = [Bool](repeating: false, count: head) + middle.inserted + [Bool](repeating: false, count: tail)
        var out: [Hunk] = []
        var i = 0
        var j = 0
        while i < oldLines || j < newLines {
            let iChanged = i < oldLines && removed[i]
            let jChanged = j < newLines && inserted[j]
            if !iChanged && !jChanged {
                i += 1
                j += 1
                continue
            }
            let i0 = i
            let j0 = j
            while (i < oldLines && removed[i]) || (j < newLines && inserted[j]) {
                while i < oldLines && removed[i] { i += 1 }
                while j < newLines && inserted[j] { j += 1 }
            }
            if let h = Self.narrow(old: old, new: new, oldStarts[i0]..<oldStarts[i], newStarts[j0]..<newStarts[j]) {
                out += Self.refine(old: old, new: new, h)
            }
        }
        hunks = out
    }

    /// Byte offsets where each line starts, plus the end of the text (a final line without `\n` counts).
    static func lineStarts(_ bytes: [UInt8]) -> [Int] {
        var starts = [0]
        for (k, b) in bytes.enumerated() where b == 10 { starts.append(k + 1) }
        if starts.last != bytes.count { starts.append(bytes.count) }
        return starts
    }

    /// Drops the common prefix and suffix of two regions, keeping the cuts on character boundaries.
    static func narrow(old: [UInt8], new: [UInt8], _ ro: Range<Int>, _ rn: Range<Int>) -> Hunk? {
        var lo = ro.lowerBound
        var ln = rn.lowerBound
        while lo < ro.upperBound, ln < rn.upperBound, old[lo] == new[ln] { lo += 1; ln += 1 }
        while lo > ro.lowerBound, ln > rn.lowerBound, isContinuation(old, lo) || isContinuation(new, ln) { lo -= 1; ln -= 1 }
        var ho = ro.upperBound
        var hn = rn.upperBound
        while ho > lo, hn > ln, old[ho - 1] == new[hn - 1] { ho -= 1; hn -= 1 }
        while ho < ro.upperBound, hn < rn.upperBound, isContinuation(old, ho) || isContinuation(new, hn) { ho += 1; hn += 1 }
        if lo == ho && ln == hn { return nil }
        return Hunk(old: lo..<ho, new: ln..<hn)
    }

    /// Above this many words (either side) a changed region is not split further.
    static let maxRefineTokens = 4_000

    /// Splits a changed region into the words that really changed, so that two edits far apart in one
    /// paragraph do not swallow the untouched passage between them.
    static func refine(old: [UInt8], new: [UInt8], _ h: Hunk) -> [Hunk] {
        let a = tokens(old, h.old)
        let b = tokens(new, h.new)
        guard a.count > 1 || b.count > 1, a.count <= maxRefineTokens, b.count <= maxRefineTokens else { return [h] }
        let aw = a.map { old[$0] }
        let bw = b.map { new[$0] }
        let (removed, inserted) = SequenceDiff.changed(aw, bw)
        func oldPos(_ k: Int) -> Int { k < a.count ? a[k].lowerBound : h.old.upperBound }
        func newPos(_ k: Int) -> Int { k < b.count ? b[k].lowerBound : h.new.upperBound }
        var out: [Hunk] = []
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if !(i < a.count && removed[i]) && !(j < b.count && inserted[j]) {
                i += 1
                j += 1
                continue
            }
            let i0 = i
            let j0 = j
            while (i < a.count && removed[i]) || (j < b.count && inserted[j]) {
                while i < a.count && removed[i] { i += 1 }
                while j < b.count && inserted[j] { j += 1 }
            }
            if let sub = narrow(old: old, new: new, oldPos(i0)..<oldPos(i), newPos(j0)..<newPos(j)) { out.append(sub) }
        }
        return out.isEmpty ? [h] : out
    }

    /// Words and the runs of spaces between them, as byte ranges covering `r`.
    static func tokens(_ bytes: [UInt8], _ r: Range<Int>) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var k = r.lowerBound
        while k < r.upperBound {
            let space = isSpace(bytes[k])
            var e = k + 1
            while e < r.upperBound, isSpace(bytes[e]) == space { e += 1 }
            out.append(k..<e)
            k = e
        }
        return out
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 32 || b == 10 || b == 9 || b == 13 }

    private static func isContinuation(_ b: [UInt8], _ i: Int) -> Bool { i < b.count && b[i] & 0xC0 == 0x80 }

    /// Where a passage of the old version stands in the new one.
    public enum Mapping: Sendable, Equatable {
        /// No change touches the passage (or meets it): it moved to this range, unchanged.
        case untouched(Range<Int>)
        /// Changes touch or meet the passage; `region` is the new text from the first to the last of them
        /// (covering the passage), `inside` whether a change falls inside the passage itself. When none
        /// does, `shifted` is where the unchanged passage now stands.
        case changed(region: Range<Int>, inside: Bool, shifted: Range<Int>)
    }

    /// Follows the old range `r` into the new version.
    public func map(_ r: Range<Int>) -> Mapping {
        var before = 0
        var first: Hunk?
        var last: Hunk?
        var inside = false
        var meetDelta = 0
        var preDelta = 0
        for h in hunks {
            let meets = h.old.lowerBound <= r.upperBound && h.old.upperBound >= r.lowerBound
            if meets {
                meetDelta += h.delta
                if h.old.upperBound <= r.lowerBound { preDelta += h.delta }
                if first == nil { first = h }
                last = h
                if h.old.isEmpty {
                    if h.old.lowerBound > r.lowerBound && h.old.lowerBound < r.upperBound { inside = true }
                } else if h.old.lowerBound < r.upperBound && h.old.upperBound > r.lowerBound {
                    inside = true
                }
            } else if h.old.upperBound <= r.lowerBound {
                before += h.delta
            }
        }
        guard let first, let last else {
            return .untouched((r.lowerBound + before)..<(r.upperBound + before))
        }
        let start = min(first.new.lowerBound, r.lowerBound + before)
        let end = max(last.new.upperBound, r.upperBound + before + meetDelta)
        let shift = before + preDelta
        return .changed(region: start..<end, inside: inside, shifted: (r.lowerBound + shift)..<(r.upperBound + shift))
    }
}
