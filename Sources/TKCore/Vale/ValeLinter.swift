import CMark
import Foundation

/// One alert as Vale reports it.
public struct ValeAlert: Sendable, Equatable {
    public var check: String
    public var severity: String
    public var line: Int
    /// 1-based columns in Unicode scalars, inclusive.
    public var span: (Int, Int)
    public var match: String
    public var message: String
    public var link: String
    public var replacements: [String]
    /// Where the alert was reported in a whole run: the block's place in the walk, then the rule's
    /// place among the file's rules. Alerts at one line and column keep this order, so linters that
    /// each run a share of the rules merge to what one linter running them all reports.
    var order = Order()
    struct Order: Sendable, Comparable {
        var block = 0
        var rule = 0
        static func < (a: Order, b: Order) -> Bool { (a.block, a.rule) < (b.block, b.rule) }
    }

    /// Vale's order: by line, then column; ties in the order they were reported (`order`).
    static func inOrder(_ a: ValeAlert, _ b: ValeAlert) -> Bool {
        a.line != b.line ? a.line < b.line : a.span.0 != b.span.0 ? a.span.0 < b.span.0 : a.order < b.order
    }

    public static func == (a: ValeAlert, b: ValeAlert) -> Bool {
        a.check == b.check && a.line == b.line && a.span == b.span && a.message == b.message
    }
}

/// A block of text Vale lints, with the context it is located in.
struct ValeBlock {
    var context: [UInt8]
    var text: String
    var scope: [String]
    var line: Int
    /// The context is the walker's `content` (as masked so far): its searches may use `contentIndex`.
    var fromContent = false
}

/// Lints one Markdown document with a loaded configuration, the way Vale does.
final class ValeFileLinter {
    let styles: ValeStyles
    let cfg: ValeConfiguration
    let baseStyles: [String]
    let checks: [String: Bool]
    let ext: String

    var lines: [[UInt8]] = []
    /// Runes up to the end of each line of `lines` (for `findLoc`).
    var lineRuneEnds: [Int] = []
    var content: [UInt8] = []
    /// Byte offsets of the newlines of `content` (fixed: the walker only masks one-byte characters).
    var contentNewlines: [Int] = []
    /// `content` as the walk starts, indexed for first-occurrence searches (it is only masked after).
    var contentIndex: ValeGramIndex?
    var comments: [String: Bool] = [:]
    var alerts: [ValeAlert] = []
    var history = Set<String>()
    var limits: [String: Int] = [:]
    var sequences: [String] = []
    var metrics: [String: Int] = [:]
    var summary = ""
    /// Per rule, within a block: its context with the matches reported so far set to `#` (Vale's
    /// `ChkToCtx`). The context is the whole document and most rules report once in a block, so a
    /// first report keeps only where its match is (`pending`); a second makes the context (`made`)
    /// and later ones mark it in place.
    enum RuleContext {
        case pending(at: Int, match: [UInt8])
        case made([UInt8])
    }
    var chkToCtx: [String: RuleContext] = [:]
    /// The tagged words of the last sentence a `sequence` rule read (the next rule reads the same one).
    var nlpCache: (text: String, words: [ValeNLP.Token])?
    var needsSentences = false
    var needsParagraphs = false
    /// The rules this file runs, in order: enabled for its path and at or above `MinAlertLevel`
    /// (decided once per file, not per block).
    var active: [ActiveRule] = []

    /// A rule in `active`: read in place for each block (copying the rule's many fields to a local
    /// for each block and rule was a tenth of a chapter's lint).
    final class ActiveRule {
        let rule: ValeRule
        /// Its place among all the file's rules (when this linter runs a share of them).
        let ordinal: Int
        init(_ rule: ValeRule, ordinal: Int) { self.rule = rule; self.ordinal = ordinal }
    }
    /// Blocks linted so far, and the rule running (`ValeAlert.order`).
    var blockCount = 0
    var ruleOrdinal = 0

    /// A linter for the file's rules, or for the share `part` of `parts` of them (every `parts`-th
    /// rule from the `part`-th): rules do not see each other's alerts, so shares can run at once and
    /// be merged (`ValeAlert.inOrder`).
    init(styles: ValeStyles, cfg: ValeConfiguration, relativePath: String, ext: String, part: Int = 0, of parts: Int = 1) {
        self.styles = styles
        self.cfg = cfg
        (baseStyles, checks) = cfg.settings(for: relativePath)
        self.ext = ext
        var ordinal = 0
        for name in styles.order {
            guard let r = styles.rules[name], ruleEnabled(name),
                  (["suggestion": 0, "warning": 1, "error": 2][r.level] ?? 1) >= cfg.minAlertLevel else { continue }
            defer { ordinal += 1 }
            // Every share walks the same blocks (their count orders the alerts): split into
            // sentences and paragraphs when any of the file's rules reads them.
            let b = r.scope.bases
            if b.contains("sentence") { needsSentences = true }
            if b.contains("paragraph") { needsParagraphs = true }
            // Consistency and conditional rules read what each other noted (`sequences`): one share runs them all.
            let share: Int
            switch r.kind {
            case .consistency, .conditional: share = 0
            default: share = ordinal % max(1, parts)
            }
            guard share == part else { continue }
            active.append(ActiveRule(r, ordinal: ordinal))
        }
    }

    /// Whether any rule can run on this file at all.
    var hasWork: Bool {
        styles.order.contains { ruleEnabled($0) }
    }

    func ruleEnabled(_ name: String) -> Bool {
        if let v = checks[name] { return v }
        if let v = cfg.globalChecks[name] { return v }
        let style = name.split(separator: ".").first.map(String.init) ?? ""
        return baseStyles.contains(style)
    }

    // MARK: - Document

    static let frontMatterRe = try? ValeRegex("^(?s)(?:---|\\+\\+\\+)\\n(.+?)\\n(?:---|\\+\\+\\+)")
    static let exInfoRe = try? ValeRegex("`{3,}.+")
    static let linkRefRe = try? ValeRegex("\\]\\[(?:[^\\]\\n]+)\\]")
    static let linkDefRe = try? ValeRegex("\\[(?:[^\\]\\n]+)\\]:")
    static let numListRe = try? ValeRegex("(?m)^\\d+\\.")

    /// A document made ready for the walk: what every share of the rules starts from.
    struct Prepared: Sendable {
        var lines: [[UInt8]]
        var lineRuneEnds: [Int]
        var sanitized: [UInt8]
        var content: [UInt8]
        var contentNewlines: [Int]
        var contentIndex: ValeGramIndex
        var tokens: [ValeHTMLToken]
    }

    func lint(bytes: [UInt8]) -> [ValeAlert] {
        lint(prepare(bytes: bytes))
    }

