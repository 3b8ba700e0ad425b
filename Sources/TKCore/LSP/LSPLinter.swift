/// Quick findings for an open buffer, re-linting only the paragraphs that changed.
///
/// Documents under `chunkThreshold` bytes are linted whole, exactly as `tk-agent check`
/// does. Bigger ones are cut into paragraphs at blank lines (never inside front matter or a fenced
/// code block); each paragraph's findings are cached by the hash of its bytes, so a keystroke
/// re-lints one paragraph and reuses the rest. `<!-- tk-ignore -->` regions and
/// `<!-- tk-ignore-file -->` that span paragraphs are applied over the whole buffer afterwards.
public struct LSPLinter: Sendable {
    /// Whole-document passes (adverb and passive density, readability across paragraphs, the
    /// spelling cap) make a paragraph's findings depend on the rest: below this size the buffer is
    /// linted whole, so the editor shows exactly what `check` and the sidecar say. (At 32 KB, 9 of
    /// 40 long documents of the medium corpus differed.) Spelling runs whole at any size.
    public static let chunkThreshold = 256 * 1024

    struct Key: Hashable { var hash: Int; var count: Int }

    private var cache: [Key: [Finding]] = [:]
    private var cachedOptions: HeuristicsOptions?
    /// Paragraphs linted by the last call (the rest came from the cache).
    public private(set) var lastLinted = 0
    public private(set) var lastChunks = 0

    public init() {}

    /// The findings of `bytes`, in document order, with offsets into `bytes`.
    /// - Parameter project: the project's words (its dictionary, the names it uses), for spelling.
    ///   Spelling always runs on the whole buffer, so the per-document cap is the same as `check`'s.
    public mutating func findings(_ bytes: [UInt8], options: HeuristicsOptions, fileName: String,
                                  project: ProjectWords? = nil) -> [Finding] {
        guard bytes.count >= Self.chunkThreshold else {
            lastLinted = 1; lastChunks = 1
            return HeuristicsEngine(options: options).findings(in: MarkdownDocument(bytes: bytes, fileName: fileName), project: project)
        }
        if cachedOptions != options { cache.removeAll(); cachedOptions = options }
        // Spelling is a document-level pass (the names the document itself uses three times, the
        // cap on findings, most frequent words first): it runs on the whole buffer, as `check` and
        // the agent run it; the paragraphs are linted without it.
        var paragraphOptions = options
        paragraphOptions.spelling = false
        let paragraphEngine = HeuristicsEngine(options: paragraphOptions)
        let chunks = Self.chunks(bytes)
        var next: [Key: [Finding]] = [:]
        next.reserveCapacity(chunks.count)
        var out: [Finding] = []
        var linted = 0
        bytes.withUnsafeBufferPointer { p in
            for r in chunks {
                let slice = UnsafeBufferPointer(rebasing: p[r])
                var h = Hasher()
                h.combine(bytes: UnsafeRawBufferPointer(slice))
                let key = Key(hash: h.finalize(), count: r.count)
                let local: [Finding]
                if let hit = cache[key] ?? next[key] {
                    local = hit
                } else {
                    local = paragraphEngine.findings(in: MarkdownDocument(bytes: Array(slice), fileName: fileName), project: project)
                    linted += 1
                }
                next[key] = local
                for var f in local {
                    f.start += r.lowerBound
                    f.end += r.lowerBound
                    out.append(f)
                }
            }
        }
        cache = next
        lastLinted = linted
        lastChunks = chunks.count
        if options.spelling && !options.disabled.contains("spelling") {
            var spellingOnly = options
            spellingOnly.disabled = Set(FindingCategory.allCases.map(\.rawValue)).subtracting(["spelling"])
            spellingOnly.extraRules = []
            let spelled = HeuristicsEngine(options: spellingOnly)
                .findings(in: MarkdownDocument(bytes: bytes, fileName: fileName), project: project)
            if !spelled.isEmpty {
                out += spelled
                out.sort { ($0.start, $0.end) < ($1.start, $1.end) }
            }
        }
        let silences = Self.spanningSilences(bytes)
        if silences.isEmpty { return out }
        return out.filter { f in
            !silences.contains { s in
                s.range.contains(f.start)
                    && (s.names == nil || s.names!.contains(f.rule) || s.names!.contains(f.category.rawValue) || s.names!.contains("all"))
            }
        }
    }

