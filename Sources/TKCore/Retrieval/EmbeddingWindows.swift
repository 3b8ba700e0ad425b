import Foundation

/// Texts that fit the embedding model: a passage longer than the model reads is embedded as
/// overlapping windows (each with the passage's heading path), so that its end is not cut off
/// unseen by the model's truncation. Pure: the worker plans windows with it, tests check them.
public enum EmbeddingWindows {
    /// The share of the model's context a window fills: `estimatedTokens` is within 1.2× of
    /// MiniLM's WordPiece count for 99% of 200-word stretches of the corpora (bench/RESULTS.md,
    /// "Retrieval with the model's context"), and the overlap re-reads a window's tail anyway.
    public static let fill = 0.8
    /// The share of a window the next one repeats (500 tokens with 100 of overlap, as the common
    /// default; a fixed share, not a constant tuned to a model).
    public static let overlap = 0.2

    /// A conservative count of the word pieces a BERT- or BPE-style tokenizer makes of `text`,
    /// without its vocabulary: a word of up to 4 letters is one piece, a longer one a piece more
    /// for every 3 letters after the 4th (camel-case parts counted apart), digits a piece per 3,
    /// every other visible character one.
    public static func estimatedTokens(_ text: String) -> Int {
        var text = text
        return text.withUTF8 { estimatedTokens(bytes: $0) }
    }

    static func estimatedTokens(bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var n = 0
        var letters = 0
        var digits = 0
        var lastLower = false
        @inline(__always) func endWord() {
            if letters > 0 { n += letters <= 4 ? 1 : 1 + (letters - 4 + 2) / 3 }
            if digits > 0 { n += (digits + 2) / 3 }
            letters = 0; digits = 0; lastLower = false
        }
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b >= 0xC0 {
                // A multi-byte character: a letter of another script or a symbol; counted as a
                // letter of a word (accents are stripped by most tokenizers, CJK is one a piece).
                var len = 1
                if b >= 0xF0 { len = 4 } else if b >= 0xE0 { len = 3 } else { len = 2 }
                if digits > 0 { n += (digits + 2) / 3; digits = 0 }
                if b >= 0xE3 && b <= 0xED { endWord(); n += 1 } else { letters += 1; lastLower = true }
                i += len
                continue
            }
            if b >= 0x80 { i += 1; continue }  // a continuation byte out of place
            let isUpper = b >= 65 && b <= 90, isLower = b >= 97 && b <= 122
            if isUpper || isLower {
                if digits > 0 { n += (digits + 2) / 3; digits = 0 }
                // A capital after a small letter starts a new word piece (`OutlookCalendarCheck`).
                if isUpper && lastLower { n += letters <= 4 ? 1 : 1 + (letters - 4 + 2) / 3; letters = 0 }
                letters += 1
                lastLower = isLower
            } else if b >= 48 && b <= 57 {
                if letters > 0 { n += letters <= 4 ? 1 : 1 + (letters - 4 + 2) / 3; letters = 0; lastLower = false }
                digits += 1
            } else {
                endWord()
                if b > 32 && b != 127 { n += 1 }
            }
            i += 1
        }
        endWord()
        return n
    }

    /// The windowing's version: a change to how texts are cut (the estimate, the overlap) changes
    /// every plan, so passages are planned and embedded anew.
    public static let version: Int64 = 1

    /// What `passage_window.plan` holds for windows of `budget` tokens.
    public static func plan(budget: Int) -> Int64 { version << 32 | Int64(max(0, budget)) }

    /// How many tokens a window may hold for a model that reads `contextTokens`.
    public static func budget(contextTokens: Int) -> Int {
        max(16, Int(Double(contextTokens) * fill))
    }

    /// What to embed for a passage: its heading path and text whole when they fit `budget`, else
    /// overlapping windows of its words, each prefixed with the heading path. Whitespace inside a
    /// window is kept as in the passage.
    public static func texts(heading: String, text: String, budget: Int) -> [String] {
        let whole = heading.isEmpty ? text : heading + "\n\n" + text
        if estimatedTokens(whole) <= budget { return [whole] }
        let prefix = heading.isEmpty ? "" : heading + "\n\n"
        // A heading path longer than half a window is itself cut (it only names the place).
        let headingTokens = estimatedTokens(prefix)
        let room = max(8, budget - min(headingTokens, budget / 2))
        let head = headingTokens > budget / 2 ? "" : prefix
        // The passage's words (runs of non-whitespace) with their estimated tokens.
        var words: [(range: Range<String.Index>, tokens: Int)] = []
        var start: String.Index?
        var i = text.startIndex
        while i < text.endIndex {
            let isSpace = text[i].isWhitespace
            if isSpace, let s = start { words.append((s..<i, estimatedTokens(String(text[s..<i])))); start = nil }
            if !isSpace, start == nil { start = i }
            i = text.index(after: i)
        }
        if let s = start { words.append((s..<text.endIndex, estimatedTokens(String(text[s..<text.endIndex])))) }
        guard !words.isEmpty else { return [whole] }
        let step = max(1, Int(Double(room) * (1 - overlap)))
        var out: [String] = []
        var first = 0
        while first < words.count {
            var last = first
            var used = words[first].tokens
            while last + 1 < words.count, used + words[last + 1].tokens <= room {
                last += 1
                used += words[last].tokens
            }
            out.append(head + String(text[words[first].range.lowerBound..<words[last].range.upperBound]))
            if last == words.count - 1 { break }
            // The next window starts `step` tokens on (at least a word on), so that it repeats
            // the end of this one.
            var next = first
            var advanced = 0
            while next < last, advanced + words[next].tokens <= step {
                advanced += words[next].tokens
                next += 1
            }
            first = max(next, first + 1)
        }
        return out
    }

    /// The key a window's vector is stored under: the first 64 bits of the SHA-256 of its text.
    public static func key(_ window: String) -> Int64 {
        PassageChunk.key(SHA256Digest.hex(Array(window.utf8)))
    }
}

