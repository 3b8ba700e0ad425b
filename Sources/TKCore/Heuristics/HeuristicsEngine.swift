import Dispatch
/// The quick prose heuristics: pure functions from a parsed document to findings.
///
/// Looks only at `MarkdownDocument.proseBlocks` (never code, URLs, link targets, HTML, front matter or
/// tables). One byte-level pass tokenizes each block; word facts and every phrase table live in one
/// hash table keyed by word hash, so the cost per word is a few table probes.
public struct HeuristicsEngine: Sendable {
    public let options: HeuristicsOptions
    let lexicon: Lexicon

    /// Builds the built-in phrase tables and decodes the built-in advisors on
    /// other threads, so that a short process such as `check` reads its configuration and arguments
    /// while they are made. The first engine waits for them (Swift's one-time initialisation), so
    /// calling this is never required.
    public static func warmUp() {
        DispatchQueue.global(qos: .userInitiated).async { _ = Lexicon.builtIn }
        DispatchQueue.global(qos: .userInitiated).async { _ = BuiltInCatalog.shared }
    }

    public init(options: HeuristicsOptions = HeuristicsOptions()) {
        self.options = options
        if options.extraRules.isEmpty && options.allow.isEmpty {
            lexicon = Lexicon.builtIn
        } else {
            lexicon = Lexicon.with(extraRules: options.extraRules, allow: options.allow)
        }
    }

    /// Rule ids of the built-in rules (each is also its category name).
    public static let ruleIDs: [String] = FindingCategory.allCases.filter { $0 != .other }.map(\.rawValue)

    /// Finds everything worth a look in `doc`, in document order.
    /// - Parameter project: the project's dictionary and names for spelling; nil: only the document's own
    ///   capitalised words (used at least `ProjectWords.nameThreshold` times) count as names.
    public func findings(in doc: MarkdownDocument, project: ProjectWords? = nil) -> [Finding] {
        var none: HeuristicsMemo?
        return findings(in: doc, project: project, memo: &none)
    }

    /// The same findings as `findings(in:project:)`, exactly but for their `id` (left empty), re-checking
    /// only the prose blocks `memo` has not seen (with these options) and remembering this document's
    /// blocks for the next call.
    public func findings(in doc: MarkdownDocument, project: ProjectWords? = nil, memo: inout HeuristicsMemo) -> [Finding] {
        // Moved out and back so the memo's tables stay uniquely referenced (no copy on write).
        var held: HeuristicsMemo? = memo
        memo = HeuristicsMemo()
        let out = findings(in: doc, project: project, memo: &held)
        if let held { memo = held }
        return out
    }

