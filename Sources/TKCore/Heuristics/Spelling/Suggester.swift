/// Spelling suggestions without `Hunspell_suggest` (tens of milliseconds a word): candidates one edit
/// away (a letter deleted, swapped with the next, replaced or inserted) and the usual British/American
/// variants, each asked of the dictionary (`Hunspell_spell`, about a microsecond) only when it looks like
/// a word: a stem of the dictionary file, maybe with a common suffix or prefix (`StemTable`).
/// Ranked by a small cost: a spelling variant, a swap, a doubled or undoubled letter, a vowel for a vowel
/// come first; a changed first letter comes last.
struct Suggester {
    let stems: StemTable
    /// Whether the dictionary knows a word (with the case given).
    let isWord: (String) -> Bool

    /// Candidates generated for one word are capped (a 40-letter word has ~2,000 edits).
    static let maxLength = 40

    private static let alphabet: [UInt8] = Array("abcdefghijklmnopqrstuvwxyz'".utf8)
    /// In a fixed order: candidates are made from them, and a `Set`'s order changes from process to
    /// process, and with it the order of equal suggestions (`check` and the sidecar then disagreed).
    private static let vowels: [UInt8] = Array("aeiouy".utf8)
    /// Letters an `h` follows in English digraphs ("ch", "sh", "th", "wh", "gh", "ph"): an `h` added or
    /// dropped there is a likely slip ("wich" → "which").
    private static let beforeH: Set<UInt8> = Set("cstwgp".utf8)

    /// Very common English words: among candidates of equal cost they come first ("wich": "which"
    /// before "wick"). Written for this list, not taken from a frequency list.
    static let common: Set<String> = Set("""
        the of and to in is was he for it with as his on be at by had that which this from but not are or have an \
        they were her she there been one all would their we him has when who will more no if out so said what up \
        its about into than them can only other new some could time these two may then do first any my now such \
        like our over man me even most made after also did many before must through back years where much your \
        way well down should because each just those people how too little state good very make world still own \
        see men work long get here between both life being under never day same another know while last might us \
        great old year off come since against go came right used take three himself few house use during without \
        again place around however home small found thought went say part once general high upon school every \
        does got united left number course war until always away something fact though water less public put think \
        almost hand enough far took head yet government system better set told nothing night end why called \
        didn't eyes find going look asked later knew point next city give group toward young let room side social \
        present given several order possible rather second face per among form often early important things looked \
        white case john become large big need four within felt along children saw best church ever least power \
        development light thing seemed family interest want members mind country area others done turned although \
        open god service certain kind problem began different door thus help sense means whole matter perhaps \
        itself york times law human line above name example action company hands local show whether five history \
        gave today either act feet across taken past quite anything seen having death week experience body word \
        half really field am car words already themselves information tell together college shall money period \
        held keep sure probably free seems real behind cannot miss political air question making office brought \
        whose special heard major problems ago became federal moment study available known result street economic \
        boy position reason change south board individual job society areas west close turn love community true \
        court force full seem wife future age voice center woman control common necessary following front sometimes \
        six policy girl friend letter receive believe which their friends friend writing written
        """.split(whereSeparator: \.isWhitespace).map(String.init))

    /// Whole-word spelling variants (from, to): British ↔ American and a few old forms. Applied at each
    /// place `from` occurs (`$` anchors at the end of the word).
    static let variants: [(String, String)] = [
        ("our", "or"), ("or", "our"), ("ise", "ize"), ("ize", "ise"), ("isa", "iza"), ("iza", "isa"),
        ("yse", "yze"), ("yze", "yse"), ("tre", "ter"), ("ter", "tre"), ("bre", "ber"), ("ber", "bre"),
        ("ogue", "og"), ("og", "ogue"), ("ence", "ense"), ("ense", "ence"), ("gement", "gment"),
        ("gment", "gement"), ("ae", "e"), ("oe", "e"), ("augh", "af"), ("ngst$", "ng"), ("lst$", "le"),
        ("nt$", "ned"), ("lt$", "led"), ("pt$", "ped"), ("mt$", "med"), ("ll", "l"), ("l", "ll"),
    ]

