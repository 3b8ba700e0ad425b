import CMark

/// A markdown document parsed once for indexing and heuristics.
///
/// Never throws and never traps on any input: invalid UTF-8 is decoded lossily for text, and every
/// byte offset still refers to the original bytes.
public struct MarkdownDocument: Sendable {
    /// The document's text as UTF-8: the file's bytes, or converted from Windows-1252 when the
    /// file is not UTF-8 (`readAsLatin1`; see `DocumentText`). Offsets refer to these bytes.
    public let bytes: [UInt8]
    /// The file is not UTF-8 and was read as Windows-1252 (Latin-1).
    public var readAsLatin1: Bool
    public var frontMatter: FrontMatter
    /// Broken front matter YAML, as one line; the rest of the document is still parsed.
    public var frontMatterProblem: String?
    /// Front matter title › first heading › file name without its extension.
    public var title: String
    /// Text of every heading, in order.
    public var headings: [String]
    /// The document with the front matter blanked out (newlines kept, so line numbers match the file).
    public var searchBody: String
    /// Words of prose: paragraphs, headings, list items and quotes, not code nor front matter.
    public var wordCount: Int
    public var lineIndex: LineIndex
    /// The prose blocks heuristics may look at, in document order.
    public var proseBlocks: [ProseBlock]
    /// Byte ranges of HTML comments (`<!-- … -->`) outside code, in document order.
    public var htmlComments: [Range<Int>]

    /// Parses `bytes`.
    /// - Parameters:
    ///   - bytes: the file as it is on disk.
    ///   - fileName: the file's name (for the fallback title).
    ///   - summaries: false leaves `searchBody` empty and `wordCount` 0 (a linter on every keystroke
    ///     needs only the prose blocks; the index and the sidecar need both).
    public init(bytes raw: [UInt8], fileName: String, summaries: Bool = true) {
        let (bytes, latin1) = DocumentText.utf8(raw)
        self.bytes = bytes
        readAsLatin1 = latin1
        let (fm, problem) = FrontMatter.parse(bytes)
        frontMatter = fm
        frontMatterProblem = problem
        lineIndex = LineIndex(bytes)

        var cleaned = bytes
        Self.sanitize(&cleaned, blanking: fm.range)
        let parsed = ProseExtractor.extract(cleaned: cleaned, lineIndex: lineIndex)
        proseBlocks = parsed.blocks
        headings = parsed.headings
        htmlComments = parsed.comments

        // Search body: the original text with front matter blanked (invalid bytes decode lossily).
        if !summaries {
            searchBody = ""
        } else if fm.range.isEmpty {
            searchBody = String(decoding: bytes, as: UTF8.self)
        } else {
            var body = bytes
            for i in fm.range where body[i] != 10 && body[i] != 13 { body[i] = 32 }
            searchBody = String(decoding: body, as: UTF8.self)
        }
        wordCount = summaries ? Self.countWords(bytes, parsed.blocks) : 0

        if let t = fm.title, !t.isEmpty {
            title = t
        } else if let h = parsed.headings.first(where: { !$0.isEmpty }) {
            title = h
        } else {
            title = Self.stem(fileName)
        }
    }

    /// The text of bytes `[start, end)` (lossy for invalid UTF-8).
    public func text(_ range: Range<Int>) -> String {
        let lo = max(0, min(range.lowerBound, bytes.count))
        let hi = max(lo, min(range.upperBound, bytes.count))
        return String(decoding: bytes[lo..<hi], as: UTF8.self)
    }

    /// The file name without its last extension (`notes/a.b.md` → `a.b`).
    static func stem(_ fileName: String) -> String {
        let base = fileName.split(separator: "/").last.map(String.init) ?? fileName
        if let dot = base.lastIndex(of: "."), dot != base.startIndex { return String(base[..<dot]) }
        return base
    }

    /// Makes the bytes safe to hand to cmark without moving any offset: front matter becomes spaces
    /// (newlines kept), NUL and invalid UTF-8 bytes become `?`, a lone `\r` becomes a space (cmark
    /// would treat it as a line end, the line index does not).
    static func sanitize(_ b: inout [UInt8], blanking fm: Range<Int>) {
        b.withUnsafeMutableBufferPointer { p in
            let n = p.count
            for i in fm where i < n && p[i] != 10 && p[i] != 13 { p[i] = 32 }
            var i = 0
            while i < n {
                let c = p[i]
                if c >= 0x20 && c < 0x80 || c == 10 || c == 9 { i += 1; continue }
                if c == 13 {
                    if i + 1 >= n || p[i + 1] != 10 { p[i] = 32 }
                    i += 1
                    continue
                }
                if c < 0x20 || c == 0x7F {
                    if c == 0 { p[i] = 63 }
                    i += 1
                    continue
                }
                let (_, len) = TextClass.decode(UnsafeBufferPointer(p), i, n)
                if len == 1 { p[i] = 63 }   // an invalid sequence: U+FFFD would take 3 bytes in cmark
                i += len
            }
        }
    }

    /// Counts words in the unmasked parts of the prose blocks (a hyphen or apostrophe between word
    /// characters joins them: `well-known`, `don't`).
    static func countWords(_ bytes: [UInt8], _ blocks: [ProseBlock]) -> Int {
        var count = 0
        bytes.withUnsafeBufferPointer { p in
            for block in blocks {
                var i = block.range.lowerBound
                var m = 0
                var inWord = false
                let end = min(block.range.upperBound, p.count)
                while i < end {
                    if m < block.masks.count, block.masks[m].range.lowerBound <= i {
                        i = max(i, block.masks[m].range.upperBound)
                        m += 1
                        inWord = false
                        continue
                    }
                    let c = p[i]
                    if c < 0x80 {
                        if TextClass.isASCIIWordByte(c) {
                            if !inWord { count += 1; inWord = true }
                        } else if inWord, (c == 45 || c == 39), i + 1 < end, TextClass.isASCIIWordByte(p[i + 1]) {
                            // joined: keep inWord
                        } else {
                            inWord = false
                        }
                        i += 1
                    } else {
                        let (s, len) = TextClass.decode(p, i, end)
                        if TextClass.isWordScalar(s) {
                            if !inWord { count += 1; inWord = true }
                        } else if s != 0x2019 {
                            inWord = false
                        }
                        i += len
                    }
                }
            }
        }
        return count
    }
}