    /// Vale's reading of the document before the walk (it depends on the configuration, not on the rules).
    func prepare(bytes: [UInt8]) -> Prepared {
        var text = String(decoding: bytes, as: UTF8.self)
        if VB.index(bytes, Array("&rsquo;".utf8)) != nil { text = text.replacingOccurrences(of: "&rsquo;", with: "'") }
        if bytes.contains(13) {
            text = text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
        }
        let sanitized = Array(text.utf8)
        let lines = VB.splitAfterNewline(sanitized).map(Array.init)
        var runeEnd = 0
        let lineRuneEnds = lines.map { runeEnd += VB.runes($0); return runeEnd }

        // Transform: front matter and BlockIgnores become code blocks, TokenIgnores code spans.
        var transformed = text
        if let fm = Self.frontMatterRe { transformed = fm.replace(transformed, template: "\n```\n$1\n```\n") }
        for (label, pats) in cfg.blockIgnores where ValeGlob(label).matches(".md") || ValeGlob(label).matches(ext) {
            for p in pats { if let re = try? ValeRegex(Self.grouped(p)) { transformed = re.replace(transformed, template: "\n```\n$1\n```\n") } }
        }
        for (label, pats) in cfg.tokenIgnores where ValeGlob(label).matches(".md") || ValeGlob(label).matches(ext) {
            for p in pats { if let re = try? ValeRegex(Self.grouped(p)) { transformed = re.replace(transformed, template: "`$1`") } }
        }
        let html = Self.render(Array(transformed.utf8))

        // The context the walker searches: info strings, link references and list numbers masked.
        // Each of the first three patterns needs a literal: a document without it is not searched.
        var body = text
        let bodyBytes = Array(body.utf8)
        func needing(_ literal: String, _ re: ValeRegex?) -> ValeRegex? { VB.contains(bodyBytes, Array(literal.utf8)) ? re : nil }
        body = mask(body, needing("```", Self.exInfoRe)) { m in
            let parts = m.split(separator: "`", omittingEmptySubsequences: false)
            return String(repeating: "`", count: parts.count - 1) + String(repeating: "*", count: parts.last.map { $0.unicodeScalars.count } ?? 0)
        }
        body = mask(body, needing("][", Self.linkRefRe)) { m in
            "][" + String(repeating: "*", count: max(0, m.unicodeScalars.count - 3)) + "]"
        }
        body = mask(body, needing("]:", Self.linkDefRe)) { m in
            "[" + String(repeating: "*", count: max(0, m.unicodeScalars.count - 3)) + "]:"
        }
        body = mask(body, Self.numListRe) { m in String(repeating: "*", count: m.unicodeScalars.count) }
        let content = Array(body.utf8)
        return Prepared(lines: lines, lineRuneEnds: lineRuneEnds, sanitized: sanitized, content: content,
                        contentNewlines: content.indices.filter { content[$0] == 10 },
                        contentIndex: ValeGramIndex(content), tokens: ValeHTML.tokenize(html))
    }

    /// The walk and this linter's rules over a prepared document.
    func lint(_ p: Prepared) -> [ValeAlert] {
        install(p)
        walk(p.tokens)
        return finish(p)
    }

    func install(_ p: Prepared) {
        lines = p.lines
        lineRuneEnds = p.lineRuneEnds
        content = p.content
        contentNewlines = p.contentNewlines
        contentIndex = p.contentIndex
    }

    // MARK: - A walk on another thread (`ValeDocumentWalk`)

    /// Non-nil while this linter records a walk instead of running rules: the events not yet handed over.
    var recording: [ValeWalkEvent]?
    var recordLog: ValeWalkLog?

    /// Walks a prepared document, running no rule: every block and every change of the walker's
    /// state goes to `log` (in batches), for `lint(log)` to replay.
    func record(_ p: Prepared, into log: ValeWalkLog) {
        install(p)
        // Which rules will read sentences and paragraphs is not known yet: the blocks are all made.
        needsSentences = true
        needsParagraphs = true
        recording = [.start(p)]
        recordLog = log
        walk(p.tokens)
        log.append(recording ?? [])
        recording = nil
        log.finish()
    }

    func emit(_ event: ValeWalkEvent) {
        recording?.append(event)
        if let r = recording, r.count >= 64 {
            recordLog?.append(r)
            recording = []
        }
    }

    /// This linter's rules over a walk recorded on another thread: the walker's state replayed event
    /// by event, each block linted as the walker reached it.
    func lint(_ log: ValeWalkLog) -> [ValeAlert] {
        var next = 0
        var prepared: Prepared?
        while true {
            let batch = log.events(from: next)
            if batch.isEmpty { break }
            next += batch.count
            for event in batch {
                switch event {
                case .start(let p): install(p); prepared = p
                case .mask(let at, let count): applyMask(at: at, count: count)
                case .summary(let text): summary += text
                case .metric(let key): metrics[key, default: 0] += 1
                case .comments(let c): comments = c
                case .block(var blk, let lookup, let made):
                    if blk.fromContent { blk.context = content }
                    lintBlock(blk, lookup: lookup, made: made)
                }
            }
        }
        guard let prepared else { return [] }
        return finish(prepared)
    }

    /// After the walk: the sized scopes, summary then raw; the alerts in Vale's order.
    func finish(_ p: Prepared) -> [ValeAlert] {
        for (k, v) in comments where k != "off" && v { comments[k] = false }
        let summaryBlock = ValeBlock(context: content, text: summary, scope: ["summary"] + extParts, line: 0, fromContent: true)
        lintBlock(summaryBlock, lookup: true)
        let raw = p.sanitized
        lintBlock(ValeBlock(context: raw, text: VB.str(raw), scope: ["raw"] + extParts, line: -1), lookup: true)
        return alerts.sorted(by: ValeAlert.inOrder)
    }

    /// The extension's parts (`md`), the last selectors of every block's scope.
    lazy var extParts: [String] = ext.split(separator: ".").map(String.init)

    static func grouped(_ p: String) -> String {
        (try? ValeRegex(p))?.groupCount ?? 0 > 0 ? p : "(" + p + ")"
    }

    func mask(_ s: String, _ re: ValeRegex?, _ f: (String) -> String) -> String {
        guard let re else { return s }
        let t = ValeText(s)
        let ms = re.matches(in: t)
        if ms.isEmpty { return s }
        var out = String.UnicodeScalarView()
        var last = 0
        for m in ms {
            out.append(contentsOf: t.scalars[last..<m.range.lowerBound])
            out.append(contentsOf: f(t.slice(m.range)).unicodeScalars)
            last = m.range.upperBound
        }
        out.append(contentsOf: t.scalars[last...])
        return String(out)
    }