/// How many tokens an embedding model reads, from what is known of it.
public enum EmbeddingContext {
    /// When nothing else is known: what most sentence models read (BERT's 512).
    public static let fallback = 512
    /// Ollama's own context when a model sets no `num_ctx` (its runner's default).
    public static let ollamaDefaultContext = 2048

    /// What the model was trained to read, for the models writers run whose server reports more
    /// than they use (Ollama reports `all-minilm`'s 512 positions; it was trained on 256 and
    /// sentence-transformers truncates there). Matched on the model name without tag.
    static let known: [(name: String, tokens: Int)] = [
        ("all-minilm", 256), ("paraphrase-multilingual", 128), ("paraphrase-minilm", 128),
        ("mxbai-embed-large", 512), ("snowflake-arctic-embed", 512), ("bge-large", 512), ("bge-base", 512),
        ("bge-small", 512), ("bge-m3", 8192), ("nomic-embed-text", 8192), ("granite-embedding", 512),
        ("text-embedding-3-small", 8191), ("text-embedding-3-large", 8191), ("text-embedding-ada-002", 8191),
    ]

    /// The table's figure for `model`, if it names one of the known models.
    public static func tableTokens(model: String) -> Int? {
        let name = model.lowercased().split(separator: ":").first.map(String.init) ?? model.lowercased()
        let base = name.split(separator: "/").last.map(String.init) ?? name
        return known.first { base.hasPrefix($0.name) || base.contains($0.name) }?.tokens
    }

    /// Ollama's `/api/show` reply: the smallest of the architecture's `*.context_length` and the
    /// `num_ctx` parameter (or Ollama's default when none is set), nil when it says neither.
    public static func fromOllamaShow(_ json: JSONValue) -> Int? {
        var length: Int?
        if case .object(let info)? = json["model_info"] {
            for (k, v) in info where k.hasSuffix(".context_length") {
                if let d = v.doubleValue, d > 0 { length = min(length ?? Int(d), Int(d)) }
            }
        }
        var numCtx: Int?
        for line in (json["parameters"]?.stringValue ?? "").split(separator: "\n") {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            if parts.count >= 2, parts[0] == "num_ctx", let n = Int(parts[1]), n > 0 { numCtx = n }
        }
        guard let length else { return numCtx }
        return min(length, numCtx ?? ollamaDefaultContext)
    }

    /// The context to plan windows for: the writer's `embeddings.max_tokens`, else the smallest of
    /// what the server says and the table's figure, else `fallback`.
    public static func resolve(configured: Int?, server: Int?, model: String) -> Int {
        if let configured, configured > 0 { return configured }
        let found = [server, tableTokens(model: model)].compactMap { $0 }.filter { $0 > 0 }
        return found.min() ?? fallback
    }
}