    /// Up to `limit` suggestions for `word`, best first, in the word's case (Title or lower).
    func suggest(_ word: String, limit: Int) -> [String] {
        let original = Array(word.utf8)
        guard !original.isEmpty, original.count <= Self.maxLength, limit > 0 else { return [] }
        let title = original[0] >= 65 && original[0] <= 90
        let allCaps = original.count > 1 && original.allSatisfy { !($0 >= 97 && $0 <= 122) }
        let lower = original.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }

        // Candidates seen, by hash (a collision can only hide a candidate).
        var seen = Set<UInt64>(minimumCapacity: 2048)
        seen.insert(StemTable.hash(lower))
        var found: [(cost: Int, order: Int, text: String)] = []
        func consider(_ c: [UInt8], cost: Int, filtered: Bool = true) {
            guard c.count > 0 else { return }
            let h = StemTable.hash(c)
            guard seen.insert(h).inserted else { return }
            if filtered && !stems.plausible(c, hash: h) { return }
            var shown = c
            if allCaps {
                shown = c.map { $0 >= 97 && $0 <= 122 ? $0 - 32 : $0 }
            } else if title, shown[0] >= 97 && shown[0] <= 122 {
                shown[0] -= 32
            }
            let text = String(decoding: shown, as: UTF8.self)
            // A candidate the dictionary only knows capitalised ("paris" → "Paris") is shown that way.
            if isWord(text) {
                found.append((cost, found.count, text))
            } else if !title, !allCaps, c[0] >= 97 && c[0] <= 122 {
                var cap = c
                cap[0] -= 32
                let t = String(decoding: cap, as: UTF8.self)
                if isWord(t) { found.append((cost + 1, found.count, t)) }
            }
        }

        // Spelling variants: few, asked directly.
        for (from, to) in Self.variants {
            let anchored = from.hasSuffix("$")
            let f = Array((anchored ? String(from.dropLast()) : from).utf8), t = Array(to.utf8)
            guard lower.count > f.count else { continue }
            var i = anchored ? lower.count - f.count : 0
            while i + f.count <= lower.count {
                if lower[i..<(i + f.count)].elementsEqual(f) {
                    consider(Array(lower[..<i]) + t + Array(lower[(i + f.count)...]), cost: 0, filtered: false)
                }
                i += 1
            }
        }

        // A spelling variant ("colour" → "color") is what was meant: no need for the edits.
        if !found.isEmpty { return Self.best(found, limit: limit) }

