import Foundation
import Yams

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

    public init(ordinal: Int, startLine: Int, endLine: Int, heading: String, text: String, words: Int) {
        self.ordinal = ordinal; self.startLine = startLine; self.endLine = endLine
        self.heading = heading; self.text = text; self.words = words
        self.digest = SHA256Digest.hex(Array((heading + "\n" + text).utf8))
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
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
            line.hasSuffix("\r") ? line.dropLast() : line
        }
        if text.hasSuffix("\n") { lines.removeLast() }
        // The first line after the front matter (0-based).
        var first = 0
        if !frontMatter.isEmpty {
            first = bytes[0..<min(frontMatter.upperBound, bytes.count)].reduce(0) { $1 == 10 ? $0 + 1 : $0 }
        }

        struct Block { var start: Int; var end: Int; var words: Int }  // 0-based, inclusive lines
        struct Section { var heading: String; var blocks: [Block] }
        var sections: [Section] = []
        var path: [(level: Int, title: String)] = []
        var current = Section(heading: "", blocks: [])
        var block: Block?
        var fence: (char: Character, count: Int)?

        func flushBlock() {
            if let b = block { current.blocks.append(b); block = nil }
        }
        func extend(_ i: Int, words: Int) {
            if block == nil { block = Block(start: i, end: i, words: 0) }
            block?.end = i
            block?.words += words
        }

        var i = first
        while i < lines.count {
            let line = lines[i]
            let trimmed = line.drop(while: { $0 == " " })
            if let f = fence {
                extend(i, words: wordCount(line))
                if isFenceClose(trimmed, f) { fence = nil; flushBlock() }
                i += 1
                continue
            }
            if line.count - trimmed.count < 4, let f = fenceOpen(trimmed) {
                flushBlock()
                fence = f
                extend(i, words: wordCount(line))
                i += 1
                continue
            }
            if line.count - trimmed.count < 4, let (level, title) = atxHeading(trimmed) {
                flushBlock()
                if !current.blocks.isEmpty { sections.append(current) }
                while let last = path.last, last.level >= level { path.removeLast() }
                path.append((level, title))
                current = Section(heading: path.map(\.title).joined(separator: " > "), blocks: [])
                // The heading line starts its section's first block.
                extend(i, words: wordCount(Substring(title)))
                i += 1
                continue
            }
            if trimmed.isEmpty {
                // A blank line ends a paragraph; a lone heading line stays with what follows it.
                if let b = block, !(b.start == b.end && atxHeading(lines[b.start].drop(while: { $0 == " " })) != nil) {
                    flushBlock()
                }
                i += 1
                continue
            }
            extend(i, words: wordCount(line))
            i += 1
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
                let body = lines[g.start...g.end].joined(separator: "\n")
                if body.allSatisfy({ $0.isWhitespace }) { continue }
                // A heading with nothing under it (a chapter heading right before its first section).
                if g.start == g.end, atxHeading(lines[g.start].drop(while: { $0 == " " })) != nil { continue }
                out.append(PassageChunk(ordinal: out.count, startLine: g.start + 1, endLine: g.end + 1,
                                        heading: section.heading, text: body, words: g.words))
            }
        }
        return out
    }

    /// `tk: {order: N}` (the front matter is parsed again only when it mentions `order`).
    public static func readingOrder(_ document: MarkdownDocument) -> Double? {
        let r = document.frontMatter.range
        guard !r.isEmpty, r.upperBound <= document.bytes.count else { return nil }
        let yamlBytes = document.bytes[r]
        guard String(decoding: yamlBytes, as: UTF8.self).contains("order") else { return nil }
        guard let (_, yamlRange) = FrontMatter.locate(in: document.bytes) else { return nil }
        let yaml = String(decoding: document.bytes[yamlRange], as: UTF8.self)
        guard let node = try? Yams.compose(yaml: yaml), let tk = node.mapping?["tk"]?.mapping,
              let order = tk["order"]?.scalar?.string else { return nil }
        return Double(order.trimmingCharacters(in: .whitespaces))
    }

    static func wordCount(_ s: Substring) -> Int {
        var n = 0
        var inWord = false
        for u in s.utf8 {
            let space = u == 32 || u == 9 || u == 13
            if !space && !inWord { n += 1 }
            inWord = !space
        }
        return n
    }

    /// `# Title` … `###### Title` (closing `#`s dropped).
    static func atxHeading(_ s: Substring) -> (Int, String)? {
        var level = 0
        var idx = s.startIndex
        while idx < s.endIndex, s[idx] == "#", level < 7 { level += 1; idx = s.index(after: idx) }
        guard level >= 1, level <= 6 else { return nil }
        if idx < s.endIndex, s[idx] != " ", s[idx] != "\t" { return nil }
        var title = s[idx...].trimmingCharacters(in: .whitespaces)
        while title.hasSuffix("#") { title.removeLast() }
        return (level, title.trimmingCharacters(in: .whitespaces))
    }

    static func fenceOpen(_ s: Substring) -> (Character, Int)? {
        guard let c = s.first, c == "`" || c == "~" else { return nil }
        let n = s.prefix(while: { $0 == c }).count
        guard n >= 3 else { return nil }
        if c == "`", s.dropFirst(n).contains("`") { return nil }
        return (c, n)
    }

    static func isFenceClose(_ s: Substring, _ f: (char: Character, count: Int)) -> Bool {
        let n = s.prefix(while: { $0 == f.char }).count
        return n >= f.count && s.dropFirst(n).allSatisfy { $0 == " " || $0 == "\t" }
    }
}