    private func findings(in doc: MarkdownDocument, project: ProjectWords?, memo: inout HeuristicsMemo?) -> [Finding] {
        var run = Run(engine: self, doc: doc)
        let explicit = explicitLanguage(for: doc)
        let speller = spellingEnabled ? try? speller(for: doc).get() : nil
        if memo != nil, memo!.options != options || memo!.dialogueIsCharacters != run.dialogueIsCharacters {
            memo = HeuristicsMemo()
            memo!.options = options
            memo!.dialogueIsCharacters = run.dialogueIsCharacters
        }
        doc.bytes.withUnsafeBufferPointer { p in
            let tokenizer = Tokenizer(lexicon: lexicon)
            var tokens: [Token] = []
            var sentences: [Sentence] = []
            tokens.reserveCapacity(512)
            // The memo's table is kept and added to (building a new one per call cost more than the
            // look-ups); blocks gone from the document are dropped once they outnumber the live ones.
            var live = Set<HeuristicsMemo.Key>()
            if memo != nil { live.reserveCapacity(doc.proseBlocks.count) }
            var computed = 0
            for (bi, block) in doc.proseBlocks.enumerated() {
                guard memo != nil else {
                    tokenizer.tokenize(p, block: block, tokens: &tokens, sentences: &sentences)
                    run.check(p, block: block, blockIndex: bi, tokens: tokens, sentences: sentences)
                    if spellingEnabled { run.collectSpelling(p, tokens: tokens) }
                    continue
                }
                let key = HeuristicsMemo.key(p, block)
                let start = block.range.lowerBound
                live.insert(key)
                if let hit = memo!.entries[key] {
                    run.absorb(hit, at: start)
                    continue
                }
                // The block alone: its share gathered apart from the document's, then added to it.
                var share = HeuristicsMemo.Entry()
                share.origin = start
                run.swapAccumulators(&share)
                tokenizer.tokenize(p, block: block, tokens: &tokens, sentences: &sentences)
                run.check(p, block: block, blockIndex: bi, tokens: tokens, sentences: sentences)
                if spellingEnabled { run.collectSpelling(p, tokens: tokens) }
                run.swapAccumulators(&share)
                run.absorb(share, at: start)
                memo!.entries[key] = share
                computed += 1
            }
            if memo != nil {
                if memo!.entries.count > 2 * live.count + 64 {
                    memo!.entries = memo!.entries.filter { live.contains($0.key) }
                }
                memo!.lastComputed = computed
                memo!.lastBlocks = doc.proseBlocks.count
            }
        }
        // A whole document in another language: the English rules do not judge it; its own dictionary does.
        let language = explicit.map(LanguageGuess.code(of:)) ?? run.detectedLanguage
        if language != "en" { run.candidates.removeAll() }
        var words = project ?? ProjectWords()
        if spellingEnabled {
            var counts: [String: Int] = [:]
            ProjectWords.countCapitalised(doc.bytes, into: &counts)
            for (w, c) in counts where c >= ProjectWords.nameThreshold { words.names.insert(w) }
        }
        if explicit == nil, language != "en" {
            if spellingEnabled { run.spellDocument(in: language, project: words) }
        } else {
            if let speller { run.addSpelling(speller: speller, project: words) }
            if spellingEnabled { run.spellPassages(project: words) }
        }
        return run.finish(ids: memo == nil)
    }

    /// The language the document names: its front matter `lang:`, else a configured language other than English
    /// (the English default leaves room for detection).
    func explicitLanguage(for doc: MarkdownDocument) -> String? {
        if let lang = doc.frontMatter.lang { return lang }
        if options.languageIsExplicit || LanguageGuess.code(of: options.language) != "en" { return options.language }
        return nil
    }

    var spellingEnabled: Bool { options.spelling && !isDisabled("spelling", .spelling) }

    /// The Hunspell dictionary of a document: its front matter `lang:`, else `options.language`.
    public func speller(for doc: MarkdownDocument) -> Result<Speller, SpellerProblem> {
        Speller.named(doc.frontMatter.lang ?? options.language)
    }

    /// Why spelling cannot run on `doc` (a missing dictionary), when it is switched on; one line.
    public func spellingProblem(for doc: MarkdownDocument) -> String? {
        guard spellingEnabled, case .failure(let problem) = speller(for: doc) else { return nil }
        return problem.description
    }

    func isDisabled(_ rule: String, _ category: FindingCategory) -> Bool {
        options.disabled.contains(rule) || options.disabled.contains(category.rawValue)
    }
}

/// The state of one `findings(in:)` call.
struct Run {
    struct Candidate {
        var start: Int
        var end: Int
        var rule: String
        var category: FindingCategory
        var severity: Severity
        var message: String
        var replacements: [String]
    }