        // Edits at character boundaries (a UTF-8 scalar is one character).
        var starts: [Int] = []
        for (i, b) in lower.enumerated() where b & 0xC0 != 0x80 { starts.append(i) }
        let n = starts.count
        func end(_ k: Int) -> Int { k + 1 < n ? starts[k + 1] : lower.count }
        func firstLetterPenalty(_ k: Int) -> Int { k == 0 ? 3 : 0 }
        var buf: [UInt8] = []
        buf.reserveCapacity(lower.count + 4)
        for k in 0..<n {
            let s = starts[k], e = end(k)
            let ch = lower[s..<e]
            // Delete: a doubled letter costs less.
            let doubled = (k > 0 && lower[starts[k - 1]..<s].elementsEqual(ch)) || (k + 1 < n && lower[e..<end(k + 1)].elementsEqual(ch))
                || (k > 0 && ch.elementsEqual([104]) && Self.beforeH.contains(lower[s - 1]))
            if n > 1 {
                consider(Array(lower[..<s]) + Array(lower[e...]), cost: (doubled ? 1 : 2) + firstLetterPenalty(k))
            }
            // Swap with the next character.
            if k + 1 < n {
                let e2 = end(k + 1)
                consider(Array(lower[..<s]) + Array(lower[e..<e2]) + Array(ch) + Array(lower[e2...]), cost: 1)
            }
            // Replace.
            let vowel = ch.count == 1 && Self.vowels.contains(ch[ch.startIndex])
            for a in Self.alphabet where !(ch.count == 1 && ch[ch.startIndex] == a) {
                let cost = (vowel && Self.vowels.contains(a) ? 1 : 2) + firstLetterPenalty(k)
                buf.removeAll(keepingCapacity: true)
                buf.append(contentsOf: lower[..<s])
                buf.append(a)
                buf.append(contentsOf: lower[e...])
                consider(buf, cost: cost)
            }
        }
        // Insert (before each character and at the end): doubling the neighbour costs less.
        for k in 0...n {
            let at = k < n ? starts[k] : lower.count
            for a in Self.alphabet {
                let doubles = (k > 0 && lower[at - 1] == a) || (k < n && lower[at] == a)
                    || (a == 104 && k > 0 && Self.beforeH.contains(lower[at - 1]))
                buf.removeAll(keepingCapacity: true)
                buf.append(contentsOf: lower[..<at])
                buf.append(a)
                buf.append(contentsOf: lower[at...])
                consider(buf, cost: (doubles ? 1 : 2) + firstLetterPenalty(k))
            }
        }
        // Nothing one edit away: two of the commonest slips (a letter doubled or undoubled, a vowel for
        // a vowel, two letters swapped), e.g. "tommorow", "dissapoint". Lower-case ASCII words up to 20
        // letters: a capitalised word nothing is one edit from is most often a name.
        if found.isEmpty, !title, lower.count <= 20, lower.allSatisfy({ $0 < 0x80 }) {
            for c1 in Self.slips(lower) {
                for c2 in Self.slips(c1) { consider(c2, cost: 4) }
            }
        }
        return Self.best(found, limit: limit)
    }

    /// The `limit` cheapest candidates (common words first among equals, then in the order found).
    private static func best(_ found: [(cost: Int, order: Int, text: String)], limit: Int) -> [String] {
        func isCommon(_ t: String) -> Bool { common.contains(t.lowercased()) }
        let sorted = found.sorted { a, b in
            if a.cost != b.cost { return a.cost < b.cost }
            let ca = isCommon(a.text), cb = isCommon(b.text)
            if ca != cb { return ca }
            return a.order < b.order
        }
        var out: [String] = []
        for f in sorted where !out.contains(f.text) {
            out.append(f.text)
            if out.count == limit { break }
        }
        return out
    }
}

extension Suggester {
    /// The words one slip away from ASCII `w`: a letter doubled or undoubled, a vowel replaced by another,
    /// two neighbours swapped.
    static func slips(_ w: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = []
        let n = w.count
        for i in 0..<n {
            if i + 1 < n && w[i] == w[i + 1] {
                var c = w; c.remove(at: i); out.append(c)
            } else {
                var c = w; c.insert(w[i], at: i); out.append(c)
            }
            if vowels.contains(w[i]) {
                for v in vowels where v != w[i] { var c = w; c[i] = v; out.append(c) }
            }
            if i + 1 < n && w[i] != w[i + 1] { var c = w; c.swapAt(i, i + 1); out.append(c) }
        }
        return out
    }
}

/// The stems of a Hunspell `.dic` file (the words before `/`), lower-cased and hashed: a fast, approximate
/// test of whether a string could be a word, so that only likely candidates are asked of Hunspell.
struct StemTable: Sendable {
    private var slots: [UInt64]
    /// Case-sensitive hashes of the entries that are words by themselves (no flag that needs an affix,
    /// a compound or forbids the word): a look-up there answers like `Hunspell_spell` without calling it.
    private var exact: [UInt64]
    /// The `.aff` allows the exact look-up (one-byte flags, no input conversion but ’ → ').
    let exactUsable: Bool
    private let shift: UInt64
    private(set) var count = 0

