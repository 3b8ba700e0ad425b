import CMark
import Foundation

/// Exports a markdown document as markdown, plain text or a standalone HTML page.
public enum Exporter {
    public enum Format: String, Sendable, CaseIterable {
        case md, txt, html
    }

    /// The exported bytes of a document.
    /// - Parameters:
    ///   - bytes: the markdown file as on disk (front matter is left out of every format).
    ///   - fileName: for the fallback title.
    ///   - title: overrides the title (front matter title › first heading › file name).
    public static func export(_ bytes: [UInt8], fileName: String, format: Format, title: String? = nil) -> [UInt8] {
        let doc = MarkdownDocument(bytes: bytes, fileName: fileName)
        let body = Array(bytes[doc.frontMatter.range.upperBound...])
        let chosenTitle = (title?.isEmpty == false ? title : nil) ?? doc.title
        switch format {
        case .md:
            var out: [UInt8] = []
            if let title, !title.isEmpty, doc.headings.first != title {
                out = Array("# \(title)\n\n".utf8)
            }
            out += trimLeadingBlankLines(body)
            return out
        case .txt:
            return Array(plainText(body).utf8)
        case .html:
            return Array(page(title: chosenTitle, bodyHTML: html(body)).utf8)
        }
    }

    /// The HTML fragment cmark-gfm renders for markdown (tables, strikethrough, autolinks, task lists;
    /// raw HTML kept but dangerous tags filtered as GitHub does).
    public static func html(_ markdown: [UInt8]) -> String {
        CMarkSerial.run {
            withParsedTree(markdown) { root, extensions in
                let options = CMARK_OPT_UNSAFE | CMARK_OPT_GITHUB_PRE_LANG
                guard let c = cmark_render_html(root, options, extensions) else { return "" }
                defer { free(c) }
                return String(cString: c)
            }
        } ?? ""
    }

    /// The document as plain text: headings, paragraphs and list items without markdown syntax,
    /// links as their text, code as is, tables as tab-separated rows.
    public static func plainText(_ markdown: [UInt8]) -> String {
        let text = CMarkSerial.run {
            withParsedTree(markdown) { root, _ in
                var r = PlainRenderer()
                r.block(root, listPrefix: nil)
                return r.out
            }
        } ?? ""
        var trimmed = text
        while trimmed.hasSuffix("\n\n") { trimmed.removeLast() }
        if !trimmed.isEmpty && !trimmed.hasSuffix("\n") { trimmed += "\n" }
        return trimmed
    }

