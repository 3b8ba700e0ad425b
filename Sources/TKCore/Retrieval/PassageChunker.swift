import Foundation

/// One passage of a document: a run of whole blocks under one heading, with its line range.
public struct PassageChunk: Sendable, Equatable {
    /// 0-based position in the document.
    public var ordinal: Int
    /// 1-based, inclusive.
    public var startLine: Int
    public var endLine: Int
    /// The heading path, outermost first, joined by " > " (empty before the first heading).
    public var heading: String
    /// The passage's lines as in the file.
    public var text: String
    public var words: Int
    /// SHA-256 of the heading path and the text: what an embedding is keyed by.
    public var digest: String
    /// `text` as stored (`PassageText.pack`: compressed here, on the indexer's loading cores).
    public var packed: [UInt8]
    public var packedSize: Int

    public init(ordinal: Int, startLine: Int, endLine: Int, heading: String, text: String, words: Int) {
        self.ordinal = ordinal; self.startLine = startLine; self.endLine = endLine
        self.heading = heading; self.text = text; self.words = words
        self.digest = SHA256Digest.hex(Array((heading + "\n" + text).utf8))
        (self.packed, self.packedSize) = PassageText.pack(text)
    }

    /// What is sent to an embedding model: the heading path, then the text.
    public var embeddingText: String { heading.isEmpty ? text : heading + "\n\n" + text }
}

/// Everything retrieval keeps about one document, computed when the indexer parses it.
public struct PassageSet: Sendable, Equatable {
    public var chunks: [PassageChunk]
    /// `tk: {order: N}` in the front matter: the document's place in the project's reading order.
    public var readingOrder: Double?
    /// `tk: {review: false}`: never sent to a remote embedding provider.
    public var isPrivate: Bool

    public init(chunks: [PassageChunk], readingOrder: Double? = nil, isPrivate: Bool = false) {
        self.chunks = chunks; self.readingOrder = readingOrder; self.isPrivate = isPrivate
    }

    public init(document: MarkdownDocument) {
        self.init(chunks: PassageChunker.split(document),
                  readingOrder: PassageChunker.readingOrder(document),
                  isPrivate: document.frontMatter.tk.review == false)
    }
}

/// Splits markdown into passages along its headings: never across a heading, fenced code blocks
/// kept whole, blocks (paragraphs, lists, code) packed up to `maxWords`.
public enum PassageChunker {
    public static let maxWords = 400
    /// A passage smaller than this is merged into the previous one of the same section when both fit.
    public static let minWords = 60

    public static func split(_ document: MarkdownDocument) -> [PassageChunk] {
        split(bytes: document.bytes, skipping: document.frontMatter.range)
    }

    /// - Parameter skipping: the front matter's byte range (its lines are never part of a passage).
    public static func split(bytes: [UInt8], skipping frontMatter: Range<Int> = 0..<0, maxWords: Int = maxWords) -> [PassageChunk] {
        bytes.withUnsafeBufferPointer { split(buf: $0, skipping: frontMatter, maxWords: maxWords) }
    }

    /// One line's facts, read from its bytes.
    struct LineInfo {
        var start: Int
        /// Before `\n` and a `\r` before it.
        var end: Int
        var indent: Int
        var blank: Bool
    }

