/// Word hashing shared by the tokenizer and the lexicon: FNV-1a over the bytes with ASCII lower-cased
/// and the curly apostrophe (U+2019) read as `'`. Never 0 (0 marks an empty table slot).
enum WordHash {
    static let offset: UInt64 = 0xcbf2_9ce4_8422_2325
    static let prime: UInt64 = 0x0000_0100_0000_01b3

    @inline(__always) static func add(_ h: UInt64, _ b: UInt8) -> UInt64 { (h ^ UInt64(b)) &* prime }

    @inline(__always) static func finish(_ h: UInt64) -> UInt64 { h == 0 ? 1 : h }

    /// The hash of a word given as a string (lower-cased the same way as the tokenizer does).
    /// Read in place: the built-in tables hash thousands of words at every process start.
    static func of(_ word: Substring) -> UInt64 {
        var h = offset
        let u = word.utf8
        var i = u.startIndex
        while i != u.endIndex {
            let b = u[i]
            // Curly apostrophe (E2 80 99) → '
            if b == 0xE2 {
                let j = u.index(after: i)
                if j != u.endIndex, u[j] == 0x80 {
                    let k = u.index(after: j)
                    if k != u.endIndex, u[k] == 0x99 {
                        h = add(h, 39)
                        i = u.index(after: k)
                        continue
                    }
                }
            }
            h = add(h, (b >= 65 && b <= 90) ? b + 32 : b)
            i = u.index(after: i)
        }
        return finish(h)
    }
}

/// Per-word facts, one bit each.
struct WordFlags: OptionSet, Sendable {
    let rawValue: UInt32
    static let beVerb = WordFlags(rawValue: 1 << 0)
    static let irregularParticiple = WordFlags(rawValue: 1 << 1)
    static let edException = WordFlags(rawValue: 1 << 2)
    static let adjectival = WordFlags(rawValue: 1 << 3)
    static let passiveAdverb = WordFlags(rawValue: 1 << 4)
    static let lyException = WordFlags(rawValue: 1 << 5)
    static let repeatOK = WordFlags(rawValue: 1 << 6)
    static let abbreviation = WordFlags(rawValue: 1 << 7)
    static let allowed = WordFlags(rawValue: 1 << 8)
    static let kindOfDeterminer = WordFlags(rawValue: 1 << 9)
    static let abbreviationMaybeEnd = WordFlags(rawValue: 1 << 10)
}

/// How a phrase rule behaves.
struct PhraseEntry: Sendable {
    /// Word hashes, in order.
    var words: [UInt64]
    /// Bit k set: punctuation may stand before word k (the phrase itself had some there).
    var allowBreak: UInt64
    /// nil: a stop phrase (matched so that shorter rules do not fire, never reported).
    var category: FindingCategory?
    var rule: String
    var severity: Severity
    var message: String?
    var replacements: [String]
    /// Only at the start of a document's paragraph (generic openings).
    var onlyAtBlockStart: Bool
    /// For "kind of"/"sort of": not after a determiner ("a kind of").
    var notAfterDeterminer: Bool
}

/// Word facts and phrase tables in one open-addressing hash table keyed by word hash.
struct Lexicon: Sendable {
    private(set) var keys: [UInt64]
    private(set) var slots: [Int32]
    private(set) var flags: [WordFlags] = []
    /// Per word entry: phrase indices starting with that word, longest first.
    private(set) var phraseStarts: [[Int32]] = []
    private(set) var phrases: [PhraseEntry] = []
    private var mask: Int
    private var count = 0

    init(capacity: Int = 8192) {
        var cap = 16
        while cap < capacity * 2 { cap <<= 1 }
        keys = [UInt64](repeating: 0, count: cap)
        slots = [Int32](repeating: -1, count: cap)
        mask = cap - 1
    }

    /// The entry index of a word hash, or -1.
    @inline(__always) func lookup(_ h: UInt64) -> Int {
        var i = Int(truncatingIfNeeded: h ^ (h >> 29)) & mask
        while true {
            let k = keys[i]
            if k == h { return Int(slots[i]) }
            if k == 0 { return -1 }
            i = (i + 1) & mask
        }
    }

    private mutating func entry(_ h: UInt64) -> Int {
        let e = lookup(h)
        if e >= 0 { return e }
        if (count + 1) * 2 > keys.count { grow() }
        var i = Int(truncatingIfNeeded: h ^ (h >> 29)) & mask
        while keys[i] != 0 { i = (i + 1) & mask }
        keys[i] = h
        slots[i] = Int32(flags.count)
        flags.append([])
        phraseStarts.append([])
        count += 1
        return flags.count - 1
    }