    let engine: HeuristicsEngine
    let doc: MarkdownDocument
    let lx: Lexicon
    let directives: IgnoreDirectives
    var candidates: [Candidate] = []
    /// Per token of the current block: covered by a phrase match / allowed by the allow-list.
    var covered: [Bool] = []
    var allowed: [Bool] = []
    var spell = SpellCollector()
    /// The tokens of the current block (for rules that look around a token).
    var currentTokens: [Token] = []
    /// Per token of the current block: inside a passage in another language (no rule judges it).
    var foreign: [Bool] = []
    /// The current block's foreign passages (token ranges) and their language codes.
    var passages: [(Range<Int>, String)] = []
    /// Words of foreign passages, per language code.
    var passageSpell: [String: SpellCollector] = [:]
    /// The first foreign passage's first word (where the `other_language` note goes).
    var firstForeign: (Int, Int)?
    /// Stop-word evidence of the whole document's language.
    var documentTally = LanguageGuess.Tally()
    /// The same over every word, set apart or not (for documents that are mostly quotation, like a tldr page).
    var wholeTally = LanguageGuess.Tally()
    /// The document's language code from its words.
    var detectedLanguage: String {
        documentTally.words >= 8 && (documentTally.document != "en" || documentTally.counts[0] >= 2)
            ? documentTally.document : wholeTally.document
    }
    /// Style rules leave dialogue alone (creative_fiction, biography).
    let dialogueIsCharacters: Bool

    init(engine: HeuristicsEngine, doc: MarkdownDocument) {
        self.engine = engine
        self.doc = doc
        lx = engine.lexicon
        directives = IgnoreDirectives(document: doc)
        let storyType = doc.frontMatter.tk.storyType ?? engine.options.storyType
        dialogueIsCharacters = storyType == "creative_fiction" || storyType == "biography"
    }

    // MARK: Helpers

    func text(_ s: Int, _ e: Int) -> String { doc.text(s..<e) }

    func flags(_ t: Token) -> WordFlags { t.entry >= 0 ? lx.flags[Int(t.entry)] : [] }

    /// Whether the token's (lower-cased ASCII) word ends with `suffix` (given lower-case).
    func endsWith(_ p: UnsafeBufferPointer<UInt8>, _ t: Token, _ a: UInt8, _ b: UInt8) -> Bool {
        guard t.end - t.start >= 2 else { return false }
        let x = p[t.end - 2], y = p[t.end - 1]
        return (x | 0x20) == a && (y | 0x20) == b
    }

    mutating func add(_ s: Int, _ e: Int, _ rule: String, _ category: FindingCategory, _ severity: Severity,
                      _ message: String, _ replacements: [String] = [], tokens range: Range<Int>? = nil) {
        if engine.isDisabled(rule, category) { return }
        if let range {
            for k in range where allowed[k] || (k < foreign.count && foreign[k]) { return }
        }
        candidates.append(Candidate(start: s, end: e, rule: rule, category: category, severity: severity,
                                    message: message, replacements: replacements))
    }

    // MARK: Per block

    mutating func check(_ p: UnsafeBufferPointer<UInt8>, block: ProseBlock, blockIndex: Int, tokens: [Token],
                        sentences: [Sentence]) {
        let n = tokens.count
        // A block without words still clears the last block's passages: `collectSpelling` reads them.
        passages.removeAll(keepingCapacity: true)
        guard n > 0 else { return }
        covered.removeAll(keepingCapacity: true)
        covered.append(contentsOf: repeatElement(false, count: n))
        allowed.removeAll(keepingCapacity: true)
        for t in tokens { allowed.append(flags(t).contains(.allowed)) }
        markForeign(p, block: block, tokens: tokens)

        currentTokens = tokens
        phrases(p, block: block, tokens: tokens)
        words(p, block: block, tokens: tokens)
        grammar(p, block: block, tokens: tokens, sentences: sentences)
        if !block.isHeading {
            for s in sentences { sentence(p, s, tokens: tokens) }
        }
    }