    static func split(buf: UnsafeBufferPointer<UInt8>, skipping frontMatter: Range<Int>, maxWords: Int) -> [PassageChunk] {
        var lines: [LineInfo] = []
        lines.reserveCapacity(buf.count / 40 + 1)
        var i = 0
        while i < buf.count {
            let start = i
            while i < buf.count, buf[i] != 10 { i += 1 }
            var end = i
            if end > start, buf[end - 1] == 13 { end -= 1 }
            var k = start
            while k < end, buf[k] == 32 { k += 1 }
            var blank = true
            var m = k
            while m < end { if buf[m] != 32 && buf[m] != 9 { blank = false; break }; m += 1 }
            lines.append(LineInfo(start: start, end: end, indent: k - start, blank: blank))
            i += 1
        }
        var first = 0
        if !frontMatter.isEmpty {
            while first < lines.count, lines[first].start < frontMatter.upperBound { first += 1 }
        }

        func content(_ l: LineInfo) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: buf[(l.start + l.indent)..<l.end])
        }
        struct Block { var start: Int; var end: Int; var words: Int }  // 0-based, inclusive lines
        struct Section { var heading: String; var blocks: [Block] }
        var sections: [Section] = []
        var path: [(level: Int, title: String)] = []
        var current = Section(heading: "", blocks: [])
        var block: Block?
        var fence: (char: UInt8, count: Int)?
        var headingOnly = false

        func flushBlock() {
            if let b = block { current.blocks.append(b); block = nil }
            headingOnly = false
        }
        func extend(_ i: Int, words: Int) {
            if block == nil { block = Block(start: i, end: i, words: 0) }
            block?.end = i
            block?.words += words
        }

        for li in first..<lines.count {
            let line = lines[li]
            let c = content(line)
            if let f = fence {
                extend(li, words: wordCount(c))
                if isFenceClose(c, f) { fence = nil; flushBlock() }
                continue
            }
            if line.indent < 4, let f = fenceOpen(c) {
                flushBlock()
                fence = f
                extend(li, words: wordCount(c))
                continue
            }
            if line.indent < 4, let level = atxLevel(c) {
                flushBlock()
                if !current.blocks.isEmpty { sections.append(current) }
                let title = headingTitle(c, level: level)
                while let last = path.last, last.level >= level { path.removeLast() }
                path.append((level, title))
                current = Section(heading: path.map(\.title).joined(separator: " > "), blocks: [])
                // The heading line starts its section's first block.
                extend(li, words: wordCount(c) - 1)
                headingOnly = true
                continue
            }
            if line.blank {
                // A blank line ends a paragraph; a lone heading line stays with what follows it.
                if block != nil, !headingOnly { flushBlock() }
                continue
            }
            headingOnly = false
            extend(li, words: wordCount(c))
        }
        flushBlock()
        if !current.blocks.isEmpty { sections.append(current) }

        var out: [PassageChunk] = []
        for section in sections {
            var groups: [Block] = []
            for b in section.blocks {
                if var last = groups.last, last.words + b.words <= maxWords {
                    last.end = b.end
                    last.words += b.words
                    groups[groups.count - 1] = last
                } else {
                    groups.append(b)
                }
            }
            // A small tail joins the passage before it when the two fit.
            if groups.count >= 2, let tail = groups.last, tail.words < minWords,
               groups[groups.count - 2].words + tail.words <= maxWords + minWords {
                groups[groups.count - 2].end = tail.end
                groups[groups.count - 2].words += tail.words
                groups.removeLast()
            }
            for g in groups {
                // A heading with nothing under it (a chapter heading right before its first section).
                if g.start == g.end, lines[g.start].indent < 4, atxLevel(content(lines[g.start])) != nil { continue }
                if (g.start...g.end).allSatisfy({ lines[$0].blank }) { continue }
                let text = String(decoding: UnsafeBufferPointer(rebasing: buf[lines[g.start].start..<lines[g.end].end]), as: UTF8.self)
                out.append(PassageChunk(ordinal: out.count, startLine: g.start + 1, endLine: g.end + 1,
                                        heading: section.heading, text: text, words: g.words))
            }
        }
        return out
    }

    /// `tk: {order: N}`, from the document's parsed front matter.
    public static func readingOrder(_ document: MarkdownDocument) -> Double? { document.frontMatter.tk.order }

    static func wordCount(_ s: UnsafeBufferPointer<UInt8>) -> Int {
        var n = 0
        var inWord = false
        for u in s {
            let space = u == 32 || u == 9 || u == 13
            if !space && !inWord { n += 1 }
            inWord = !space
        }
        return n
    }

    /// The level of an ATX heading (`# Title` … `###### Title`), or nil.
    static func atxLevel(_ s: UnsafeBufferPointer<UInt8>) -> Int? {
        var level = 0
        while level < s.count, s[level] == 35, level < 7 { level += 1 }
        guard level >= 1, level <= 6 else { return nil }
        if level < s.count, s[level] != 32, s[level] != 9 { return nil }
        return level
    }

    /// The heading's text (closing `#`s dropped).
    /// The text of an ATX heading line: after its `#` marks, without the closing `#`s and the
    /// blanks around (on the bytes: Foundation's trimming was a tenth of the chunker's time).
    static func headingTitle(_ s: UnsafeBufferPointer<UInt8>, level: Int) -> String {
        func blank(_ b: UInt8) -> Bool { b == 32 || b == 9 || b == 13 }
        var lo = min(level, s.count), hi = s.count
        while lo < hi, blank(s[lo]) { lo += 1 }
        while hi > lo, blank(s[hi - 1]) { hi -= 1 }
        while hi > lo, s[hi - 1] == 35 { hi -= 1 }
        while hi > lo, blank(s[hi - 1]) { hi -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: s[lo..<hi]), as: UTF8.self)
    }

    static func fenceOpen(_ s: UnsafeBufferPointer<UInt8>) -> (UInt8, Int)? {
        guard let c = s.first, c == 96 || c == 126 else { return nil }
        var n = 0
        while n < s.count, s[n] == c { n += 1 }
        guard n >= 3 else { return nil }
        if c == 96, s[n...].contains(96) { return nil }
        return (c, n)
    }

    static func isFenceClose(_ s: UnsafeBufferPointer<UInt8>, _ f: (char: UInt8, count: Int)) -> Bool {
        var n = 0
        while n < s.count, s[n] == f.char { n += 1 }
        return n >= f.count && s[n...].allSatisfy { $0 == 32 || $0 == 9 || $0 == 13 }
    }
}
