/// Gathers the words of one document worth spell-checking, then checks each distinct word once.
///
/// Runs on the engine's tokens, so it sees only prose (never code spans or blocks, URLs, link
/// targets, HTML or front matter). Skipped: single letters, words with digits, `_` or an upper-case
/// letter after the first (acronyms, camelCase), tokens glued to `@`, `/`, `\` or a `.` inside a
/// word (handles, paths, domains), words of the `allow` list.
struct SpellCollector {
    struct Word {
        var start: Int
        var end: Int
        var count: Int
        /// How many of its occurrences `spans` keeps (at most `maxOccurrences`).
        var kept: Int
    }

    /// At most this many occurrences of one word are kept (and reported).
    static let maxOccurrences = 5

    /// Case-sensitive word hash → index in `entries` (first-seen order): an open-addressing table of
    /// `index + 1` (0: empty) whose keys are `order`'s. The hashes are FNV already, so no second hash
    /// (a `Dictionary` hashed each one again with SipHash, and the language server merges every
    /// paragraph's words per keystroke).
    private var slots: [Int32] = []
    private(set) var entries: [Word] = []
    private(set) var order: [UInt64] = []
    /// The kept occurrences, `maxOccurrences` (start, end) pairs a word, word `i` from `2 * maxOccurrences * i`
    /// (flat: no array per word, which a language server merging every paragraph's words per keystroke pays for).
    private var spans: [Int] = []

    /// The kept occurrences of word `i`, in document order.
    func occurrences(_ i: Int) -> [(Int, Int)] {
        let base = 2 * Self.maxOccurrences * i
        return (0..<entries[i].kept).map { (spans[base + 2 * $0], spans[base + 2 * $0 + 1]) }
    }

    private mutating func keep(_ i: Int, _ s: Int, _ e: Int) {
        let k = entries[i].kept
        guard k < Self.maxOccurrences else { return }
        let at = 2 * Self.maxOccurrences * i + 2 * k
        spans[at] = s
        spans[at + 1] = e
        entries[i].kept = k + 1
    }