    /// Phrase tables: clichés, AI clichés, openings, wordy, weasel, hedges, extra rules, allow phrases.
    mutating func phrases(_ p: UnsafeBufferPointer<UInt8>, block: ProseBlock, tokens: [Token]) {
        let n = tokens.count
        var t = 0
        while t < n {
            let tok = tokens[t]
            guard tok.entry >= 0, !tok.flags.contains(.opaque) else { t += 1; continue }
            let list = lx.phraseStarts[Int(tok.entry)]
            var matchedLength = 0
            for pi in list {
                let ph = lx.phrases[Int(pi)]
                let len = ph.words.count
                guard t + len <= n else { continue }
                var ok = true
                var k = 1
                while k < len {
                    let u = tokens[t + k]
                    if u.hash != ph.words[k] || u.flags.contains(.opaque) || u.flags.contains(.sentenceStart)
                        || (u.flags.contains(.breakBefore) && ph.allowBreak & (1 << UInt64(k)) == 0) {
                        ok = false
                        break
                    }
                    k += 1
                }
                guard ok else { continue }
                if ph.onlyAtBlockStart && (t != 0 || block.isHeading) { continue }
                if ph.notAfterDeterminer, t > 0, !tok.flags.contains(.breakBefore),
                   flags(tokens[t - 1]).contains(.kindOfDeterminer) {
                    matchedLength = len   // "a kind of": a noun phrase; cover it, report nothing
                    break
                }
                matchedLength = len
                guard let category = ph.category else {
                    if ph.rule == "allow" { for q in t..<(t + len) { allowed[q] = true } }
                    break
                }
                let dialogueExempt = category == .weasel || category == .hedge || category == .adverb
                    || (dialogueIsCharacters && (category == .cliche || category == .aiCliche || category == .wordy))
                if dialogueExempt && tok.flags.contains(.inQuote) { break }
                let s = tok.start, e = tokens[t + len - 1].end
                // A phrase in quotation marks of its own is mentioned, not used ("a \"deep dive\" meeting").
                if Self.quotedExactly(p, s, e, block: block) { break }
                let matched = text(s, e)
                add(s, e, ph.rule, category, ph.severity, ph.message ?? Messages.phrase(category, matched, ph.replacements),
                    ph.replacements, tokens: t..<(t + len))
                break
            }
            if matchedLength > 0 {
                for q in t..<(t + matchedLength) { covered[q] = true }
                t += matchedLength
            } else {
                t += 1
            }
        }
    }

    /// Whether the bytes just before `s` open a quotation and the bytes just after `e` close one.
    static func quotedExactly(_ p: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, block: ProseBlock) -> Bool {
        let lo = block.range.lowerBound, hi = min(block.range.upperBound, p.count)
        var before = false, after = false
        if s - 1 >= lo, p[s - 1] == 34 || p[s - 1] == 39 { before = true }
        if s - 3 >= lo, p[s - 3] == 0xE2, p[s - 2] == 0x80, p[s - 1] == 0x9C || p[s - 1] == 0x98 { before = true }
        if e < hi, p[e] == 34 || p[e] == 39 { after = true }
        if e + 2 < hi, p[e] == 0xE2, p[e + 1] == 0x80, p[e + 2] == 0x9D || p[e + 2] == 0x99 { after = true }
        // A closing quote may follow punctuation: "at the end of the day," she wrote.
        if !after, e + 1 < hi, p[e] == 44 || p[e] == 46, p[e + 1] == 34 || p[e + 1] == 0xE2 { after = true }
        return before && after
    }

    /// Whether the first curly double quotation mark of the block is a closing one (” before any “).
    static func continuesSpeech(_ p: UnsafeBufferPointer<UInt8>, block: ProseBlock) -> Bool {
        var i = block.range.lowerBound
        let hi = min(block.range.upperBound, p.count)
        while i + 2 < hi {
            if p[i] == 0xE2, p[i + 1] == 0x80 {
                if p[i + 2] == 0x9C { return false }
                if p[i + 2] == 0x9D { return true }
            }
            i += 1
        }
        return false
    }

    /// Whether the nearest non-space byte before `start` (inside the block) is a semicolon.
    static func afterSemicolon(_ p: UnsafeBufferPointer<UInt8>, _ start: Int, block: ProseBlock) -> Bool {
        var i = start - 1
        while i >= block.range.lowerBound, p[i] == 32 || p[i] == 9 || p[i] == 10 || p[i] == 13 { i -= 1 }
        return i >= block.range.lowerBound && p[i] == 59
    }