    private mutating func grow() {
        let oldKeys = keys, oldSlots = slots
        keys = [UInt64](repeating: 0, count: oldKeys.count * 2)
        slots = [Int32](repeating: -1, count: oldKeys.count * 2)
        mask = keys.count - 1
        for (j, k) in oldKeys.enumerated() where k != 0 {
            var i = Int(truncatingIfNeeded: k ^ (k >> 29)) & mask
            while keys[i] != 0 { i = (i + 1) & mask }
            keys[i] = k
            slots[i] = oldSlots[j]
        }
    }

    mutating func addFlag(_ f: WordFlags, words list: String) {
        // Split on the bytes (space, newline, tab): no grapheme breaking for a list of plain words.
        for w in list.utf8.split(whereSeparator: { $0 == 32 || $0 == 10 || $0 == 9 }) where !w.isEmpty {
            let e = entry(WordHash.of(Substring(w)))
            flags[e].insert(f)
        }
    }

    mutating func addFlag(_ f: WordFlags, hash: UInt64) {
        let e = entry(hash)
        flags[e].insert(f)
    }

    /// Splits a phrase into word hashes the way the tokenizer would, noting punctuation between words.
    /// Hashes as it reads (no word strings): the built-in tables hold thousands of phrases and every
    /// `check` process compiles them all before it reads a page.
    static func compile(_ phrase: String) -> (words: [UInt64], allowBreak: UInt64) {
        var words: [UInt64] = []
        var allow: UInt64 = 0
        var h = WordHash.offset
        var inWord = false
        var sawPunct = false
        func flush() {
            if inWord {
                if sawPunct, words.count < 64 { allow |= 1 << UInt64(words.count) }
                words.append(WordHash.finish(h))
                h = WordHash.offset
                inWord = false
                sawPunct = false
            }
        }
        func addScalar(_ s: Unicode.Scalar) {
            for b in s.utf8 { h = WordHash.add(h, (b >= 65 && b <= 90) ? b + 32 : b) }
        }
        var it = phrase.unicodeScalars.makeIterator()
        var next = it.next()
        while let s = next {
            next = it.next()
            let isApostrophe = (s == "'" || s == "\u{2019}") && inWord
                && next.map { TextClass.isWordScalar($0.value) } == true
            if isApostrophe {
                h = WordHash.add(h, 39)
            } else if TextClass.isWordScalar(s.value) {
                inWord = true
                addScalar(s)
            } else {
                flush()
                if s != " " && s != "-" && s != "\u{2010}" && s != "\u{2011}" { sawPunct = true }
            }
        }
        flush()
        return (words, allow)
    }

    /// Adds a phrase rule. A phrase already present with the same words and block-start condition is kept.
    mutating func addPhrase(_ text: String, category: FindingCategory?, rule: String, severity: Severity,
                            message: String? = nil, replacements: [String] = [], onlyAtBlockStart: Bool = false,
                            replacing: Bool = false) {
        let (words, allow) = Self.compile(text)
        guard let first = words.first else { return }
        let e = entry(first)
        for p in phraseStarts[e] where phrases[Int(p)].words == words
            && phrases[Int(p)].onlyAtBlockStart == onlyAtBlockStart {
            // Plugged-in rules (advisor tips) win over a built-in entry with the same words.
            if replacing {
                phrases[Int(p)].category = category; phrases[Int(p)].rule = rule
                phrases[Int(p)].severity = severity; phrases[Int(p)].message = message
                phrases[Int(p)].replacements = replacements
            }
            return
        }
        let isKindOf = words.count == 2 && (words[0] == Self.kindHash || words[0] == Self.sortHash) && words[1] == Self.ofHash
        phrases.append(PhraseEntry(words: words, allowBreak: allow, category: category, rule: rule, severity: severity,
                                   message: message, replacements: replacements, onlyAtBlockStart: onlyAtBlockStart,
                                   notAfterDeterminer: isKindOf))
        // Longest first; among equal lengths, block-start rules before the others, then insertion order.
        // The new phrase has the highest index, so it goes before the first entry it beats.
        let n = words.count
        var at = phraseStarts[e].count
        for (k, p) in phraseStarts[e].enumerated() {
            let length = phrases[Int(p)].words.count
            if length < n || (length == n && onlyAtBlockStart && !phrases[Int(p)].onlyAtBlockStart) {
                at = k
                break
            }
        }
        phraseStarts[e].insert(Int32(phrases.count - 1), at: at)
    }

    static let kindHash = WordHash.of("kind"), sortHash = WordHash.of("sort"), ofHash = WordHash.of("of")

    /// Adds every `phrase => a | b` line of a table (`#` starts a comment line).
    mutating func addTable(_ table: String, category: FindingCategory?, rule: String, severity: Severity,
                           onlyAtBlockStart: Bool = false, message: ((String, [String]) -> String)? = nil) {
        for (phrase, replacements) in Self.entries(table) {
            addPhrase(phrase, category: category, rule: rule, severity: severity,
                      message: message.map { $0(phrase, replacements) }, replacements: replacements,
                      onlyAtBlockStart: onlyAtBlockStart)
        }
    }