    @inline(__always) private static func slot(_ key: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: key ^ (key >> 29)) & mask
    }

    /// The index of the word with this hash, or nil.
    private func find(_ key: UInt64) -> Int? {
        if slots.isEmpty { return nil }
        let mask = slots.count - 1
        var s = Self.slot(key, mask)
        while true {
            let v = Int(slots[s])
            if v == 0 { return nil }
            if order[v - 1] == key { return v - 1 }
            s = (s + 1) & mask
        }
    }

    private mutating func place(_ key: UInt64, _ i: Int) {
        let mask = slots.count - 1
        var s = Self.slot(key, mask)
        while slots[s] != 0 { s = (s + 1) & mask }
        slots[s] = Int32(i + 1)
    }

    /// Room in the table for `n` words at most half full.
    private mutating func reserveSlots(_ n: Int) {
        guard 2 * n > slots.count else { return }
        var size = max(16, slots.count)
        while size < 2 * n { size <<= 1 }
        slots = [Int32](repeating: 0, count: size)
        for (i, key) in order.enumerated() { place(key, i) }
    }

    private mutating func newWord(_ key: UInt64, start: Int, end: Int, count: Int) -> Int {
        let i = entries.count
        reserveSlots(i + 1)
        place(key, i)
        entries.append(Word(start: start, end: end, count: count, kept: 0))
        order.append(key)
        spans.append(contentsOf: repeatElement(0, count: 2 * Self.maxOccurrences))
        return i
    }

    mutating func collect(_ p: UnsafeBufferPointer<UInt8>, tokens: [Token], allowed: [Bool]) {
        let n = p.count
        for (t, tok) in tokens.enumerated() {
            if tok.flags.contains(.opaque) || tok.flags.contains(.numeric) || allowed[t] || tok.letters < 2 { continue }
            // Words of the rule tables are English words, spelt right: no need to ask Hunspell.
            if tok.entry >= 0 { continue }
            let s = tok.start, e = tok.end
            var h = WordHash.offset
            var ok = true
            var i = s
            while i < e {
                let c = p[i]
                if c >= 48 && c <= 57 || c == 95 || (i > s && c >= 65 && c <= 90) { ok = false; break }
                h = WordHash.add(h, c)
                i += 1
            }
            guard ok else { continue }
            if s > 0 {
                let b = p[s - 1]
                if b == 64 || b == 47 || b == 92 { continue }
                if b == 46, s > 1, TextClass.isASCIIWordByte(p[s - 2]) { continue }
            }
            if e < n {
                let a = p[e]
                if a == 64 || a == 47 || a == 92 { continue }
                if a == 46, e + 1 < n, TextClass.isASCIIWordByte(p[e + 1]) { continue }
            }
            let key = WordHash.finish(h)
            if let i = find(key) {
                entries[i].count += 1
                keep(i, s, e)
            } else {
                keep(newWord(key, start: s, end: e, count: 1), s, e)
            }
        }
    }

    /// Adds the words `other` collected, offsets moved by `shift`, exactly as if its tokens had been
    /// collected here after this collector's own (first-seen order, counts, the first occurrences).
    mutating func merge(_ other: SpellCollector, shift: Int) {
        reserve(entries.count + other.entries.count)
        for (j, key) in other.order.enumerated() {
            let w = other.entries[j]
            let i: Int
            if let found = find(key) {
                i = found
                entries[i].count += w.count
            } else {
                i = newWord(key, start: w.start + shift, end: w.end + shift, count: w.count)
            }
            let base = 2 * Self.maxOccurrences * j
            for k in 0..<w.kept {
                guard entries[i].kept < Self.maxOccurrences else { break }
                keep(i, other.spans[base + 2 * k] + shift, other.spans[base + 2 * k + 1] + shift)
            }
        }
    }

    /// Room for `n` words without growing again on the way (a merge of many small collectors).
    private mutating func reserve(_ n: Int) {
        guard n > entries.capacity else { return }
        let target = max(n, entries.capacity * 2)
        entries.reserveCapacity(target)
        order.reserveCapacity(target)
        reserveSlots(n)
        spans.reserveCapacity(target * 2 * Self.maxOccurrences)
    }

    /// Common informal spellings the dictionaries lack; flagging them is noise, not help.
    static let informal: Set<String> = ["ok", "ok'd", "ok'ing", "ok's", "hmm", "mmm", "uh", "huh", "aha", "oops", "yay", "ugh", "whoa"]

    struct Hit {
        var start: Int
        var end: Int
        var message: String
        var replacements: [String]
    }

    /// Unknown words, most frequent first (then in document order), at most `cap` findings and at most
    /// `maxOccurrences` occurrences of one word.
    func unknown(in doc: MarkdownDocument, speller: Speller, project: ProjectWords, cap: Int) -> [Hit] {
        guard !order.isEmpty, cap > 0 else { return [] }
        let entries = self.entries
        let text: @Sendable (Int) -> String = { i in
            let w = entries[i]
            let text = doc.text(w.start..<w.end)
            if text.utf8.contains(0xE2), text.contains("\u{2019}") { return text.replacingOccurrences(of: "\u{2019}", with: "'") }
            return text
        }
        // Texts only for the words the speller has not answered before, and for the misses.
        let known = speller.check(keys: order, word: text)
        var misses: [(entry: Int, text: String)] = []
        for i in order.indices where !known[i] {
            let t = text(i)
            if project.accepts(t) || Self.informal.contains(t.lowercased()) { continue }
            misses.append((i, t))
        }
        misses.sort { a, b in
            let wa = entries[a.entry].count, wb = entries[b.entry].count
            if wa != wb { return wa > wb }
            return entries[a.entry].start < entries[b.entry].start
        }
        var out: [Hit] = []
        // Suggestions only for the words shown (after the names, the project dictionary and the cap);
        // `Speller.suggestions` costs tens of microseconds a word and remembers each word's.
        for m in misses {
            guard out.count < cap else { break }
            let w = entries[m.entry]
            let suggestions = speller.suggestions(m.text, limit: 3)
            let message = Messages.spelling(m.text, count: w.count, language: speller.language, suggestions: suggestions)
            for (s, e) in occurrences(m.entry) {
                guard out.count < cap else { break }
                out.append(Hit(start: s, end: e, message: message, replacements: suggestions))
            }
        }
        return out
    }
}

extension Messages {
    static func spelling(_ word: String, count: Int, language: String, suggestions: [String]) -> String {
        let times = count > 1 ? " (\(count) times here)" : ""
        let instead = suggestions.isEmpty ? "" : " Did you mean " + suggestions.map(q).joined(separator: " or ") + "?"
        return "Unknown word \(q(word))\(times) for the \(language) dictionary.\(instead)"
            + " If it is right, add it to .tk/dictionary.txt."
    }
}