    /// Word rules: passive voice, -ly adverbs, repeated words and phrases, "So"/"But" after a break.
    mutating func words(_ p: UnsafeBufferPointer<UInt8>, block: ProseBlock, tokens: [Token]) {
        let n = tokens.count
        for t in 0..<n {
            let tok = tokens[t]
            if tok.flags.contains(.opaque) { continue }
            let f = flags(tok)

            // Passive: be-verb [adverb] participle.
            if f.contains(.beVerb), t + 1 < n {
                passive(p, at: t, tokens: tokens)
            }

            // -ly adverbs.
            if !covered[t], tok.letters >= 4, endsWith(p, tok, 108, 121), !f.contains(.lyException),
               !tok.flags.contains(.inQuote), !tok.flags.contains(.numeric),
               !(tok.flags.contains(.capitalized) && !tok.flags.contains(.sentenceStart)) {
                let word = text(tok.start, tok.end)
                add(tok.start, tok.end, "adverb", .adverb, .info, Messages.adverb(word), tokens: t..<(t + 1))
            }

            // "But" opening a paragraph; "So"/"But" opening a clause after a semicolon.
            if tok.hash == Self.butHash || tok.hash == Self.soHash, !tok.flags.contains(.inQuote), !block.isHeading {
                let next = t + 1 < n ? tokens[t + 1] : nil
                let followerOK = next.map { u in
                    u.flags.contains(.hyphenBefore) || Self.soFollowers.contains(u.hash) || Self.butFollowers.contains(u.hash)
                } ?? true
                // A paragraph whose first curly quotation mark closes one continues a speech from the paragraph before.
                let opensParagraph = t == 0 && tok.hash == Self.butHash && !Self.continuesSpeech(p, block: block)
                if !followerOK, opensParagraph || (t > 0 && Self.afterSemicolon(p, tok.start, block: block)) {
                    let word = text(tok.start, tok.end)
                    add(tok.start, tok.end, "so_start", .soStart, .info,
                        opensParagraph ? Messages.butStart : Messages.afterSemicolon(word), tokens: t..<(t + 1))
                }
            }

            // Repeated phrases: "is an echo is an echo" (two to four words said twice in a row).
            if t + 3 < n {
                repeatedPhrase(at: t, tokens: tokens)
            }

            // Repeated words. Not a hyphenated compound followed by its own last part ("a run-in in the park"),
            // nor a word before a compound that starts with it ("bar bar-bar").
            if t > 0 {
                let prev = tokens[t - 1]
                if prev.hash == tok.hash, !prev.flags.contains(.opaque), !tok.flags.contains(.breakBefore),
                   !tok.flags.contains(.hyphenBefore), !prev.flags.contains(.hyphenBefore), !tok.flags.contains(.sentenceStart),
                   !(t + 1 < n && tokens[t + 1].flags.contains(.hyphenBefore)),
                   !tok.flags.contains(.numeric), !f.contains(.repeatOK) {
                    let first = text(prev.start, prev.end)
                    add(prev.start, tok.end, "repeated_word", .repeatedWord, .warning, Messages.repeated(first),
                        [first], tokens: (t - 1)..<(t + 1))
                }
            }
        }
    }

    /// Two to four words said twice in a row, with nothing but spaces between ("is an echo is an echo").
    mutating func repeatedPhrase(at t: Int, tokens: [Token]) {
        let n = tokens.count
        var k = 4
        while k >= 2 {
            defer { k -= 1 }
            guard t + 2 * k <= n else { continue }
            var same = true
            for j in 0..<(2 * k) {
                let u = tokens[t + j]
                if u.flags.contains(.opaque) || u.flags.contains(.numeric)
                    || (j > 0 && (u.flags.contains(.breakBefore) || u.flags.contains(.sentenceStart))) {
                    same = false
                    break
                }
                if j < k, u.hash != tokens[t + k + j].hash { same = false; break }
            }
            guard same else { continue }
            // "bye bye bye bye" and other single-word runs are the repeated-word rule's business.
            let first = tokens[t].hash
            if (1..<k).allSatisfy({ tokens[t + $0].hash == first }) { return }
            let s = tokens[t].start, e = tokens[t + 2 * k - 1].end
            let phrase = text(s, tokens[t + k - 1].end)
            add(s, e, "repeated_phrase", .repeatedWord, .warning, Messages.repeatedPhrase(phrase), [phrase],
                tokens: t..<(t + 2 * k))
            return
        }
    }