    static func render(_ md: [UInt8]) -> String {
        CMarkSerial.run {
            _ = coreExtensionsRegistered
            guard let parser = cmark_parser_new(CMARK_OPT_UNSAFE | CMARK_OPT_FOOTNOTES) else { return "" }
            defer { cmark_parser_free(parser) }
            for name in ["table", "strikethrough", "autolink", "tasklist"] {
                if let e = cmark_find_syntax_extension(name) { cmark_parser_attach_syntax_extension(parser, e) }
            }
            md.withUnsafeBufferPointer { p in
                p.withMemoryRebound(to: CChar.self) { c in if let b = c.baseAddress { cmark_parser_feed(parser, b, c.count) } }
            }
            guard let root = cmark_parser_finish(parser) else { return "" }
            defer { cmark_node_free(root) }
            guard let c = cmark_render_html(root, CMARK_OPT_UNSAFE, cmark_parser_get_syntax_extensions(parser)) else { return "" }
            defer { free(c) }
            return String(cString: c)
        }
    }

    // MARK: - Walker (Vale's lint/ast.go and walk.go)

    var idx = 0
    var queue: [String] = []
    var tagHistory: [String] = []
    var activeTag = ""
    var activeCls = ""
    var clsBegin = 0, clsEnd = 0

    static let inlineTags: Set<String> = ["b", "big", "i", "small", "abbr", "acronym", "cite", "dfn", "em", "kbd",
                                          "strong", "a", "br", "img", "span", "sub", "sup", "code", "tt", "del"]
    static let tagToScope: [String: String] = ["th": "text.table.header", "td": "text.table.cell", "caption": "text.table.caption",
                                               "li": "text.list", "blockquote": "text.blockquote", "figcaption": "text.figure.caption"]

    func update(_ txt: String) {
        guard !txt.isEmpty else { return }
        for sb in VB.lines(txt) {
            if !maskInContent(sb) {
                for f in VB.fields(sb) { maskInContent(f) }
            }
        }
    }

    /// `VB.index(content, needle)`, through `contentIndex` where it answers.
    func contentFirst(_ needle: [UInt8]) -> Int? {
        if contentIndex?.covers(needle, in: content) == true {
            return contentIndex?.first(needle, in: content, learn: true) ?? nil
        }
        return VB.index(content, needle)
    }

    /// The walker's `subInplace` on `content`: the first `sub` gets its one-byte characters (not
    /// newlines) set to `@`, the search through `contentIndex`.
    @discardableResult
    func maskInContent(_ sub: [UInt8]) -> Bool {
        guard let i = contentFirst(sub) else { return false }
        applyMask(at: i, count: sub.count)
        if recording != nil { emit(.mask(at: i, count: sub.count)) }
        return true
    }

    func applyMask(at i: Int, count: Int) {
        guard i >= 0, count > 0, i + count <= content.count else { return }
        // In one access to the buffer: a write to a class's array element by element pays an
        // exclusivity check and a uniqueness check for every byte.
        content.withUnsafeMutableBufferPointer { b in
            for j in i..<(i + count) where b[j] < 0x80 && b[j] != 10 { b[j] = 64 }
        }
    }

    func addSummary(_ text: String) {
        summary += text
        if recording != nil { emit(.summary(text)) }
    }

    func countMetric(_ key: String) {
        metrics[key, default: 0] += 1
        if recording != nil { emit(.metric(key)) }
    }

    func advance(_ text: String) -> Int {
        var pos: Int? = 0
        for s in VB.lines(text) {
            pos = contentFirst(s)
            if pos == nil { for ss in VB.fields(s) { pos = contentFirst(ss) } }
        }
        if let p = pos {
            let l = Self.countBelow(contentNewlines, p)
            if l > idx { return l }
        }
        return -1
    }

