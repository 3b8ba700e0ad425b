/// The `<!-- tk-ignore … -->` comments of a document, turned into byte ranges where findings are silenced.
///
/// - `<!-- tk-ignore -->` … `<!-- tk-end-ignore -->`: everything between (to the end of the file if unclosed).
/// - `<!-- tk-ignore-next-line -->`: the next non-blank line after the comment's line.
/// - `<!-- tk-ignore passive,adverb -->`: only those rules or categories, in the prose block that
///   contains the comment, or else the next prose block after it.
/// - `<!-- tk-ignore-next-line passive -->`: those rules on the next non-blank line.
/// - `<!-- tk-ignore-file -->`, optionally with names: the whole document.
struct IgnoreDirectives {
    struct Silence {
        var range: Range<Int>
        /// nil: every rule.
        var names: Set<String>?
    }

    private(set) var silences: [Silence] = []

    init(document doc: MarkdownDocument) {
        var openRegion: (start: Int, names: Set<String>?)?
        for c in doc.htmlComments {
            guard c.count >= 7 else { continue }
            let inner = doc.text((c.lowerBound + 4)..<(c.upperBound - 3))
            let words = inner.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            guard let head = words.first?.lowercased(), head.hasPrefix("tk-") else { continue }
            let rest = words.dropFirst().joined(separator: " ")
            let names: Set<String>? = {
                let list = rest.split(whereSeparator: { $0 == "," || $0 == " " }).map { $0.lowercased() }
                    .filter { !$0.isEmpty }
                return list.isEmpty ? nil : Set(list)
            }()
            switch head {
            case "tk-ignore":
                if let names {
                    if let block = Self.block(for: c, in: doc) { silences.append(Silence(range: block, names: names)) }
                } else if openRegion == nil {
                    openRegion = (c.upperBound, nil)
                }
            case "tk-end-ignore":
                if let open = openRegion {
                    silences.append(Silence(range: open.start..<max(open.start, c.lowerBound), names: open.names))
                    openRegion = nil
                }
            case "tk-ignore-next-line":
                if let line = Self.nextLine(after: c, in: doc) { silences.append(Silence(range: line, names: names)) }
            case "tk-ignore-file":
                silences.append(Silence(range: 0..<doc.bytes.count, names: names))
            default:
                continue
            }
        }
        if let open = openRegion { silences.append(Silence(range: open.start..<doc.bytes.count, names: open.names)) }
    }

    var isEmpty: Bool { silences.isEmpty }

    /// Whether a finding starting at `offset` with this rule and category is silenced.
    func silences(offset: Int, rule: String, category: String) -> Bool {
        for s in silences where s.range.contains(offset) {
            guard let names = s.names else { return true }
            if names.contains(rule) || names.contains(category) || names.contains("all") { return true }
        }
        return false
    }

    /// The prose block containing the comment, else the first one after it.
    private static func block(for c: Range<Int>, in doc: MarkdownDocument) -> Range<Int>? {
        doc.proseBlocks.first(where: { $0.range.upperBound > c.lowerBound })?.range
    }

    /// Byte range of the first non-blank line after the line where the comment ends.
    private static func nextLine(after c: Range<Int>, in doc: MarkdownDocument) -> Range<Int>? {
        let li = doc.lineIndex
        var line = li.lineIndex(ofByte: max(c.lowerBound, c.upperBound - 1)) + 2
        while let s = li.startOfLine(line), let e = li.endOfLine(line) {
            if doc.bytes[s..<e].contains(where: { $0 != 32 && $0 != 9 }) { return s..<e }
            line += 1
        }
        return nil
    }
}
