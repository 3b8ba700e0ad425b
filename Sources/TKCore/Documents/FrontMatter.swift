import Yams

/// The `tk:` block of a document's front matter.
public struct TKBlock: Sendable, Equatable {
    public var storyType: String?
    public var advisors: [String]
    public var draftStage: String?
    /// `false` means: never send this document to an LLM.
    public var review: Bool?
    public var stage: String?
    /// `order: N`: the document's place in the project's reading order (`ask --until`).
    public var order: Double?

    public init(storyType: String? = nil, advisors: [String] = [], draftStage: String? = nil,
                review: Bool? = nil, stage: String? = nil) {
        self.storyType = storyType; self.advisors = advisors; self.draftStage = draftStage
        self.review = review; self.stage = stage
    }
}

/// YAML front matter: a `---` line at byte 0 up to the next `---` or `...` line.
public struct FrontMatter: Sendable, Equatable {
    public var title: String?
    public var tags: [String]
    public var tk: TKBlock
    /// Byte range of the whole block including both fence lines (and the closing fence's newline); `0..<0` if none.
    public var range: Range<Int>
    /// `lang:` (or `tk: lang:`): the document's language for spelling, e.g. `en_GB`.
    public var lang: String?
    /// `word_goal:` (or `word-goal:`), a positive number of words (`tk-agent progress`).
    public var wordGoal: Int?

    public init(title: String? = nil, tags: [String] = [], tk: TKBlock = TKBlock(), range: Range<Int> = 0..<0) {
        self.title = title; self.tags = tags; self.tk = tk; self.range = range
    }

    /// Finds the front matter block of `bytes`.
    /// - Returns: the block's byte range and the range of the YAML between the fences, or nil when
    ///   the document does not start with a `---` line that is closed by a `---` or `...` line.
    public static func locate(in bytes: [UInt8]) -> (block: Range<Int>, yaml: Range<Int>)? {
        let n = bytes.count
        // A UTF-8 byte order mark (Windows editors write one) may precede the opening fence.
        let bom = n >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
        guard n >= bom + 3, bytes[bom] == 45, bytes[bom + 1] == 45, bytes[bom + 2] == 45 else { return nil }
        // The opening line: `---` then optional spaces/tabs, then end of line.
        var i = bom + 3
        while i < n, bytes[i] == 32 || bytes[i] == 9 { i += 1 }
        if i < n, bytes[i] == 13 { i += 1 }
        guard i < n, bytes[i] == 10 else { return nil }
        let yamlStart = i + 1
        var lineStart = yamlStart
        while lineStart < n {
            var lineEnd = lineStart
            while lineEnd < n, bytes[lineEnd] != 10 { lineEnd += 1 }
            if isFence(bytes, lineStart, lineEnd) {
                let blockEnd = lineEnd < n ? lineEnd + 1 : n
                return (0..<blockEnd, yamlStart..<lineStart)
            }
            lineStart = lineEnd + 1
        }
        return nil
    }

    private static func isFence(_ b: [UInt8], _ s: Int, _ e: Int) -> Bool {
        guard e - s >= 3 else { return false }
        let c = b[s]
        guard (c == 45 || c == 46), b[s + 1] == c, b[s + 2] == c else { return false }
        var i = s + 3
        while i < e, b[i] == 32 || b[i] == 9 || b[i] == 13 { i += 1 }
        return i == e
    }

    /// Only booleans need resolving (`tk.review`); numbers and nulls are read from the text. The
    /// default resolver tries seven regular expressions on every scalar of every document, and the
    /// default encoding reads the whole process environment on every parse: together a tenth of a
    /// first index.
    static let resolver = Yams.Resolver.basic.appending(Yams.Resolver.Rule.bool)

    /// Parses the front matter of `bytes`.
    /// - Returns: the front matter (empty with `0..<0` when there is none) and a one-line problem
    ///   when the block exists but is not valid YAML or not a mapping.
    public static func parse(_ bytes: [UInt8]) -> (FrontMatter, String?) {
        guard let (block, yamlRange) = locate(in: bytes) else { return (FrontMatter(), nil) }
        var fm = FrontMatter(range: block)
        let yaml = String(decoding: bytes[yamlRange], as: UTF8.self)
        if yaml.allSatisfy({ $0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t" }) { return (fm, nil) }
        let node: Node?
        do {
            node = try Yams.compose(yaml: yaml, Self.resolver, .default, .utf8)
        } catch {
            return (fm, describe(error))
        }
        guard let node else { return (fm, nil) }
        guard let map = node.mapping else {
            return (fm, "front matter is not a YAML mapping (key: value lines); it is ignored")
        }
        fm.title = scalarString(map["title"])
        fm.tags = stringList(map["tags"])
        fm.lang = scalarString(map["lang"]) ?? scalarString(map["tk"]?.mapping?["lang"])
        fm.wordGoal = (scalarString(map["word_goal"]) ?? scalarString(map["word-goal"]))
            .flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0 > 0 ? $0 : nil }
        if let tk = map["tk"], let tkMap = tk.mapping {
            fm.tk.storyType = scalarString(tkMap["story_type"])
            fm.tk.advisors = stringList(tkMap["advisors"])
            fm.tk.draftStage = scalarString(tkMap["draft_stage"])
            fm.tk.stage = scalarString(tkMap["stage"])
            if let r = tkMap["review"] { fm.tk.review = r.bool }
            fm.tk.order = scalarString(tkMap["order"]).flatMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        }
        return (fm, nil)
    }

    private static func scalarString(_ node: Node?) -> String? {
        guard let node, let s = node.scalar else { return nil }
        if s.string.isEmpty || s.string == "~" || s.string == "null" { return nil }
        return s.string
    }

    /// A YAML list of scalars, or one comma-separated string.
    private static func stringList(_ node: Node?) -> [String] {
        guard let node else { return [] }
        if let seq = node.sequence {
            return seq.compactMap { scalarString($0)?.trimmingSpaces }.filter { !$0.isEmpty }
        }
        if let s = scalarString(node) {
            return s.split(separator: ",").map { String($0).trimmingSpaces }.filter { !$0.isEmpty }
        }
        return []
    }

    /// One line: what is wrong and where (line numbers of the file: the YAML starts on line 2).
    static func describe(_ error: any Error) -> String {
        func at(_ mark: Mark) -> String { "line \(mark.line + 1), column \(mark.column)" }
        if let e = error as? YamlError {
            switch e {
            case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
                 .composer(_, let problem, let mark, _):
                return "front matter is not valid YAML: \(problem) at \(at(mark)); fix it or the tk: settings are ignored"
            case .reader(let problem, _, _, _):
                return "front matter is not valid YAML: \(problem); fix it or the tk: settings are ignored"
            default:
                break
            }
        }
        let first = "\(error)".split(whereSeparator: { $0 == "\n" }).first.map(String.init) ?? "unknown error"
        return "front matter is not valid YAML: \(first); fix it or the tk: settings are ignored"
    }
}

fileprivate extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
