/// Maps UTF-8 byte offsets of a document to 1-based lines and 1-based Unicode-scalar columns.
///
/// Built once per document (one pass over the bytes); each lookup is a binary search over the
/// line starts plus a scan of the bytes before the offset on its line.
public struct LineIndex: Sendable {
    /// Byte offset where each line starts; `lineStarts[0] == 0`.
    public let lineStarts: [Int]
    private let bytes: [UInt8]

    /// Indexes the line starts of `bytes` (lines end at `\n`; a `\r` before it belongs to the line).
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var starts = [0]
        starts.reserveCapacity(bytes.count / 40 + 1)
        bytes.withUnsafeBufferPointer { buf in
            for i in 0..<buf.count where buf[i] == 10 { starts.append(i + 1) }
        }
        lineStarts = starts
    }

    /// The number of lines (a trailing newline starts an empty last line).
    public var lineCount: Int { lineStarts.count }

    /// The 0-based line index containing byte `offset` (clamped to the document).
    public func lineIndex(ofByte offset: Int) -> Int {
        let o = max(0, min(offset, bytes.count))
        var lo = 0
        var hi = lineStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lineStarts[mid] <= o { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    /// The byte offset where 1-based `line` starts, or nil when there is no such line.
    public func startOfLine(_ line: Int) -> Int? {
        guard line >= 1, line <= lineStarts.count else { return nil }
        return lineStarts[line - 1]
    }

    /// The byte offset where 1-based `line` ends, before its `\n` (and a `\r` before that).
    public func endOfLine(_ line: Int) -> Int? {
        guard line >= 1, line <= lineStarts.count else { return nil }
        var end = line < lineStarts.count ? lineStarts[line] - 1 : bytes.count
        if end > lineStarts[line - 1], end - 1 < bytes.count, bytes[end - 1] == 13 { end -= 1 }
        return end
    }

    /// The 1-based line and 1-based column (in Unicode scalars) of byte `offset`.
    public func position(ofByte offset: Int) -> (line: Int, column: Int) {
        let o = max(0, min(offset, bytes.count))
        let li = lineIndex(ofByte: o)
        var column = 1
        bytes.withUnsafeBufferPointer { buf in
            var i = lineStarts[li]
            while i < o {
                if buf[i] & 0xC0 != 0x80 { column += 1 }
                i += 1
            }
        }
        return (li + 1, column)
    }

    /// Positions of ascending offsets in one pass: each query continues the column count from the
    /// last one on the same line, so a thousand findings on one 1 MB line cost one scan of it, not
    /// a thousand (`position(ofByte:)` scans from the start of the line every time).
    public struct Cursor {
        let index: LineIndex
        var line = -1
        var byte = 0
        var column = 1

        public mutating func position(ofByte offset: Int) -> (line: Int, column: Int) {
            let o = max(0, min(offset, index.bytes.count))
            let li = index.lineIndex(ofByte: o)
            if li != line || o < byte {
                line = li
                byte = index.lineStarts[li]
                column = 1
            }
            index.bytes.withUnsafeBufferPointer { buf in
                while byte < o {
                    if buf[byte] & 0xC0 != 0x80 { column += 1 }
                    byte += 1
                }
            }
            return (li + 1, column)
        }
    }

    public func cursor() -> Cursor { Cursor(index: self) }
}