    /// Endings tried on a candidate that is not a stem itself: the stem left must be in the table, as
    /// written, with an `e` added, with `y` for a leading `i`, or with a doubled last letter undone.
    static let suffixes: [[UInt8]] = ["s", "es", "d", "ed", "ing", "er", "ers", "est", "ly", "ness", "ment", "ments",
                                     "able", "ably", "ful", "fully", "ion", "ions", "ive", "al", "ally", "ity", "ist",
                                     "ists", "ism", "'s", "ies", "ied", "ier", "iers", "iest", "ily", "iness", "ish", "ous"]
        .map { Array($0.utf8) }
    /// Beginnings tried the same way (the dictionaries' prefix classes).
    static let prefixes: [[UInt8]] = ["un", "re", "in", "im", "dis", "de", "con", "pro", "mis", "non", "over", "under",
                                     "out", "pre"].map { Array($0.utf8) }

    /// The flags of `.aff` bytes that keep an entry from being a word by itself, or nil when the file
    /// uses what the exact look-up does not model (long or numeric flags, input conversions).
    static func specialFlags(aff: [UInt8]) -> Set<UInt8>? {
        var out = Set<UInt8>()
        for line in String(decoding: aff, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let parts = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let key = parts.first, parts.count >= 2 else { continue }
            switch key {
            case "FLAG", "IGNORE", "CHECKSHARPS", "FORCEUCASE":
                return nil
            case "ICONV":
                // "ICONV 1" is the count; the only pair allowed is ’ → ', which the collector applies.
                if parts.count >= 3 && !(parts[1] == "\u{2019}" && parts[2] == "'") { return nil }
            case "ONLYINCOMPOUND", "NEEDAFFIX", "PSEUDOROOT", "FORBIDDENWORD", "KEEPCASE", "CIRCUMFIX", "SUBSTANDARD",
                 "COMPOUNDFLAG", "COMPOUNDBEGIN", "COMPOUNDMIDDLE", "COMPOUNDLAST":
                out.formUnion(parts[1].utf8)
            case "COMPOUNDRULE":
                if Int(parts[1]) == nil { out.formUnion(parts[1].utf8.filter { !"*?()".utf8.contains($0) }) }
            default:
                break
            }
        }
        return out
    }

    /// A table of lower-cased stems stored as `slots` (see `stemSlots`, `WordTableCache`); nil unless a
    /// power of two of at least 1,024 slots with an empty one. Plain-word look-ups are off (`exactUsable`).
    init?(slots: [UInt64], count: Int) {
        let n = slots.count
        guard n >= 1024, n & (n - 1) == 0, slots.contains(0), count >= 0, count < n else { return nil }
        self.slots = slots
        shift = UInt64(64 - n.trailingZeroBitCount)
        exact = [0]
        exactUsable = false
        self.count = count
    }

    /// The open-addressed slots of the stems (for `WordTableCache`).
    var stemSlots: [UInt64] { slots }

    /// Parses `.dic` bytes: the first line is the entry count; each entry is `word[/flags][ fields]`.
    /// - Parameter aff: the `.aff` bytes (for the flags that keep an entry from being a word by itself).
    init(dic bytes: [UInt8], aff: [UInt8] = []) {
        var lines = 0
        for b in bytes where b == 10 { lines += 1 }
        var size = 1024, bits: UInt64 = 10
        while size < lines * 2 { size <<= 1; bits += 1 }
        slots = [UInt64](repeating: 0, count: size)
        shift = 64 - bits
        let special = aff.isEmpty ? nil : Self.specialFlags(aff: aff)
        exactUsable = special != nil
        exact = [UInt64](repeating: 0, count: special != nil ? size : 1)
        let specialFlags = special ?? []
        bytes.withUnsafeBufferPointer { p in
            var i = 0
            let n = p.count
            // Skip the count line.
            while i < n && p[i] != 10 { i += 1 }
            i += 1
            while i < n {
                var h = WordHash.offset, exactHash = WordHash.offset
                var len = 0
                while i < n {
                    var b = p[i]
                    if b == 47 || b == 10 || b == 9 || b == 32 || b == 13 { break }
                    if b == 92, i + 1 < n, p[i + 1] == 47 { i += 1; b = 47 }   // "\\/" is a slash in the word
                    h = WordHash.add(h, b >= 65 && b <= 90 ? b + 32 : b)
                    exactHash = WordHash.add(exactHash, b)
                    len += 1
                    i += 1
                }
                if len > 0 {
                    insert(WordHash.finish(h))
                    var plain = exactUsable
                    if plain, i < n, p[i] == 47 {
                        i += 1
                        while i < n, p[i] != 10, p[i] != 9, p[i] != 32, p[i] != 13 {
                            if specialFlags.contains(p[i]) { plain = false }
                            i += 1
                        }
                    }
                    if plain { insertExact(WordHash.finish(exactHash)) }
                }
                while i < n && p[i] != 10 { i += 1 }
                i += 1
            }
        }
    }

