/// How LSP positions count characters on a line: UTF-16 code units (the protocol's default) or
/// UTF-8 bytes (when the client offers `utf-8` in `general.positionEncodings`).
public enum LSPPositionEncoding: String, Sendable {
    case utf8 = "utf-8"
    case utf16 = "utf-16"
}

/// An LSP position: 0-based line, 0-based character in the negotiated encoding.
public struct LSPPosition: Sendable, Hashable, Comparable {
    public var line: Int
    public var character: Int
    public init(line: Int, character: Int) { self.line = line; self.character = character }

    public static func < (a: LSPPosition, b: LSPPosition) -> Bool {
        a.line != b.line ? a.line < b.line : a.character < b.character
    }

    public var json: JSONValue { ["line": .int(line), "character": .int(character)] }

    public init?(json: JSONValue?) {
        guard let l = json?["line"]?.intValue, let c = json?["character"]?.intValue, l >= 0, c >= 0 else { return nil }
        line = l; character = c
    }
}

public struct LSPRange: Sendable, Hashable {
    public var start: LSPPosition
    public var end: LSPPosition
    public init(start: LSPPosition, end: LSPPosition) { self.start = start; self.end = end }
    public var json: JSONValue { ["start": start.json, "end": end.json] }

    public init?(json: JSONValue?) {
        guard let s = LSPPosition(json: json?["start"]), let e = LSPPosition(json: json?["end"]) else { return nil }
        start = s; end = e
    }

    /// Whether the two ranges share a position (touching counts).
    public func overlaps(_ o: LSPRange) -> Bool { !(end < o.start || o.end < start) }
}

