/// Passages in another language: found per block, left alone by the English rules, spell-checked with
/// their own dictionary when one is installed (else noted once per document).
extension Run {
    /// Marks `foreign` for the block's set-apart passages (a block quote, a quotation or line of dialogue,
    /// an emphasised phrase) that read as another language, and tallies the document's language.
    mutating func markForeign(_ p: UnsafeBufferPointer<UInt8>, block: ProseBlock, tokens: [Token]) {
        let n = tokens.count
        foreign.removeAll(keepingCapacity: true)
        foreign.append(contentsOf: repeatElement(false, count: n))
        passages.removeAll(keepingCapacity: true)
        defer {
            // The document's own language: what is not set apart.
            for t in tokens { wholeTally.add(p, t) }
            if !block.inBlockQuote {
                for (k, t) in tokens.enumerated() where !t.flags.contains(.inQuote) && !foreign[k] { documentTally.add(p, t) }
            }
        }
        if block.inBlockQuote {
            classify(p, 0..<n, tokens: tokens)
            return
        }
        let lo = block.range.lowerBound, hi = min(block.range.upperBound, p.count)
        func isEmphasis(_ i: Int) -> Bool { i >= lo && i < hi && (p[i] == 42 || p[i] == 95) }
        var k = 0
        while k < n {
            if tokens[k].flags.contains(.inQuote) {
                var e = k
                while e < n && tokens[e].flags.contains(.inQuote) { e += 1 }
                classify(p, k..<e, tokens: tokens)
                k = e
                continue
            }
            if isEmphasis(tokens[k].start - 1) {
                var e = k
                while e < n && !isEmphasis(tokens[e].end) { e += 1 }
                if e < n {
                    classify(p, k..<(e + 1), tokens: tokens)
                    k = e + 1
                    continue
                }
            }
            k += 1
        }
    }

    private mutating func classify(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, tokens: [Token]) {
        guard !range.isEmpty else { return }
        var tally = LanguageGuess.Tally()
        for k in range { tally.add(p, tokens[k]) }
        guard let language = tally.foreign else { return }
        for k in range { foreign[k] = true }
        passages.append((range, language))
        if firstForeign == nil { firstForeign = (tokens[range.lowerBound].start, tokens[range.lowerBound].end) }
    }

    /// Words for spelling: English ones into `spell`, those of foreign passages into their language's collector.
    mutating func collectSpelling(_ p: UnsafeBufferPointer<UInt8>, tokens: [Token]) {
        if passages.isEmpty {
            spell.collect(p, tokens: tokens, allowed: allowed)
            return
        }
        var skip = allowed
        for k in skip.indices where foreign[k] { skip[k] = true }
        spell.collect(p, tokens: tokens, allowed: skip)
        for (range, language) in passages {
            var only = [Bool](repeating: true, count: tokens.count)
            for k in range { only[k] = allowed[k] }
            passageSpell[language, default: SpellCollector()].collect(p, tokens: tokens, allowed: only)
        }
    }

    /// Spell-checks foreign passages with their dictionaries; one info finding names those left unchecked.
    mutating func spellPassages(project: ProjectWords) {
        guard !passageSpell.isEmpty else { return }
        var missing: [(String, String)] = []
        for language in passageSpell.keys.sorted() {
            let dictionary = LanguageGuess.dictionaries[language] ?? language
            switch Speller.named(dictionary) {
            case .success(let speller):
                for h in passageSpell[language]!.unknown(in: doc, speller: speller, project: project, cap: engine.options.maxSpellingFindings) {
                    candidates.append(Candidate(start: h.start, end: h.end, rule: "spelling", category: .spelling,
                                                severity: .suggestion, message: h.message, replacements: h.replacements))
                }
            case .failure:
                missing.append((language, dictionary))
            }
        }
        if !missing.isEmpty, let (s, e) = firstForeign, !engine.isDisabled("other_language", .other) {
            candidates.append(Candidate(start: s, end: e, rule: "other_language", category: .other, severity: .info,
                                        message: Messages.otherLanguage(missing.map(\.0), missing: missing.map(\.1)),
                                        replacements: []))
        }
    }

    /// A document in another language: spelling with that language's dictionary, or one info finding.
    mutating func spellDocument(in language: String, project: ProjectWords) {
        let dictionary = LanguageGuess.dictionaries[language] ?? language
        switch Speller.named(dictionary) {
        case .success(let speller):
            addSpelling(speller: speller, project: project)
        case .failure:
            guard !engine.isDisabled("other_language", .other), let first = doc.proseBlocks.first else { return }
            let s = first.range.lowerBound
            var e = s
            doc.bytes.withUnsafeBufferPointer { p in
                while e < min(first.range.upperBound, p.count), p[e] != 10, p[e] != 32 { e += 1 }
            }
            candidates.append(Candidate(start: s, end: max(e, s), rule: "other_language", category: .other, severity: .info,
                                        message: Messages.otherLanguageDocument(language, dictionary: dictionary),
                                        replacements: []))
        }
    }
}
