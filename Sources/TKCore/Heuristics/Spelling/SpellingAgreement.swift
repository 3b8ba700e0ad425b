extension HeuristicsEngine {
    /// The distinct words the spelling pass asks the dictionary about in `doc` (no allow-list; ’ as '),
    /// in first-seen order: for comparing the word table with Hunspell (`spelling-agreement`).
    public func spellingCandidates(in doc: MarkdownDocument) -> [String] {
        var spell = SpellCollector()
        doc.bytes.withUnsafeBufferPointer { p in
            let tokenizer = Tokenizer(lexicon: lexicon)
            var tokens: [Token] = []
            var sentences: [Sentence] = []
            for block in doc.proseBlocks {
                tokenizer.tokenize(p, block: block, tokens: &tokens, sentences: &sentences)
                spell.collect(p, tokens: tokens, allowed: [Bool](repeating: false, count: tokens.count))
            }
        }
        return spell.entries.map { w in
            let t = doc.text(w.start..<w.end)
            return t.contains("\u{2019}") ? t.replacingOccurrences(of: "\u{2019}", with: "'") : t
        }
    }
}

/// How the word table's verdicts compare with `Hunspell_spell` on a list of words.
public struct SpellingAgreement: Sendable, Codable {
    public var language: String
    public var words = 0
    public var agree = 0
    /// Words the table accepts and Hunspell does not, and the other way round.
    public var tableOnly: [String] = []
    public var hunspellOnly: [String] = []
    /// False when the table does not serve this dictionary (an unmodelled `.aff`).
    public var tableServes = true

    /// Compares on `words` (each distinct word once).
    public static func compare(_ words: [String], speller: Speller) -> SpellingAgreement {
        var out = SpellingAgreement(language: speller.language)
        var seen = Set<String>()
        for w in words where seen.insert(w).inserted {
            guard let t = speller.tableAccepts(w) else { out.tableServes = false; return out }
            let h = speller.hunspellAccepts(w)
            out.words += 1
            if t == h { out.agree += 1 } else if t { out.tableOnly.append(w) } else { out.hunspellOnly.append(w) }
        }
        return out
    }
}