    /// How many of the sorted `values` are below `limit`.
    static func countBelow(_ values: [Int], _ limit: Int) -> Int {
        var lo = 0, hi = values.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if values[mid] < limit { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    func append(_ text: String) {
        guard !text.isEmpty else { return }
        let p = advance(text)
        if p > -1 { idx = p }
        queue.append(text)
    }

    func reset() {
        for s in queue { update(s) }
        queue = []
        tagHistory = []
    }

    func lastTag() -> String { tagHistory.last ?? activeTag }

    func isNestedList() -> Bool {
        if lastTag() == "li" && tagHistory.count > 3 {
            let up1 = tagHistory[tagHistory.count - 2], up2 = tagHistory[tagHistory.count - 3]
            if up1 == "ol" || up1 == "ul" { return up2 == "li" }
        }
        return false
    }

    func block(_ text: String, _ scope: String) -> ValeBlock {
        var line = idx
        let p = advance(text)
        if p != line && p > -1 { line = p }
        return ValeBlock(context: content, text: text, scope: scope.split(separator: ".").map(String.init), line: line, fromContent: true)
    }

    func walk(_ tokens: [ValeHTMLToken]) {
        let skipTags: Set<String> = cfg.skippedScopes.isEmpty ? ["script", "style", "pre", "figure", "noscript", "iframe"] : Set(cfg.skippedScopes)
        let skipClasses = Set(["problematic", "pre", "code"] + cfg.ignoredClasses)
        let skipped: Set<String> = cfg.ignoredScopes.isEmpty ? ["tt", "code", "kbd"] : Set(cfg.ignoredScopes)
        var inBlock = false, inline = false, skip = false
        var attr = "", parentClass = ""
        var buf = ""
        let altSkipped = cfg.skippedScopes.contains("alt")

        for tok in tokens {
            var txt = tok.kind == .text ? ValeHTML.unescape(VB.trimmed(tok.data))
                : tok.kind == .comment ? VB.trimmed(tok.data) : tok.data
            // addCls
            if txt == activeCls, tok.kind != .text, tok.kind != .comment {
                if tok.kind == .start { clsBegin += 1 } else { clsEnd += 1 }
            }
            let closed = !activeCls.isEmpty && clsBegin == clsEnd && clsBegin > 0
            let cls = tok.attr("class")
            let skipClass = cls.split(separator: " ").contains { skipClasses.contains(String($0)) }
            let blockSkip = skipClass && !Self.inlineTags.contains(txt)
            if tok.kind == .start && (skipTags.contains(txt) || blockSkip) {
                if blockSkip { activeCls = txt; clsBegin = 1; clsEnd = 0 }
                inBlock = true
                countMetric(txt)
            } else if inBlock && ((tok.kind != .text && tok.kind != .comment && skipTags.contains(txt)) || closed) {
                inBlock = false
                if closed { activeCls = ""; clsBegin = 0; clsEnd = 0 }
            } else if tok.kind == .start {
                if (txt == "em" || txt == "b") && lastTag() == "code" { txt = "code" }
                inline = Self.inlineTags.contains(txt)
                skip = skipped.contains(txt)
                tagHistory.append(txt); activeTag = txt
            } else if tok.kind == .end && Self.inlineTags.contains(txt) {
                activeTag = ""
            } else if tok.kind == .comment {
                updateComments(txt)
                update(txt)
            } else if tok.kind == .text {
                append(txt)
                if !inBlock && !txt.isEmpty {
                    let sc = parentClass.split(separator: " ").contains { skipClasses.contains(String($0)) }
                    if isNestedList() && !inline { txt = " " + txt }
                    (txt, skip) = clean(txt, attr: attr, skip: skip || sc, inline: inline)
                    buf += txt
                }
            }
            if tok.kind == .end && !Self.inlineTags.contains(txt) {
                if !VB.trimmed(buf).isEmpty { lintScope(buf) }
                reset()
                buf = ""
            }
            attr = tok.attr("href")
            parentClass = tok.attr("class")
            if tok.data == "img" && tok.kind != .text && tok.kind != .comment && !altSkipped {
                for (k, v) in tok.attrs where k == "alt" {
                    lintBlock(block(v, "text.attr.alt" + ext), lookup: false)
                }
            }
            if tok.kind == .start, ["img", "a", "p", "script", "h1", "h2", "h3", "h4", "h5", "h6"].contains(tok.data) {
                for (k, v) in tok.attrs where ["href", "id", "src", "alt"].contains(k) {
                    update(k == "href" ? (v.removingPercentEncoding ?? v) : v)
                }
            }
        }
    }

    func clean(_ t: String, attr: String, skip: Bool, inline: Bool) -> (String, Bool) {
        var txt = t
        var skip = skip
        let first = txt.unicodeScalars.first.map { String($0) } ?? ""
        let starter = [".", "?", "!", ",", ":", ";"].contains(first) && !skip
        if skip || attr == txt {
            txt = String(txt.unicodeScalars.map { $0 == "\n" ? "\n" : "*" })
            skip = false
        }
        if inline && !starter { txt = " " + txt }
        return (txt, skip)
    }

    func lintScope(_ text: String) {
        var txt = text
        for tag in tagHistory {
            let mapped = Self.tagToScope[tag]
            let isHeading = tag.count == 2 && tag.first == "h" && tag.last!.isNumber
            if (mapped != nil && !Self.inlineTags.contains(tag)) || isHeading {
                var scope = mapped ?? ""
                if scope == "text.blockquote" || scope == "text.list" { addSummary(txt + "\n\n") }
                if mapped == nil { scope = "text.heading." + tag }
                countMetric(String(scope.dropFirst(5)))
                while txt.hasPrefix(" ") { txt.removeFirst() }
                lintBlock(block(txt, scope + ext), lookup: false)
                return
            }
        }
        addSummary(txt + "\n\n")
        let b = block(txt, "txt")
        let lookup = VB.contains(txt, byte: 10)   // Go's strings.Contains: a newline byte
        if needsParagraphs {
            var rest = Substring(txt)
            while !rest.isEmpty {
                if let end = Self.afterBlankLine(rest) {
                    lintBlock(ValeBlock(context: b.context, text: String(rest[..<end]), scope: ["paragraph"] + extParts, line: b.line, fromContent: b.fromContent), lookup: lookup)
                    rest = rest[end...]
                } else {
                    lintBlock(ValeBlock(context: b.context, text: String(rest), scope: ["paragraph"] + extParts, line: b.line, fromContent: b.fromContent), lookup: lookup)
                    break
                }
            }
        }
        if needsSentences {
            for s in ValeSentences.split(txt) {
                let t = VB.trimmed(s)
                if !t.isEmpty { lintBlock(ValeBlock(context: b.context, text: t, scope: ["sentence"] + extParts, line: b.line, fromContent: b.fromContent), lookup: lookup) }
            }
        }
        lintBlock(ValeBlock(context: b.context, text: txt, scope: ["text"] + extParts, line: b.line, fromContent: b.fromContent), lookup: lookup)
    }

    /// Where the text after the first `\n\n` starts (Go's `strings.Index`: bytes, not Foundation's
    /// search by composed characters).
    static func afterBlankLine(_ s: Substring) -> String.Index? {
        let u = s.utf8
        var i = u.startIndex
        var newline = false
        while i != u.endIndex {
            if u[i] == 10 {
                if newline { return u.index(after: i) }
                newline = true
            } else {
                newline = false
            }
            i = u.index(after: i)
        }
        return nil
    }

    // MARK: - Comments

    func updateComments(_ c: String) {
        if c == "vale off" { comments["off"] = true }
        else if c == "vale on" { comments["off"] = false }
        else if c.hasPrefix("vale ") {
            let rest = c.dropFirst(5)
            if let eq = rest.range(of: " = ") {
                let name = String(rest[..<eq.lowerBound]), v = String(rest[eq.upperBound...])
                if name.contains("."), v == "YES" || v == "NO", !name.isEmpty { comments[name] = v == "NO" }
            }
        }
        if recording != nil { emit(.comments(comments)) }
    }

    func queryComments(_ check: String) -> Bool {
        let off = comments["off"] ?? false
        if !off, let s = comments[check] { return s }
        return off
    }

    // MARK: - Running rules

    /// - Parameter made: the block's text and prefilter verdict as the shares of a walk make them
    ///   (nil: this linter makes its own).
    func lintBlock(_ blk: ValeBlock, lookup: Bool, made: ValeBlockMade? = nil) {
        if recording != nil {
            var b = blk
            if b.fromContent { b.context = [] }
            emit(.block(b, lookup: lookup, made: ValeBlockMade()))
            return
        }
        chkToCtx = [:]
        blockHits = .none
        blockMade = made
        blockCount += 1
        var text: ValeText?
        for entry in active {
            if !comments.isEmpty, queryComments(entry.rule.name) { continue }
            if !entry.rule.scope.matches(blk.scope) { continue }
            if text == nil { text = made.map { $0.text { ValeText(blk.text) } } ?? ValeText(blk.text) }
            ruleOrdinal = entry.ordinal
            for var a in run(entry.rule, text!, blk) {
                a.message = Self.whitespaceToSpace(a.message)
                addAlert(a, blk: blk, lookup: lookup, limit: entry.rule.limit)
            }
        }
    }

    static func whitespaceToSpace(_ s: String) -> String {
        // Most messages have nothing to change: a single space between words, no other white space.
        var previousSpace = false, changes = false
        for b in s.utf8 {
            if b == 32 { if previousSpace { changes = true; break }; previousSpace = true }
            else if b >= 9 && b <= 13 { changes = true; break }
            else { previousSpace = false }
        }
        if !changes { return s }
        var out = ""
        var lastSpace = false
        for c in s.unicodeScalars {
            if c == " " || c == "\n" || c == "\t" || c == "\r" || c == "\u{0B}" || c == "\u{0C}" {
                if !lastSpace { out.unicodeScalars.append(" ") }
                lastSpace = true
            } else { out.unicodeScalars.append(c); lastSpace = false }
        }
        return out
    }

    /// Raw alert from a rule: `span` in scalars of the block text.
    struct RawAlert {
        var check: String
        var severity: String
        var span: (Int, Int)
        var match: String
        var message: String
        var link: String
        var replacements: [String] = []
        var offset: [[UInt8]] = []
    }

    /// Vale's `FormatMessage` (Go's `Sprintf` on string arguments): `%s` takes the next argument,
    /// `%[n]s` the n-th (and the next `%s` the one after it), `%%` is a percent sign.
    static func format(_ msg: String, _ subs: [String]) -> String {
        // Vale's `CondSprintf` appends an empty argument and `%[n]s` for it, so that an unused
        // argument is no error (and a message ending in `%` prints `%[n]s`, as Vale's does).
        // Read on bytes, as Go reads it: the directives are ASCII, and no byte of a longer UTF-8
        // character is (splitting messages into Characters was a tenth of the rules' time on a
        // chapter, and a combining mark after `%s` hid the directive).
        if !VB.contains(msg, byte: 37) { return msg }   // no `%`: only the empty `%[n]s` is added
        let subs = subs + [""]
        var chars = Array(msg.utf8)
        chars.append(contentsOf: "%[\(subs.count)]s".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(chars.count + 32)
        var i = 0, k = 0
        while k < chars.count {
            let c = chars[k]
            k += 1
            guard c == 37 else { out.append(c); continue }          // %
            if chars[k] == 37 { out.append(37); k += 1; continue }
            if chars[k] == 91, let close = chars[k...].firstIndex(of: 93),   // %[n]s
               let n = Int(String(decoding: chars[(k + 1)..<close], as: UTF8.self)),
               close + 1 < chars.count, chars[close + 1] == 115 {
                k = close + 2
                if n >= 1 && n <= subs.count { out.append(contentsOf: subs[n - 1].utf8); i = n }
                else { out.append(contentsOf: "%!s(BADINDEX)".utf8); i = n }
                continue
            }
            if chars[k] == 115 || chars[k] == 118 {                  // %s %v
                k += 1
                out.append(contentsOf: (i < subs.count ? subs[i] : "%!s(MISSING)").utf8)
                i += 1
                continue
            }
            out.append(c); out.append(chars[k]); k += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func toSentence(_ words: [String], _ andOr: String) -> String {
        if words.count == 1 { return "'\(words[0])'" }
        if words.count == 2 { return "'\(words[0])' or '\(words[1])'" }
        var w = words.map { "'\($0)'" }
        w[w.count - 1] = andOr + " " + w[w.count - 1]
        return w.joined(separator: ", ")
    }

    func fix(_ rule: ValeRule, _ match: String) -> [String] {
        switch rule.action {
        case "replace": return rule.actionParams
        case "remove": return [""]
        case "edit":
            guard let op = rule.actionParams.first else { return [match] }
            let p = Array(rule.actionParams.dropFirst())
            switch op {
            case "truncate": return [p.first.flatMap { match.components(separatedBy: $0).first } ?? match]
            case "trim_right": return [String(match.reversed().drop(while: { p.first?.contains($0) ?? false }).reversed())]
            case "trim_left": return [String(match.drop(while: { p.first?.contains($0) ?? false }))]
            case "trim": return [match.trimmingCharacters(in: CharacterSet(charactersIn: p.first ?? " "))]
            case "split":
                if p.count >= 2, let i = Int(p[1]) { let parts = match.components(separatedBy: p[0]); if i < parts.count { return [parts[i]] } }
                return [match]
            case "regex":
                if p.count >= 2, let re = try? ValeRegex(p[0]) { return [re.replace(match, template: p[1])] }
                return [match]
            default: return [match]
            }
        case "convert":
            if rule.actionParams.first == "lower" { return [match.lowercased()] }
            if rule.actionParams.first == "upper" { return [match.uppercased()] }
            return [match]
        default: return []
        }
    }

    func makeAlert(_ rule: ValeRule, _ span: Range<Int>, _ t: ValeText) -> RawAlert {
        let match = t.slice(span)
        var a = RawAlert(check: rule.name, severity: rule.level, span: (span.lowerBound, span.upperBound), match: match, message: "", link: rule.link)
        if !rule.action.isEmpty {
            let fixed = fix(rule, match)
            let repl = fixed.count == 1 ? fixed[0] : fixed.count > 1 ? Self.toSentence(fixed, "or") : match
            a.message = Self.format(rule.message, [match, repl])
            if rule.action == "replace" || rule.action == "remove" { a.replacements = fixed }
        } else {
            a.message = Self.format(rule.message, [match])
        }
        return a
    }

    func excepted(_ rule: ValeRule, _ s: String) -> Bool { rule.exceptRe?.isMatch(s) ?? false }

    /// A substitution term compiled to fill its `$n` replacement, once per document.
    var termRegexes: [String: ValeRegex?] = [:]
    func termRegex(_ pattern: String) -> ValeRegex? {
        if let known = termRegexes[pattern] { return known }
        let made = try? ValeRegex(pattern)
        termRegexes[pattern] = made
        return made
    }

    /// The prefilter's verdict on the block being linted: `.none` until computed.
    var blockHits: ValePrefilter.Hits?? = .none
    /// What the shares of a walk make of the block being linted alike (nil outside a replayed walk).
    var blockMade: ValeBlockMade?

    /// `re`'s matches in the block's text; none, without running it, when the block lacks its literals.
    func find(_ re: ValeRegex, _ t: ValeText) -> [ValeRegex.Match] {
        guard let hits = hits(t) else { return re.matches(in: t) }
        if !styles.prefilter.mayMatch(re, hits) { return [] }
        if let starts = styles.prefilter.starts(re, hits) { return re.matches(in: t, startingAt: starts) }
        return re.matches(in: t, prefiltered: true)
    }

    /// How many matches `find` would give, without making them where it can (an occurrence rule's count).
    func count(_ re: ValeRegex, _ t: ValeText) -> Int {
        guard let hits = hits(t) else { return re.count(in: t) }
        if !styles.prefilter.mayMatch(re, hits) { return 0 }
        if let starts = styles.prefilter.starts(re, hits) { return re.matches(in: t, startingAt: starts).count }
        return re.count(in: t, prefiltered: true)
    }

    /// The prefilter's verdict on the block `t` (computed once a block).
    func hits(_ t: ValeText) -> ValePrefilter.Hits? {
        if case .none = blockHits {
            let prefilter = styles.prefilter
            blockHits = .some(blockMade.map { $0.hits { prefilter.hits(t.string) } } ?? prefilter.hits(t.string))
        }
        return blockHits ?? nil
    }

    func run(_ rule: ValeRule, _ t: ValeText, _ blk: ValeBlock) -> [RawAlert] {
        var out: [RawAlert] = []
        switch rule.kind {
        case .existence(let re):
            for m in find(re, t) {
                let observed = VB.trimmed(t.slice(m.range))
                if !excepted(rule, observed) { out.append(makeAlert(rule, m.range, t)) }
            }
        case .substitution(let re, let terms, let repls, let capitalize):
            for m in find(re, t) {
                for gi in 1..<m.groups.count {
                    guard let g = m.groups[gi], gi - 1 < repls.count else { continue }
                    let observed = VB.trimmed(t.slice(g))
                    var expected = repls[gi - 1]
                    if capitalize && observed == Self.capFirst(observed) { expected = Self.capFirst(expected) }
                    if expected.utf8.contains(36), expected.range(of: "\\$\\d", options: .regularExpression) != nil,
                       let tr = termRegex((rule.ignorecase ? "(?i)" : "") + terms[gi - 1]) {
                        expected = tr.replace(observed, template: expected)
                    }
                    if matchToken(expected, observed) || excepted(rule, observed) { continue }
                    var message = rule.message
                    var replacements = VB.split(expected, "|")
                    if rule.action == "replace" && rule.actionParams.isEmpty {
                        // `capitalize` (and, as the packs' suites expect, `ignorecase` for all-lowercase terms)
                        // keeps a capitalised match capitalised.
                        if observed == Self.capFirst(observed),
                           capitalize || (rule.ignorecase && replacements.allSatisfy { $0 == $0.lowercased() }) {
                            replacements = replacements.map(Self.capFirst)
                        }
                        expected = Self.toSentence(replacements, "or")
                        for spec in ["'%s'", "\"%s\""] where VB.count(Array(message.utf8), Array(spec.utf8)) == 2 {
                            message = VB.replaceFirst(message, spec, with: "%s")
                        }
                    } else if rule.action == "replace" {
                        replacements = rule.actionParams
                    }
                    var a = makeAlert(rule, g, t)
                    a.message = Self.format(message, [expected, observed])
                    a.replacements = replacements
                    out.append(a)
                }
            }
        case .occurrence(let re, let mn, let mx):
            let n = count(re, t)
            if (mx > 0 && n > mx) || (mn > 0 && n < mn) {
                let ms = find(re, t)
                var a: RawAlert
                if n == 0 {
                    a = RawAlert(check: rule.name, severity: rule.level, span: (1, 1), match: "", message: "", link: rule.link)
                } else {
                    guard let first = ms.first(where: { m in
                        let s = t.slice(m.range)
                        return !VB.trimmed(s).isEmpty && !s.unicodeScalars.allSatisfy { $0 == "*" || $0 == "@" }
                    }) else { return [] }
                    a = makeAlert(rule, first.range, t)
                }
                a.message = Self.format(rule.message, [String(n)])
                out.append(a)
            }
        case .repetition(let re, let mx, let alpha, let ic):
            var prev = "", ploc: Range<Int> = 0..<0, count = 0
            for m in find(re, t) {
                let curr = VB.trimmed(t.slice(m.range))
                var hit = ic ? (curr.lowercased() == prev.lowercased() && !curr.isEmpty) : (curr == prev && !curr.isEmpty)
                hit = hit && (!alpha || curr.unicodeScalars.allSatisfy { $0.properties.isAlphabetic })
                if hit { count += 1 }
                if hit && count > mx {
                    let span = ploc.lowerBound..<m.range.upperBound
                    let conv = t.slice(span)
                    if !conv.contains("\n") && !excepted(rule, conv) {
                        var a = makeAlert(rule, span, t)
                        a.message = Self.format(rule.message, [curr])
                        out.append(a)
                        count = 0
                    }
                }
                ploc = m.range
                prev = curr
            }
        case .consistency(let steps):
            for step in steps {
                let ms = find(step.pattern, t)
                var loc: Range<Int>? = nil
                for m in ms {
                    for (gi, g) in m.groups.enumerated() where gi > 0 {
                        guard let g else { continue }
                        loc = g
                        if let name = step.groups[gi] { sequences.append(name) }
                    }
                }
                if !ms.isEmpty, let loc, step.subs.allSatisfy({ sequences.contains($0) }) {
                    out.append(makeAlert(rule, loc, t))
                }
            }
        case .capitalization(let match, let re, let exceptions, let threshold, let style, let indicators, let patterns):
            let s = blk.text
            var expected = ""
            var ok = true
            switch match {
            case "$title": (expected, ok) = ValeCase.title(s, exceptRe: rule.exceptRe, patterns: patterns, exceptions: exceptions, threshold: threshold, chicago: style == "Chicago")
            case "$sentence": (expected, ok) = ValeCase.sentence(s, exceptRe: rule.exceptRe, patterns: patterns, exceptions: exceptions, threshold: threshold, indicators: indicators)
            case "$lower": expected = s.lowercased(); ok = s == expected || excepted(rule, s)
            case "$upper": expected = s.uppercased(); ok = s == expected || excepted(rule, s)
            default: expected = re?.pattern ?? ""; ok = (re?.isMatch(s) ?? true) || excepted(rule, s)
            }
            if !ok {
                var a = makeAlert(rule, 0..<t.scalars.count, t)
                a.message = Self.format(rule.message, [s, expected])
                if rule.action == "replace" && rule.actionParams.isEmpty && (match == "$title" || match == "$sentence") { a.replacements = [expected] }
                out.append(a)
            }
        case .conditional(let first, let second):
            for m in find(second, t) {
                for g in m.groups.dropFirst() { if let g, !g.isEmpty { sequences.append(t.slice(g)) } }
            }
            for m in find(first, t) {
                let s = t.slice(m.range)
                if !sequences.contains(s) && !excepted(rule, s) { out.append(makeAlert(rule, m.range, t)) }
            }
        case .spelling(let check):
            // Vale's `Spelling.Run`: each word of the block's text; the place is the word's first
            // occurrence in that text, in bytes (`strings.Index`), -1 when the tokenizer changed it.
            let txt = VB.contains(blk.text, byte: 0xE2)
                ? blk.text.replacingOccurrences(of: "\u{2019}", with: "'").replacingOccurrences(of: "\u{2018}", with: "'") : blk.text
            let bytes = Array(txt.utf8)
            for word in ValeSpellCheck.tokenize(txt) {
                if check.filters.contains(where: { $0.isMatch(word) }) { continue }
                if check.accepts(word) || excepted(rule, word) { continue }
                let wb = Array(word.utf8)
                let off = VB.index(bytes, wb) ?? -1
                out.append(RawAlert(check: rule.name, severity: rule.level, span: (off, off + wb.count), match: word,
                                    message: Self.format(rule.message, [word]), link: rule.link))
            }
        case .sequence(let seq):
            let words: [ValeNLP.Token]
            if let cached = nlpCache, cached.text == blk.text { words = cached.words } else {
                words = ValeNLP.tokens(blk.text)
                nlpCache = (blk.text, words)
            }
            for h in seq.run(blk.text, words: words) {
                // Vale places it by the words' byte offset in the sentence, as it does.
                var a = RawAlert(check: rule.name, severity: rule.level, span: (h.byteOffset, h.byteOffset + h.match.utf8.count),
                                 match: h.match, message: Self.format(rule.message, h.steps), link: rule.link)
                a.offset = h.skippedAnchors
                if rule.action == "replace" || rule.action == "remove" { a.replacements = fix(rule, h.match) }
                out.append(a)
            }
        case .script(let program):
            // Vale's `Script.Run`: the script sees the block's text as `scope` and leaves its
            // findings in `matches` ({begin, end[, message]}, byte offsets into the text).
            if styles.scriptFailures.isStopped(rule.name) { break }
            let scope: Tengo.Scope
            do { scope = try Tengo.run(program, globals: ["scope": .string(blk.text)]) } catch {
                if let f = error as? Tengo.Failure, f.exhausted {
                    styles.scriptFailures.stop(rule.name)
                    styles.scriptFailures.add("\(cfg.path): \(rule.name): the script ran too long and is stopped until the styles change")
                } else {
                    styles.scriptFailures.add("\(cfg.path): \(rule.name): the script failed: \(error)")
                }
                break
            }
            guard case .array(let found)? = scope.lookup("matches") else { break }
            let bytes = Array(blk.text.utf8)
            for case .map(let m) in found.items {
                guard case .int(let b)? = m.items["begin"], case .int(let e)? = m.items["end"], b >= 0, b <= e, e <= bytes.count else { continue }
                let match = String(decoding: bytes[Int(b)..<Int(e)], as: UTF8.self)
                var message = rule.message
                if case .string(let own)? = m.items["message"] { message = own }
                out.append(RawAlert(check: rule.name, severity: rule.level, span: (Int(b), Int(e)), match: match,
                                    message: Self.format(message, [match]), link: rule.link))
            }
        case .readability(let names, let grade):
            guard let res = ValeMetric.readability(names, summary: summary, metrics: metrics), res > grade else { break }
            var a = RawAlert(check: rule.name, severity: rule.level, span: (1, 1), match: "", message: "", link: rule.link)
            a.message = Self.format(rule.message, [String(format: "%.2f", res)])
            out.append(a)
        case .metric(let formula, let condition):
            guard let (res, fire) = ValeMetric.evaluate(formula: formula, condition: condition, summary: summary, metrics: metrics), fire else { break }
            var a = RawAlert(check: rule.name, severity: rule.level, span: (1, 1), match: "", message: "", link: rule.link)
            a.message = Self.format(rule.message, [String(format: "%.2f", res)])
            out.append(a)
        }
        return out
    }

    static func capFirst(_ s: String) -> String {
        guard let f = s.first else { return s }
        return f.uppercased() + s.dropFirst()
    }

    /// Vale's `matchToken`: the match is the replacement already (a phrase compared as it is, else
    /// the replacement read as a pattern, compiled once per replacement and document).
    func matchToken(_ expected: String, _ observed: String) -> Bool {
        if ValeStyles.isPhrase(expected) { return expected == observed }
        let re: ValeRegex?
        if let known = tokenRegexes[expected] { re = known } else {
            re = try? ValeRegex("^(?:" + expected + ")$")
            tokenRegexes[expected] = re
        }
        guard let re else { return expected == observed }
        return re.isMatch(observed)
    }
    var tokenRegexes: [String: ValeRegex?] = [:]

    // MARK: - Location (Vale's core/file.go and location.go)

    func addAlert(_ raw: RawAlert, blk: ValeBlock, lookup: Bool, limit: Int) {
        var a = raw
        var ctx = blk.context
        // Taken out of the table so that this alert's mark is made in place.
        var reported = false
        if let before = chkToCtx.removeValue(forKey: a.check) {
            reported = true
            switch before {
            case .pending(let at, let match): VB.substituteInPlace(&ctx, match, 35, at: at)
            case .made(let made): ctx = made
            }
        }
        let matchB = VB.bytes(a.match)
        if a.offset.isEmpty && ctx.count < 1000 && VB.count(ctx, matchB) > 1 {
            a.offset = VB.fields(Array(ctx[0..<max(0, min(a.span.0, ctx.count))]))
        }
        var line = 0
        var span = a.span
        if !lookup { (line, span) = assignLoc(ctx, blk, a) }
        if (!lookup && span.0 < 0) || lookup {
            a.span = span
            (line, span) = findLoc(ctx, blk.text, a)
        }
        guard span.0 > 0 else {
            if reported { chkToCtx[a.check] = .made(ctx) }
            return
        }
        let first: Int?
        if blk.fromContent, contentIndex?.covers(matchB, in: ctx) == true {
            // The block's context is the content itself while the walker has masked nothing since.
            let current = blk.context.withUnsafeBufferPointer { a in content.withUnsafeBufferPointer { a.baseAddress == $0.baseAddress } }
            first = contentIndex?.first(matchB, in: ctx, known: current) ?? nil
        } else {
            first = VB.index(ctx, matchB)
        }
        if !reported {
            if let first { chkToCtx[a.check] = .pending(at: first, match: matchB) }
        } else {
            VB.substituteInPlace(&ctx, matchB, 35, at: first)
            chkToCtx[a.check] = .made(ctx)
        }
        let key = "\(line)-\(span.0)-\(a.check)"
        guard !history.contains(key) else { return }
        let used = limits[a.check] ?? 0
        if limit == 0 || used < limit {
            alerts.append(ValeAlert(check: a.check, severity: a.severity, line: line, span: span, match: a.match,
                                    message: a.message, link: a.link, replacements: a.replacements,
                                    order: ValeAlert.Order(block: blockCount, rule: ruleOrdinal)))
            history.insert(key)
            if limit > 0 { limits[a.check] = used + 1 }
        }
    }

    /// Vale's `initialPosition`: the rune column (1-based) where `a.match` is found in `ctx`, searched
    /// after the first occurrence of the block text `txt` (everything before it masked with `@`),
    /// at word boundaries, preferring a place not next to a backtick or hyphen.
    func initialPosition(_ ctx: [UInt8], _ txt: [UInt8], _ a: RawAlert) -> (Int, [UInt8]) {
        if a.match.isEmpty { return (1, []) }
        let sub = VB.bytes(a.match)
        if let off = VB.index(ctx, txt), off > 0 {
            // Masking keeps one byte per rune, which moves byte offsets but not rune counts; a match
            // starting with neither `@` nor a newline cannot start in the masked part, so the search
            // runs on `ctx` itself from `off`, its left neighbour there read as the mask.
            let masked = { VB.substitute(ctx, Array(ctx[0..<off]), 64) }
            if sub[0] == 64 || sub[0] == 10 {
                let found = Self.locate(masked(), sub, from: 0)
                return found.0 < 0 ? Self.guessLocation(masked(), txt, sub) : found
            }
            let found = Self.locate(ctx, sub, from: off)
            return found.0 < 0 ? Self.guessLocation(masked(), txt, sub) : found
        }
        let found = Self.locate(ctx, sub, from: 0)
        return found.0 < 0 ? Self.guessLocation(ctx, txt, sub) : found
    }

    /// Vale's `guessLocation`, for a match the context does not hold as such (inline markup joined
    /// it, as in `[the API in](…) in`): the first line of `ctx` holding every word of the last
    /// sentence of the block that contains the match; the place is that line's byte offset + 1.
    static func guessLocation(_ ctx: [UInt8], _ txt: [UInt8], _ match: [UInt8]) -> (Int, [UInt8]) {
        let m = VB.str(match)
        var target = ""
        for s in ValeSentences.split(VB.str(txt)) {
            if s == m { target = s } else if let r = s.range(of: m), r.lowerBound > s.startIndex { target = s }
        }
        if target.isEmpty { return (-1, txt) }
        let tokens = ValeSpellCheck.tokenize(target).map { Array($0.utf8) }
        for line in ctx.split(separator: 10, omittingEmptySubsequences: false) {
            let l = Array(line)
            if tokens.allSatisfy({ VB.contains(l, $0) }) {
                return ((VB.index(ctx, l) ?? -1) + 1, l)
            }
        }
        return (-1, txt)
    }

    /// The search of `initialPosition` in `ctx` whose bytes below `from` read as `@` (newlines kept).
    static func locate(_ ctx: [UInt8], _ sub: [UInt8], from: Int) -> (Int, [UInt8]) {
        let n = ctx.count
        func byte(_ i: Int) -> UInt8 { i >= from ? ctx[i] : ctx[i] == 10 ? 10 : 64 }
        func boundary(_ i: Int) -> Bool {
            let l = i > 0 ? VB.isWord(byte(i - 1)) : false
            let r = i < n ? VB.isWord(byte(i)) : false
            return l != r
        }
        // `(?:^|\b|_)` + QuoteMeta(sub) + `(?:_|\b|$)` with Go's ASCII \b, leftmost first.
        func rightEnd(_ e: Int) -> Int? {
            if e < n && byte(e) == 95 { return e + 1 }
            if boundary(e) || e == n { return e }
            return nil
        }
        func at(_ i: Int) -> Bool {
            guard i >= from, i + sub.count <= n else { return false }
            var k = 0
            while k < sub.count { if ctx[i + k] != sub[k] { return false }; k += 1 }
            return true
        }
        var first: Int? = nil, chosen: Int? = nil
        var i = from
        while i < n {
            // Only a place where `sub` starts at i or i + 1 can match: jump to the next one.
            guard let j = VB.index(ctx, sub, from: i) else { break }
            if j - 1 > i { i = j - 1 }
            var hit: (Int, Int)? = nil
            if (i == 0 || boundary(i)) && at(i), let e = rightEnd(i + sub.count) { hit = (i, e) }
            else if byte(i) == 95 && at(i + 1), let e = rightEnd(i + 1 + sub.count) { hit = (i, e) }
            guard let (s, e) = hit else { i += 1; continue }
            if first == nil { first = s }
            let before = s - 1, after = e + 1
            let nextToCode = (before > 0 && (byte(before) == 96 || byte(before) == 45)) || (after < n && (byte(after) == 96 || byte(after) == 45))
            if !nextToCode { chosen = s; break }
            i = max(e, i + 1)
        }
        var idx: Int
        if let c = chosen ?? first { idx = c }
        else {
            guard let k = VB.index(ctx, sub, from: from) else { return (-1, sub) }
            idx = k
        }
        if idx < n && byte(idx) == 95 { idx += 1 }
        return (VB.runes(ctx[..<idx]) + 1, sub)
    }

    /// The alert's span on its line `la`: where `initialPosition` places the match, its end kept
    /// within the line.
    func lineSpan(_ la: [UInt8], _ txt: [UInt8], _ a: RawAlert) -> (Int, Int) {
        let length = VB.runes(la)
        let (pos, substring) = initialPosition(la, txt, a)
        var end = pos + VB.runes(substring) - 1
        if end > length { end = length } else if end <= 0 { end = 1 }
        return (pos, end)
    }

    func assignLoc(_ ctx: [UInt8], _ blk: ValeBlock, _ a: RawAlert) -> (Int, (Int, Int)) {
        let loc = a.span
        if loc.0 < 0 || loc.1 < 0 { return (blk.line + 1, a.span) }
        let txt = VB.bytes(blk.text)
        let m = VB.bytes(a.match)
        // A context made from the content by masks of the same length has the content's newlines:
        // its lines come from them, not from a search from the top for every alert.
        if blk.fromContent && blk.line >= 0 && ctx.count == content.count {
            let nl = contentNewlines
            let n = ctx.count
            let hit: Int? = ctx.withUnsafeBufferPointer { c -> Int? in
                m.withUnsafeBufferPointer { mb -> Int? in
                    guard let cb = c.baseAddress else { return nil }
                    let width = loc.1 - loc.0
                    // A slice of another width than the match never equals it.
                    guard loc.0 <= loc.1, width == mb.count else { return nil }
                    var i = 0, start = 0
                    while i < blk.line && i <= nl.count {
                        let end = i < nl.count ? nl[i] + 1 : n
                        // `exact`: the line is longer than `loc.1` and holds the match at `loc.0`.
                        if end - start > loc.1, width == 0 || (mb.baseAddress.map { memcmp(cb + start + loc.0, $0, width) == 0 } ?? false) {
                            return i
                        }
                        if i == nl.count { break }
                        start = end
                        i += 1
                    }
                    return nil
                }
            }
            let i = hit ?? blk.line
            if i <= nl.count {
                let start = i > 0 ? nl[i - 1] + 1 : 0
                let end = i < nl.count ? nl[i] + 1 : n
                return (i + 1, lineSpan(Array(ctx[start..<end]), txt, a))
            }
            return (blk.line + 1, a.span)
        }
        // The lines of `ctx` as `strings.SplitAfter(ctx, "\n")` gives them, read in place.
        var start = 0, i = 0
        let n = ctx.count
        while true {
            let nl = VB.index(ctx, [10], from: start)
            let end = nl.map { $0 + 1 } ?? n
            let count = end - start
            let exact = count > loc.1 && loc.0 <= loc.1 && ctx[(start + loc.0)..<(start + loc.1)].elementsEqual(m)
            if exact || i == blk.line {
                return (i + 1, lineSpan(Array(ctx[start..<end]), txt, a))
            }
            guard nl != nil else { break }
            start = end
            i += 1
        }
        return (blk.line + 1, a.span)
    }

    func findLoc(_ ctxIn: [UInt8], _ s: String, _ a: RawAlert) -> (Int, (Int, Int)) {
        var ctx = ctxIn
        for o in a.offset { ctx = VB.substitute(ctx, o, 64) }
        let (pos, substring) = initialPosition(ctx, VB.bytes(s), a)
        if pos < 0 { return (pos, (0, 0)) }
        var loc = a.span
        // The first line whose end reaches `pos` (line lengths summed once per document).
        let i = Self.countBelow(lineRuneEnds, pos)
        if i < lines.count {
            let counter = i > 0 ? lineRuneEnds[i - 1] : 0
            let length = lineRuneEnds[i] - counter
            loc.0 = pos - counter
            loc.1 = loc.0 + VB.runes(substring) - 1
            if loc.1 > length { loc.1 = length } else if loc.1 <= 0 { loc.1 = 1 }
            return (i + 1, loc)
        }
        return (lines.count, loc)
    }
}