    private mutating func insert(_ h: UInt64) {
        let j = HashProbe.find(h, in: slots, shift: shift)
        if slots[j] == h { return }
        slots[j] = h
        count += 1
    }

    private mutating func insertExact(_ h: UInt64) {
        exact[HashProbe.find(h, in: exact, shift: shift)] = h
    }

    private func containsExact(_ h: UInt64) -> Bool { exact[HashProbe.find(h, in: exact, shift: shift)] == h }

    /// Whether `word` (as written, ’ already ') is an entry of the dictionary that is a word by itself,
    /// or, written with one capital first letter and no other ("The"), the lower-case form of such an
    /// entry (Hunspell's rule). False means "ask Hunspell", not "wrong".
    func isPlainWord(_ word: String) -> Bool {
        guard exactUsable else { return false }
        var h = WordHash.offset, lowered = WordHash.offset
        var first = true, title = false
        for b in word.utf8 {
            h = WordHash.add(h, b)
            let upper = b >= 65 && b <= 90
            if first { title = upper } else if upper { title = false }
            lowered = WordHash.add(lowered, upper ? b + 32 : b)
            first = false
        }
        if containsExact(WordHash.finish(h)) { return true }
        return title && containsExact(WordHash.finish(lowered))
    }

    func contains(_ h: UInt64) -> Bool { slots[HashProbe.find(h, in: slots, shift: shift)] == h }

    static func hash<C: Collection>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
        var h = WordHash.offset
        for b in bytes { h = WordHash.add(h, b) }
        return WordHash.finish(h)
    }

    /// Whether lower-cased `word` is a stem, or a stem with one of the common endings or beginnings.
    func plausible(_ word: [UInt8], hash: UInt64? = nil) -> Bool {
        if contains(hash ?? Self.hash(word)) || stemWithSuffix(word[...]) { return true }
        for p in Self.prefixes where word.count > p.count + 2 && word.starts(with: p) {
            let rest = word[p.count...]
            if contains(Self.hash(rest)) || stemWithSuffix(rest) { return true }
        }
        return false
    }

    private static func endsWith(_ word: ArraySlice<UInt8>, _ s: [UInt8]) -> Bool {
        var i = word.endIndex - s.count
        for b in s {
            if word[i] != b { return false }
            i += 1
        }
        return true
    }

    private func stemWithSuffix(_ word: ArraySlice<UInt8>) -> Bool {
        let n = word.count
        guard let last = word.last else { return false }
        for s in Self.suffixes where n > s.count + 1 && s[s.count - 1] == last && Self.endsWith(word, s) {
            let stem = word.prefix(n - s.count)
            var h = WordHash.offset
            for b in stem { h = WordHash.add(h, b) }
            if contains(WordHash.finish(h)) || contains(WordHash.finish(WordHash.add(h, 101))) { return true }   // + "e"
            if s[0] == 105, contains(WordHash.finish(WordHash.add(h, 121))) { return true }   // "i…" for "y"
            if stem.count >= 3, stem.last == stem[stem.index(stem.endIndex, offsetBy: -2)],
               contains(Self.hash(stem.dropLast())) {
                return true
            }
        }
        return false
    }
}