/// The text of an open document as UTF-8 bytes, with its line starts, converting between byte
/// offsets and LSP positions and applying incremental edits.
public struct LSPTextBuffer: Sendable {
    public private(set) var bytes: [UInt8]
    /// Byte offset where each line starts; `lineStarts[0] == 0`.
    public private(set) var lineStarts: [Int]

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        lineStarts = Self.lines(bytes)
    }

    public init(_ text: String) { self.init(Array(text.utf8)) }

    static func lines(_ bytes: [UInt8]) -> [Int] {
        var starts = [0]
        starts.reserveCapacity(bytes.count / 40 + 1)
        bytes.withUnsafeBufferPointer { p in
            for i in 0..<p.count where p[i] == 10 { starts.append(i + 1) }
        }
        return starts
    }

    /// The byte offset of a position. A character past the end of its line means the line's end;
    /// a line past the end means the end of the text; a position inside a UTF-8 sequence (or between
    /// the halves of a surrogate pair) moves to the character's end.
    public func offset(of pos: LSPPosition, encoding: LSPPositionEncoding) -> Int {
        guard pos.line < lineStarts.count else { return bytes.count }
        let start = lineStarts[pos.line]
        var end = pos.line + 1 < lineStarts.count ? lineStarts[pos.line + 1] - 1 : bytes.count
        if end > start, bytes[end - 1] == 13, pos.line + 1 < lineStarts.count { end -= 1 }
        var units = 0
        var i = start
        while i < end, units < pos.character {
            let b = bytes[i]
            let len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4
            switch encoding {
            case .utf8: units += min(len, end - i)
            case .utf16: units += len == 4 ? 2 : 1
            }
            i = min(end, i + len)
        }
        return i
    }

    /// The position of a byte offset (clamped to the text; an offset inside a UTF-8 sequence counts
    /// from the sequence's start).
    public func position(ofByte offset: Int, encoding: LSPPositionEncoding) -> LSPPosition {
        let o = max(0, min(offset, bytes.count))
        var lo = 0, hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= o { lo = mid } else { hi = mid - 1 }
        }
        let start = lineStarts[lo]
        switch encoding {
        case .utf8:
            return LSPPosition(line: lo, character: o - start)
        case .utf16:
            var units = 0
            var i = start
            while i < o {
                let b = bytes[i]
                if b & 0xC0 != 0x80 { units += b >= 0xF0 ? 2 : 1 }
                i += 1
            }
            return LSPPosition(line: lo, character: units)
        }
    }

    /// Ranges of a run of byte offsets that mostly increase (a document's findings in order): each
    /// start is counted on from the previous one when it is on the same line or later, each end from
    /// its start, instead of from the line's start (long paragraphs are single lines).
    public struct RangeCursor {
        let buffer: LSPTextBuffer
        let encoding: LSPPositionEncoding
        var line = 0
        var byte = 0
        var units = 0

        public init(_ buffer: LSPTextBuffer, encoding: LSPPositionEncoding) {
            self.buffer = buffer
            self.encoding = encoding
        }

        public mutating func range(_ r: Range<Int>) -> LSPRange {
            let n = buffer.bytes.count
            let lo = max(0, min(r.lowerBound, n)), hi = max(lo, min(r.upperBound, n))
            let starts = buffer.lineStarts
            if lo < byte {
                let p = buffer.position(ofByte: lo, encoding: encoding)
                line = p.line; byte = lo; units = p.character
            } else {
                var moved = false
                while line + 1 < starts.count, starts[line + 1] <= lo { line += 1; moved = true }
                if moved { byte = starts[line]; units = 0 }
                units += count(from: byte, to: lo)
                byte = lo
            }
            let start = LSPPosition(line: line, character: units)
            // The end, walked on from the start (spans are short).
            var endLine = line, endUnits = units, i = lo
            while i < hi {
                if buffer.bytes[i] == 10 {
                    endLine += 1; endUnits = 0; i += 1
                    continue
                }
                var j = i
                while j < hi, buffer.bytes[j] != 10 { j += 1 }
                endUnits += count(from: i, to: j)
                i = j
            }
            return LSPRange(start: start, end: LSPPosition(line: endLine, character: endUnits))
        }

        /// Units of `bytes[from..<to]` (no newline inside), as `position(ofByte:encoding:)` counts them.
        private func count(from: Int, to: Int) -> Int {
            switch encoding {
            case .utf8:
                return to - from
            case .utf16:
                var units = 0
                for i in from..<to {
                    let b = buffer.bytes[i]
                    if b & 0xC0 != 0x80 { units += b >= 0xF0 ? 2 : 1 }
                }
                return units
            }
        }
    }

    public func range(_ r: Range<Int>, encoding: LSPPositionEncoding) -> LSPRange {
        LSPRange(start: position(ofByte: r.lowerBound, encoding: encoding),
                 end: position(ofByte: r.upperBound, encoding: encoding))
    }

    public func byteRange(_ r: LSPRange, encoding: LSPPositionEncoding) -> Range<Int> {
        let s = offset(of: r.start, encoding: encoding)
        let e = offset(of: r.end, encoding: encoding)
        return min(s, e)..<max(s, e)
    }

    /// Replaces a range given in LSP positions (an incremental `didChange`).
    public mutating func apply(range: LSPRange, text: String, encoding: LSPPositionEncoding) {
        replace(byteRange(range, encoding: encoding), with: Array(text.utf8))
    }

    /// Replaces bytes and updates the line starts of the lines after the edit only.
    public mutating func replace(_ r: Range<Int>, with new: [UInt8]) {
        let lo = max(0, min(r.lowerBound, bytes.count)), hi = max(lo, min(r.upperBound, bytes.count))
        bytes.replaceSubrange(lo..<hi, with: new)
        let delta = new.count - (hi - lo)
        // Lines starting at or before `lo` are unchanged; those after `hi` shift by `delta`.
        var first = lineStarts.count
        var l = 0, h = lineStarts.count
        while l < h {
            let m = (l + h) / 2
            if lineStarts[m] > lo { h = m } else { l = m + 1 }
        }
        first = l
        var tail: [Int] = []
        var k = first
        while k < lineStarts.count, lineStarts[k] <= hi { k += 1 }
        tail.reserveCapacity(lineStarts.count - k + 4)
        for (i, b) in new.enumerated() where b == 10 { tail.append(lo + i + 1) }
        for j in k..<lineStarts.count { tail.append(lineStarts[j] + delta) }
        lineStarts.replaceSubrange(first..<lineStarts.count, with: tail)
    }
}