    mutating func passive(_ p: UnsafeBufferPointer<UInt8>, at t: Int, tokens: [Token]) {
        let n = tokens.count
        func isAdverb(_ u: Token) -> Bool {
            if u.flags.contains(.opaque) || u.flags.contains(.breakBefore) { return false }
            let fu = flags(u)
            if fu.contains(.passiveAdverb) { return true }
            return u.letters >= 4 && endsWith(p, u, 108, 121) && !fu.contains(.lyException)
        }
        func isParticiple(_ u: Token) -> Bool {
            if u.flags.contains(.opaque) || u.flags.contains(.breakBefore) || u.flags.contains(.capitalized)
                || u.flags.contains(.hyphenBefore) { return false }
            let fu = flags(u)
            if fu.contains(.irregularParticiple) { return true }
            if fu.contains(.edException) { return false }
            guard u.letters >= 4, endsWith(p, u, 101, 100) else { return false }
            // -eed words (need, proceed) are not participles unless listed.
            if p[u.end - 3] | 0x20 == 101 { return false }
            return true
        }
        var q = t + 1
        if !isParticiple(tokens[q]) {
            guard isAdverb(tokens[q]), q + 1 < n else { return }
            q += 1
            guard isParticiple(tokens[q]) else { return }
        }
        let part = tokens[q]
        let fp = flags(part)
        let byFollows: Bool = {
            for r in (q + 1)..<min(n, q + 3) {
                if tokens[r].flags.contains(.breakBefore) { return false }
                if tokens[r].hash == Self.byHash { return true }
            }
            return false
        }()
        if fp.contains(.adjectival) && !byFollows { return }
        if !byFollows && adjectivalUse(p, participle: q, verb: t, tokens: tokens) { return }
        // "is set to", "is supposed to", "is meant to": idioms about the future or intent.
        if q + 1 < n, tokens[q + 1].hash == Self.toHash, Self.toIdioms.contains(part.hash) { return }
        let s = tokens[t].start, e = part.end
        add(s, e, "passive", .passive, .suggestion, Messages.passive(text(s, e), byFollows: byFollows), tokens: t..<(q + 1))
    }

    static let byHash = WordHash.of("by")
    static let toHash = WordHash.of("to")
    static let toIdioms: Set<UInt64> = Set(["set", "meant", "bound", "supposed", "going", "used", "due"].map { WordHash.of($0) })
    static let thereHash = WordHash.of("there")
    static let thereContractions: Set<UInt64> = Set(["there's", "there're", "there’s", "there'll"].map { WordHash.of($0) })
    static let thereVerbs: Set<UInt64> = Set(
        ["is", "are", "was", "were", "isn't", "aren't", "wasn't", "weren't", "will", "has", "have", "had", "seems",
         "seem", "exists", "exist", "remains", "remain", "might", "may", "could", "must", "should", "would"]
            .map { WordHash.of($0) })
    static let soHash = WordHash.of("so")
    static let soFollowers: Set<UInt64> = Set(["far", "long", "much", "many", "called"].map { WordHash.of($0) })
    static let butHash = WordHash.of("but")
    /// "but also" (after "not only"), "but for", "but then": not a filler opener.
    static let butFollowers: Set<UInt64> = Set(["also", "for", "rather"].map { WordHash.of($0) })