    /// Paragraph ranges covering all of `bytes`: each ends after a blank line, except inside the
    /// front matter and fenced code blocks.
    static func chunks(_ bytes: [UInt8]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        let n = bytes.count
        var chunkStart = 0
        var i = 0
        // Front matter: the first chunk runs to its closing line.
        if n >= 4, bytes[0] == 45, bytes[1] == 45, bytes[2] == 45, bytes[3] == 10 || bytes[3] == 13 {
            var j = 4
            while j < n {
                let lineEnd = bytes[j..<n].firstIndex(of: 10) ?? n
                var k = j
                var dashes = 0, dots = 0
                while k < lineEnd, bytes[k] == 45 { dashes += 1; k += 1 }
                while k < lineEnd, bytes[k] == 46 { dots += 1; k += 1 }
                if (dashes == 3 || dots == 3) && (k == lineEnd || (k + 1 == lineEnd && bytes[k] == 13)) {
                    i = min(n, lineEnd + 1)
                    break
                }
                j = lineEnd + 1
            }
        }
        var fence: (char: UInt8, count: Int)?
        var previousBlank = false
        while i < n {
            let lineEnd = bytes[i..<n].firstIndex(of: 10) ?? n
            // Fence open / close.
            var k = i, indent = 0
            while k < lineEnd, bytes[k] == 32, indent < 4 { k += 1; indent += 1 }
            var blank = true
            for b in bytes[i..<lineEnd] where b != 32 && b != 9 && b != 13 { blank = false; break }
            if indent < 4, k < lineEnd, bytes[k] == 96 || bytes[k] == 126 {
                let c = bytes[k]
                var m = k
                while m < lineEnd, bytes[m] == c { m += 1 }
                let count = m - k
                if count >= 3 {
                    if let f = fence {
                        if f.char == c && count >= f.count { fence = nil }
                    } else {
                        fence = (c, count)
                    }
                }
            }
            let next = min(n, lineEnd + 1)
            if fence == nil && !blank && previousBlank && i > chunkStart {
                out.append(chunkStart..<i)
                chunkStart = i
            }
            previousBlank = blank && fence == nil
            i = next
        }
        if chunkStart < n || out.isEmpty { out.append(chunkStart..<n) }
        return out
    }

    struct Silence { var range: Range<Int>; var names: Set<String>? }

    /// `<!-- tk-ignore -->` … `<!-- tk-end-ignore -->` regions and `<!-- tk-ignore-file … -->`
    /// anywhere in the buffer (the per-paragraph pass sees only comments inside the paragraph).
    static func spanningSilences(_ bytes: [UInt8]) -> [Silence] {
        var out: [Silence] = []
        var open: Int?
        var i = 0
        let n = bytes.count
        while i + 4 <= n {
            guard bytes[i] == 60, bytes[i + 1] == 33, bytes[i + 2] == 45, bytes[i + 3] == 45 else { i += 1; continue }
            var j = i + 4
            var close = -1
            while j + 3 <= n {
                if bytes[j] == 45, bytes[j + 1] == 45, bytes[j + 2] == 62 { close = j; break }
                j += 1
            }
            guard close >= 0 else { break }
            let inner = String(decoding: bytes[(i + 4)..<close], as: UTF8.self)
            let words = inner.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            let head = words.first?.lowercased() ?? ""
            let rest = words.dropFirst().flatMap { $0.split(separator: ",") }.map { $0.lowercased() }.filter { !$0.isEmpty }
            switch head {
            case "tk-ignore" where rest.isEmpty:
                if open == nil { open = close + 3 }
            case "tk-end-ignore":
                if let o = open { out.append(Silence(range: o..<max(o, i), names: nil)); open = nil }
            case "tk-ignore-file":
                out.append(Silence(range: 0..<n, names: rest.isEmpty ? nil : Set(rest)))
            default:
                break
            }
            i = close + 3
        }
        if let o = open { out.append(Silence(range: o..<n, names: nil)) }
        return out
    }
}