    /// The entries of a table: each line that is neither blank nor a `#` comment, without the spaces
    /// and tabs at its ends, is a phrase, or `phrase => a | b` (the first `=>`; the replacements
    /// between `|`, trimmed, empty ones left out). Read on the bytes, with offsets: every process
    /// reads the built-in tables' thousands of lines before it checks a page.
    static func entries(_ table: String) -> [(phrase: String, replacements: [String])] {
        var out: [(phrase: String, replacements: [String])] = []
        var text = table
        text.withUTF8 { p in
            func string(_ a: Int, _ b: Int) -> String { String(decoding: UnsafeBufferPointer(rebasing: p[a..<b]), as: UTF8.self) }
            func trim(_ a: inout Int, _ b: inout Int) {
                while a < b, p[a] == 32 || p[a] == 9 { a += 1 }
                while b > a, p[b - 1] == 32 || p[b - 1] == 9 { b -= 1 }
            }
            let n = p.count
            var start = 0
            while start < n {
                var end = start
                while end < n, p[end] != 10 { end += 1 }
                var a = start, b = end
                start = end + 1
                trim(&a, &b)
                if a == b || p[a] == 35 { continue }
                var arrow = a
                while arrow + 1 < b, !(p[arrow] == 61 && p[arrow + 1] == 62) { arrow += 1 }
                guard arrow + 1 < b else { out.append((string(a, b), [])); continue }
                var pa = a, pb = arrow
                trim(&pa, &pb)
                var replacements: [String] = []
                var r = arrow + 2
                while r <= b {
                    var e = r
                    while e < b, p[e] != 124 { e += 1 }
                    var ra = r, rb = e
                    trim(&ra, &rb)
                    if ra < rb { replacements.append(string(ra, rb)) }
                    r = e + 1
                }
                out.append((string(pa, pb), replacements))
            }
        }
        return out
    }

    /// The built-in lexicon (built once per process).
    static let builtIn: Lexicon = {
        var lx = Lexicon()
        lx.addFlag(.beVerb, words: WordLists.beVerbs)
        lx.addFlag(.irregularParticiple, words: WordLists.irregularParticiples)
        lx.addFlag(.edException, words: WordLists.edExceptions)
        lx.addFlag(.adjectival, words: WordLists.adjectivalParticiples)
        lx.addFlag(.passiveAdverb, words: WordLists.passiveAdverbs)
        lx.addFlag(.lyException, words: WordLists.lyExceptions)
        lx.addFlag(.repeatOK, words: WordLists.repeatOK)
        lx.addFlag(.abbreviation, words: WordLists.abbreviations)
        lx.addFlag(.abbreviationMaybeEnd, words: WordLists.abbreviationsMaybeEnd)
        lx.addFlag(.kindOfDeterminer, words: WordLists.kindOfNounDeterminers)
        lx.addTable(WordLists.weaselStops, category: nil, rule: "stop", severity: .info)
        lx.addTable(UsageLists.stops, category: nil, rule: "stop", severity: .info)
        lx.addTable(WordLists.genericOpenings, category: .genericOpening, rule: "generic_opening", severity: .suggestion,
                    onlyAtBlockStart: true)
        lx.addTable(WordLists.aiCliches, category: .aiCliche, rule: "ai_cliche", severity: .suggestion)
        lx.addTable(WordLists.cliches, category: .cliche, rule: "cliche", severity: .suggestion)
        lx.addTable(WordLists.wordy, category: .wordy, rule: "wordy", severity: .suggestion)
        lx.addTable(WordLists.weasel, category: .weasel, rule: "weasel", severity: .info)
        lx.addTable(WordLists.hedges, category: .hedge, rule: "hedge", severity: .info)
        lx.addUsageTables()
        // After the usage tables: a misheard idiom they already hold keeps its rule there.
        lx.addGrammarTables()
        return lx
    }()

    /// A copy of the built-in lexicon with extra phrase rules and allowed words or phrases added.
    static func with(extraRules: [PhraseRule], allow: [String]) -> Lexicon {
        var lx = builtIn
        for r in extraRules {
            lx.addPhrase(r.phrase, category: r.category, rule: r.rule, severity: r.severity, message: r.message,
                         replacements: r.replacements, replacing: true)
        }
        for a in allow {
            let (words, _) = compile(a)
            if words.count == 1 {
                lx.addFlag(.allowed, hash: words[0])
            } else if words.count > 1 {
                lx.addPhrase(a, category: nil, rule: "allow", severity: .info)
            }
        }
        return lx
    }
}