    /// A complete HTML page with a readable default style.
    public static func page(title: String, bodyHTML: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="tk-agent \(TKVersion.string)">
        <title>\(escape(title))</title>
        <style>
        \(style)
        </style>
        </head>
        <body>
        <main>
        \(bodyHTML)</main>
        </body>
        </html>

        """
    }

    static let style = """
        :root { color-scheme: light dark; }
        body { margin: 0; padding: 2rem 1rem; font: 1.125rem/1.65 Charter, "Iowan Old Style", Georgia, serif;
               color: #222; background: #fdfdfb; }
        main { max-width: 42rem; margin: 0 auto; }
        h1, h2, h3, h4 { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; line-height: 1.25;
                         margin: 2rem 0 0.75rem; }
        h1 { font-size: 2rem; } h2 { font-size: 1.5rem; } h3 { font-size: 1.25rem; }
        p, ul, ol, blockquote, table, pre { margin: 0 0 1.1rem; }
        a { color: #0b5cad; }
        blockquote { margin-left: 0; padding-left: 1rem; border-left: 3px solid #ccc; color: #555; }
        code, pre { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: 0.9em; }
        pre { padding: 0.75rem 1rem; overflow-x: auto; background: #f3f3f0; border-radius: 4px; }
        table { border-collapse: collapse; width: 100%; }
        th, td { border: 1px solid #ddd; padding: 0.35rem 0.6rem; text-align: left; }
        img { max-width: 100%; }
        hr { border: 0; border-top: 1px solid #ddd; margin: 2rem 0; }
        @media (prefers-color-scheme: dark) {
          body { color: #ddd; background: #1b1b1b; } a { color: #7ab7ff; }
          pre { background: #262626; } th, td { border-color: #444; } blockquote { color: #aaa; border-color: #555; }
        }
        """

    /// Escapes text for HTML.
    public static func escape(_ s: String) -> String {
        var out = ""
        for ch in s {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(ch)
            }
        }
        return out
    }

    static func trimLeadingBlankLines(_ b: [UInt8]) -> [UInt8] {
        var i = 0
        var lineStart = 0
        while i < b.count, b[i] == 32 || b[i] == 9 || b[i] == 10 || b[i] == 13 {
            if b[i] == 10 { lineStart = i + 1 }
            i += 1
        }
        return Array(b[lineStart...])
    }

    /// Parses markdown with the GFM extensions and hands the tree to `body`. Call inside `CMarkSerial.run`.
    static func withParsedTree<T>(_ markdown: [UInt8],
                                  _ body: (OpaquePointer, UnsafeMutablePointer<cmark_llist>?) -> T) -> T? {
        _ = coreExtensionsRegistered
        guard let parser = cmark_parser_new(CMARK_OPT_DEFAULT | CMARK_OPT_FOOTNOTES) else { return nil }
        defer { cmark_parser_free(parser) }
        for name in ["table", "strikethrough", "autolink", "tagfilter", "tasklist"] {
            if let ext = cmark_find_syntax_extension(name) { cmark_parser_attach_syntax_extension(parser, ext) }
        }
        var sanitized = markdown
        for i in sanitized.indices where sanitized[i] == 0 { sanitized[i] = 32 }
        sanitized.withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { c in
                if let base = c.baseAddress { cmark_parser_feed(parser, base, c.count) }
            }
        }
        guard let root = cmark_parser_finish(parser) else { return nil }
        defer { cmark_node_free(root) }
        return body(root, cmark_parser_get_syntax_extensions(parser))
    }
}

/// Walks a cmark tree and writes text without markdown syntax.
struct PlainRenderer {
    var out = ""

    mutating func block(_ node: OpaquePointer, listPrefix: String?) {
        let type = cmark_node_get_type(node)
        let typeName = cmark_node_get_type_string(node).map { String(cString: $0) } ?? ""
        switch type {
        case CMARK_NODE_DOCUMENT, CMARK_NODE_BLOCK_QUOTE:
            children(node)
        case CMARK_NODE_LIST:
            let ordered = cmark_node_get_list_type(node) == CMARK_ORDERED_LIST
            var n = Int(cmark_node_get_list_start(node))
            var child = cmark_node_first_child(node)
            while let c = child {
                let prefix = ordered ? "\(n). " : "- "
                n += 1
                var item = PlainRenderer()
                item.children(c)
                var lines = item.out.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
                if !lines.isEmpty { lines[0] = prefix + lines[0] }
                for i in lines.indices.dropFirst() { lines[i] = String(repeating: " ", count: prefix.count) + lines[i] }
                out += lines.joined(separator: "\n") + "\n"
                child = cmark_node_next(c)
            }
            out += "\n"
        case CMARK_NODE_HEADING, CMARK_NODE_PARAGRAPH:
            out += inlineText(node) + "\n\n"
        case CMARK_NODE_CODE_BLOCK:
            if let lit = cmark_node_get_literal(node) { out += String(cString: lit) }
            out += "\n"
        case CMARK_NODE_THEMATIC_BREAK, CMARK_NODE_HTML_BLOCK:
            break
        default:
            if typeName == "table" {
                var row = cmark_node_first_child(node)
                while let r = row {
                    var cells: [String] = []
                    var cell = cmark_node_first_child(r)
                    while let c = cell {
                        cells.append(inlineText(c))
                        cell = cmark_node_next(c)
                    }
                    out += cells.joined(separator: "\t") + "\n"
                    row = cmark_node_next(r)
                }
                out += "\n"
            } else if cmark_node_first_child(node) != nil {
                children(node)
            } else if let lit = cmark_node_get_literal(node) {
                out += String(cString: lit) + "\n\n"
            }
        }
    }

    mutating func children(_ node: OpaquePointer) {
        var child = cmark_node_first_child(node)
        while let c = child {
            block(c, listPrefix: nil)
            child = cmark_node_next(c)
        }
    }

    func inlineText(_ node: OpaquePointer) -> String {
        var s = ""
        var child = cmark_node_first_child(node)
        while let c = child {
            switch cmark_node_get_type(c) {
            case CMARK_NODE_TEXT, CMARK_NODE_CODE:
                if let lit = cmark_node_get_literal(c) { s += String(cString: lit) }
            case CMARK_NODE_SOFTBREAK:
                s += " "
            case CMARK_NODE_LINEBREAK:
                s += "\n"
            case CMARK_NODE_HTML_INLINE:
                break
            default:
                s += inlineText(c)
            }
            child = cmark_node_next(c)
        }
        return s
    }
}