    /// Sentence rules: length, readability, "There is" and "So" openers.
    mutating func sentence(_ p: UnsafeBufferPointer<UInt8>, _ s: Sentence, tokens: [Token]) {
        var words = 0
        var letters = 0
        for k in s.firstToken..<s.endToken {
            let u = tokens[k]
            if u.flags.contains(.hyphenBefore) { letters += Int(u.letters); continue }
            words += 1
            letters += Int(u.letters)
        }
        guard words > 0 else { return }
        var foreignWords = 0
        for k in s.firstToken..<s.endToken where k < foreign.count && foreign[k] { foreignWords += 1 }
        if foreignWords * 2 >= words { return }
        let start = s.start, end = s.end
        let opts = engine.options
        var long = false
        if words > opts.maxSentenceWords {
            long = true
            let severity: Severity = words > opts.maxSentenceWords * 3 / 2 ? .warning : .suggestion
            add(start, end, "long_sentence", .longSentence, severity,
                Messages.long(words: words, max: opts.maxSentenceWords))
        }
        if !long, words >= 8 {
            let ari = 4.71 * Double(letters) / Double(words) + 0.5 * Double(words) - 21.43
            // On a short sentence the letters-per-word term swamps the formula: two long words make a plain
            // eight-word sentence "grade 20". Below 15 words, flag only when most words are long.
            var longWords = 0
            if words < 15 {
                for k in s.firstToken..<s.endToken where tokens[k].letters >= 11 && !tokens[k].flags.contains(.opaque) {
                    longWords += 1
                }
            }
            if ari > opts.maxGrade, words >= 15 || longWords * 2 >= words {
                add(start, end, "readability", .readability, .suggestion, Messages.readability(grade: ari, max: opts.maxGrade))
            }
        }
        let first = tokens[s.firstToken]
        if first.flags.contains(.inQuote) || first.flags.contains(.opaque) { return }
        if Self.thereContractions.contains(first.hash) {
            add(first.start, first.end, "there_is", .thereIs, .suggestion, Messages.thereIs(text(first.start, first.end)),
                tokens: s.firstToken..<(s.firstToken + 1))
        } else if first.hash == Self.thereHash, s.firstToken + 1 < s.endToken {
            let second = tokens[s.firstToken + 1]
            if Self.thereVerbs.contains(second.hash), !second.flags.contains(.breakBefore) {
                add(first.start, second.end, "there_is", .thereIs, .suggestion,
                    Messages.thereIs(text(first.start, second.end)), tokens: s.firstToken..<(s.firstToken + 2))
            }
        } else if first.hash == Self.soHash, s.firstToken + 1 < s.endToken {
            let second = tokens[s.firstToken + 1]
            if !second.flags.contains(.hyphenBefore), !Self.soFollowers.contains(second.hash) {
                add(first.start, first.end, "so_start", .soStart, .info, Messages.soStart,
                    tokens: s.firstToken..<(s.firstToken + 1))
            }
        }
    }

    mutating func addSpelling(speller: Speller, project: ProjectWords) {
        for h in spell.unknown(in: doc, speller: speller, project: project, cap: engine.options.maxSpellingFindings) {
            candidates.append(Candidate(start: h.start, end: h.end, rule: "spelling", category: .spelling,
                                        severity: .suggestion, message: h.message, replacements: h.replacements))
        }
    }

    // MARK: Output

    /// Lower is more specific: it wins a span another rule also flags.
    static func specificity(_ c: FindingCategory) -> Int {
        switch c {
        case .grammar: 0
        case .spelling: 1
        case .repeatedWord: 2
        case .other: 3
        case .wordy: 4
        case .cliche: 5
        case .aiCliche: 6
        case .passive: 7
        case .thereIs: 8
        case .soStart: 9
        case .genericOpening: 10
        case .weasel: 11
        case .hedge: 12
        case .adverb: 13
        case .longSentence: 14
        case .readability: 15
        case .vale: 16
        }
    }

