import CMark

/// The cmark-gfm syntax extensions, registered once per process.
///
/// `cmark_gfm_core_extensions_ensure_registered` is not thread-safe on its own; a Swift global is
/// initialised exactly once, so wrapping the call in one makes it safe.
let coreExtensionsRegistered: Bool = {
    cmark_gfm_core_extensions_ensure_registered()
    return true
}()

/// Walks cmark-gfm's block tree and turns paragraphs and headings into `ProseBlock`s.
enum ProseExtractor {
    struct Result {
        var blocks: [ProseBlock] = []
        var headings: [String] = []
        var comments: [Range<Int>] = []
    }

    static let extensionNames = ["table", "strikethrough", "autolink", "tagfilter"]

    /// Parses `cleaned` (the document bytes with front matter blanked; same length and lines).
    static func extract(cleaned: [UInt8], lineIndex: LineIndex) -> Result {
        CMarkSerial.run { extractUnlocked(cleaned: cleaned, lineIndex: lineIndex) }
    }

    static func extractUnlocked(cleaned: [UInt8], lineIndex: LineIndex) -> Result {
        _ = coreExtensionsRegistered
        guard let parser = cmark_parser_new(CMARK_OPT_SOURCEPOS) else { return Result() }
        defer { cmark_parser_free(parser) }
        for name in extensionNames {
            if let ext = cmark_find_syntax_extension(name) { cmark_parser_attach_syntax_extension(parser, ext) }
        }
        cleaned.withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { c in
                if let base = c.baseAddress { cmark_parser_feed(parser, base, c.count) }
            }
        }
        guard let root = cmark_parser_finish(parser) else { return Result() }
        defer { cmark_node_free(root) }
        var walker = Walker(bytes: cleaned, lines: lineIndex)
        walker.walk(root, inList: false, inQuote: false)
        return walker.result
    }

    struct Walker {
        let bytes: [UInt8]
        let lines: LineIndex
        var result = Result()

        /// Byte range of a block node from its source position (columns are 1-based bytes, end inclusive).
        func range(of node: OpaquePointer) -> Range<Int>? {
            let sl = Int(cmark_node_get_start_line(node)), sc = Int(cmark_node_get_start_column(node))
            var el = Int(cmark_node_get_end_line(node)), ec = Int(cmark_node_get_end_column(node))
            // cmark-gfm reports 0:0 as the end of an HTML block that closes on its first line.
            if el < sl { el = sl; ec = 0 }
            guard let startLineStart = lines.startOfLine(sl), let startLineEnd = lines.endOfLine(sl),
                  let endLineStart = lines.startOfLine(el), let endLineEnd = lines.endOfLine(el) else { return nil }
            let start = min(startLineStart + max(sc - 1, 0), startLineEnd)
            var end = ec > 0 ? min(endLineStart + ec, endLineEnd) : endLineEnd
            if end < start { end = start }
            return start..<end
        }

        mutating func walk(_ node: OpaquePointer, inList: Bool, inQuote: Bool) {
            var child = cmark_node_first_child(node)
            while let c = child {
                let type = cmark_node_get_type(c)
                switch type {
                case CMARK_NODE_BLOCK_QUOTE:
                    walk(c, inList: inList, inQuote: true)
                case CMARK_NODE_LIST, CMARK_NODE_ITEM:
                    walk(c, inList: true, inQuote: inQuote)
                case CMARK_NODE_PARAGRAPH:
                    if let r = range(of: c) { addBlock(r, heading: 0, node: c, inList: inList, inQuote: inQuote) }
                case CMARK_NODE_HEADING:
                    if let r = range(of: c) {
                        addBlock(r, heading: max(1, Int(cmark_node_get_heading_level(c))), node: c,
                                 inList: inList, inQuote: inQuote)
                    }
                case CMARK_NODE_HTML_BLOCK:
                    if let r = range(of: c) { collectComments(in: r) }
                default:
                    break   // code blocks, thematic breaks, tables, extension blocks: not prose
                }
                child = cmark_node_next(c)
            }
        }

        mutating func collectComments(in r: Range<Int>) {
            var i = r.lowerBound
            while i + 4 <= r.upperBound {
                if bytes[i] == 60, bytes[i + 1] == 33, bytes[i + 2] == 45, bytes[i + 3] == 45,
                   let close = DocumentBytes.find(bytes, [45, 45, 62], from: i + 4, to: bytes.count) {
                    result.comments.append(i..<(close + 3))
                    i = close + 3
                } else {
                    i += 1
                }
            }
        }

        mutating func addBlock(_ r: Range<Int>, heading level: Int, node: OpaquePointer, inList: Bool, inQuote: Bool) {
            var scanner = InlineScanner(bytes: bytes, range: r)
            if level > 0 {
                scanner.maskHeadingMarkers()
                result.headings.append(headingText(node))
            } else if inList {
                scanner.maskTaskBox()
            }
            scanner.scan()
            result.comments.append(contentsOf: scanner.comments)
            let (line, _) = lines.position(ofByte: r.lowerBound)
            let endLine = lines.lineIndex(ofByte: max(r.lowerBound, r.upperBound - 1)) + 1
            result.blocks.append(ProseBlock(range: r, masks: scanner.masks, isHeading: level > 0, headingLevel: level,
                                            line: line, endLine: endLine, inListItem: inList, inBlockQuote: inQuote))
        }

        /// The literal text of a heading's inlines (text and code), whitespace collapsed.
        func headingText(_ node: OpaquePointer) -> String {
            var parts: [String] = []
            func collect(_ n: OpaquePointer) {
                var c = cmark_node_first_child(n)
                while let x = c {
                    let t = cmark_node_get_type(x)
                    if t == CMARK_NODE_TEXT || t == CMARK_NODE_CODE {
                        if let lit = cmark_node_get_literal(x) { parts.append(String(cString: lit)) }
                    } else if t == CMARK_NODE_SOFTBREAK || t == CMARK_NODE_LINEBREAK {
                        parts.append(" ")
                    } else {
                        collect(x)
                    }
                    c = cmark_node_next(x)
                }
            }
            collect(node)
            return parts.joined().split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
                .joined(separator: " ")
        }
    }
}

/// Byte search helpers for the document parser.
enum DocumentBytes {
/// Finds `needle` in `bytes[from..<to]`.
static func find(_ bytes: [UInt8], _ needle: [UInt8], from: Int, to: Int) -> Int? {
    guard !needle.isEmpty, to - from >= needle.count else { return nil }
    let first = needle[0]
    var i = from
    let last = to - needle.count
    while i <= last {
        if bytes[i] == first {
            var k = 1
            while k < needle.count && bytes[i + k] == needle[k] { k += 1 }
            if k == needle.count { return i }
        }
        i += 1
    }
    return nil
}
}