    /// The findings, in document order. Without `ids` each finding's `id` is empty (the language
    /// server shows none, and hashing thousands of them per keystroke is not free).
    func finish(ids: Bool = true) -> [Finding] {
        var sorted = candidates
        sorted.sort { a, b in
            if a.start != b.start { return a.start < b.start }
            if a.end != b.end { return a.end > b.end }
            let pa = Self.specificity(a.category), pb = Self.specificity(b.category)
            if pa != pb { return pa < pb }
            return a.rule < b.rule
        }
        var out: [Finding] = []
        out.reserveCapacity(sorted.count)
        var seen = Set<Int64>()
        seen.reserveCapacity(sorted.count)
        var positions = doc.lineIndex.cursor()
        for c in sorted {
            if !directives.isEmpty, directives.silences(offset: c.start, rule: c.rule, category: c.category.rawValue) {
                continue
            }
            // One finding per span: the most specific rule ("definately": spelling, not adverb).
            if !seen.insert(Int64(c.start) << 32 | Int64(c.end)).inserted { continue }
            let text = doc.text(c.start..<c.end)
            let (line, column) = positions.position(ofByte: c.start)
            let id = ids ? "q-" + String(SHA256Digest.hex(Array("\(c.rule)\u{0}\(c.start)\u{0}\(text)".utf8)).prefix(12)) : ""
            out.append(Finding(id: id, rule: c.rule, category: c.category, severity: c.severity, message: c.message,
                               text: text, start: c.start, end: c.end, line: line, column: column,
                               replacements: c.replacements))
        }
        return out
    }
}

/// The words shown to the writer: each says what is wrong and what to do.
enum Messages {
    static func q(_ s: String) -> String { "\u{201C}\(s)\u{201D}" }

    static func phrase(_ c: FindingCategory, _ text: String, _ repl: [String]) -> String {
        let instead = repl.isEmpty ? "" : " Try " + repl.map(q).joined(separator: " or ") + "."
        switch c {
        case .cliche:
            return "Cliché: \(q(text)). Say it in your own words." + instead
        case .aiCliche:
            return "\(q(text)) reads as machine-written filler. Say the plain thing." + (instead.isEmpty ? " Cut it or be specific." : instead)
        case .genericOpening:
            return "Generic opening \(q(text)). Start with your point or a concrete detail instead."
        case .wordy:
            return repl.isEmpty ? "Wordy: \(q(text)). Cut it." : "Wordy: \(q(text)).\(instead)"
        case .weasel:
            return repl.isEmpty
                ? "Weasel word \(q(text)). Cut it, or give the evidence or a precise word."
                : "\(q(text)) is weak.\(instead)"
        case .hedge:
            return "Hedge \(q(text)). Say it with the confidence you have, or cut it."
        default:
            return "Consider rewording \(q(text))." + instead
        }
    }

    static func passive(_ text: String, byFollows: Bool) -> String {
        byFollows
            ? "Passive voice: \(q(text)) by… Put the one who acts first (\u{201C}X did Y\u{201D})."
            : "Passive voice: \(q(text)). Say who acts, unless the actor truly does not matter."
    }

    static func adverb(_ word: String) -> String {
        "Adverb \(q(word)). A stronger verb or adjective usually says it better; cut it if it adds nothing."
    }

    static func repeated(_ word: String) -> String { "Repeated word: \(q(word + " " + word)). Delete one." }

    static func long(words: Int, max: Int) -> String {
        "Long sentence: \(words) words (limit \(max)). Split it or cut what it does not need."
    }

    static func readability(grade: Double, max: Double) -> String {
        let g = Int(grade.rounded())
        let m = max.rounded() == max ? String(Int(max)) : String(max)
        return "Hard to read: grade \(g) (target \(m) or lower). Use shorter words or split the sentence."
    }

    static func thereIs(_ text: String) -> String {
        "Starts with \(q(text)). Put the real subject and verb first (\u{201C}There are many people who…\u{201D} → \u{201C}Many people…\u{201D})."
    }

    static let soStart = "Starts with \u{201C}So\u{201D}. Cut it, or say how this follows from what came before."

    static let butStart = "The paragraph opens with \u{201C}But\u{201D}. Join it to the point it answers, or state the contrast outright."

    static func afterSemicolon(_ word: String) -> String {
        "\(q(word)) after a semicolon: use a comma or a full stop before it, or cut it."
    }

    static func repeatedPhrase(_ phrase: String) -> String { "Repeated phrase: \(q(phrase)) twice in a row. Delete one." }
}
