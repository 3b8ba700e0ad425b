/// Linear probing over a power-of-two table of non-zero 64-bit hashes (0 marks an empty slot), shared
/// by `HashSlots`, `WordTable.HashBuilder` and `StemTable`. The first slot is the top bits of a
/// multiplicative mix (FNV's low bits cluster on similar words).
enum HashProbe {
    /// The slot holding `h`, or the empty slot where it would go. The table must have an empty slot.
    @inline(__always) static func find(_ h: UInt64, in slots: [UInt64], shift: UInt64) -> Int {
        let mask = slots.count - 1
        var j = Int(truncatingIfNeeded: (h &* 0x9E37_79B9_7F4A_7C15) >> shift)
        while true {
            let s = slots[j]
            if s == h || s == 0 { return j }
            j = (j + 1) & mask
        }
    }
}

/// An open-addressed set of 64-bit hashes (0 marks an empty slot; `WordTable.hash` never gives 0).
struct HashSlots: Sendable, Equatable {
    private(set) var slots: [UInt64]
    private let shift: UInt64

    /// A set of `hashes`, at most three quarters full (linear probing stays within a cache line or two;
    /// the cache file, read by every process, stays small: en_US's 167k forms take 2 MB).
    init<C: Collection>(_ hashes: C, minimumSize: Int = 16) where C.Element == UInt64 {
        var size = 16, bits: UInt64 = 4
        while size < minimumSize || size * 3 < hashes.count * 4 { size <<= 1; bits += 1 }
        slots = [UInt64](repeating: 0, count: size)
        shift = 64 - bits
        for h in hashes where h != 0 { slots[HashProbe.find(h, in: slots, shift: shift)] = h }
    }

    /// The set stored as `slots` (e.g. read from a cache); nil unless a power of two of at least 16
    /// slots with an empty one (a look-up must end).
    init?(slots: [UInt64]) {
        let n = slots.count
        guard n >= 16, n & (n - 1) == 0, slots.contains(0) else { return nil }
        self.slots = slots
        shift = UInt64(64 - n.trailingZeroBitCount)
    }

    @inline(__always) func contains(_ h: UInt64) -> Bool { slots[HashProbe.find(h, in: slots, shift: shift)] == h }
}

/// Every word form a Hunspell dictionary accepts, expanded once from the `.aff` rules and the `.dic`
/// entries and kept as hashes, so that a process answers `Hunspell_spell`'s question without building
/// Hunspell's tables (~30 ms for en_US). Built by `build`, stored and read by `WordTableCache`.
///
/// The look-up follows Hunspell 1.7's `spell`: trailing dots, numbers, the case rules (a lower-case
/// entry accepts its Capitalised and ALL-CAPS forms, a Capitalised one its ALL-CAPS form, mixed case
/// only as written), compounds of `COMPOUNDRULE`, and the default word breaking at hyphens.
struct WordTable: Sendable {
    /// Case-sensitive hashes of the accepted forms.
    var words: HashSlots
    /// Forms that come only from `NOSUGGEST` entries: accepted, never suggested.
    var noSuggest: HashSlots
    /// Forms accepted only in an ALL-CAPS word (Hunspell's hidden capitalised entries: "OpenOffice" →
    /// "Openoffice", for "OPENOFFICE").
    var upcase: HashSlots
    /// The lower-cased stems, for the suggestions' pre-filter.
    var stems: StemTable
    /// Compound parts (exact `.dic` words) → their flags, and the rules; empty without `COMPOUNDRULE`.
    var compound: Compound

    struct Compound: Sendable, Equatable {
        var rules: [[UInt8]] = []
        var minLength = 3
        /// Part word → flags (the union over homonyms).
        var parts: [String: [UInt8]] = [:]
        var partHashes: [UInt64: [UInt8]] = [:]
        var firstScalars: Set<Unicode.Scalar> = []
        var maxPartLength = 0

        init() {}

        init(rules: [[UInt8]], minLength: Int, parts: [String: [UInt8]]) {
            self.rules = rules
            self.minLength = minLength
            self.parts = parts
            for (w, f) in parts {
                let s = Array(w.unicodeScalars)
                guard let first = s.first else { continue }
                partHashes[WordTable.hash(s[...]), default: []] += f
                firstScalars.insert(first)
                maxPartLength = max(maxPartLength, s.count)
            }
        }
    }

    // MARK: Hashing and case

    static func hash(_ s: ArraySlice<Unicode.Scalar>) -> UInt64 {
        var h = WordHash.offset
        for c in s {
            if c.value < 0x80 { h = WordHash.add(h, UInt8(c.value)) } else { UTF8.encode(c) { h = WordHash.add(h, $0) } }
        }
        return WordHash.finish(h)
    }

    static func lower(_ c: Unicode.Scalar) -> Unicode.Scalar {
        if c.value < 0x80 { return c.value >= 65 && c.value <= 90 ? Unicode.Scalar(c.value + 32)! : c }
        let m = c.properties.lowercaseMapping.unicodeScalars
        return m.count == 1 ? m[m.startIndex] : c
    }

    static func upper(_ c: Unicode.Scalar) -> Unicode.Scalar {
        if c.value < 0x80 { return c.value >= 97 && c.value <= 122 ? Unicode.Scalar(c.value - 32)! : c }
        let m = c.properties.uppercaseMapping.unicodeScalars
        return m.count == 1 ? m[m.startIndex] : c
    }

    enum CapType { case none, initial, all, mixedInitial, mixed }

    /// Hunspell's `get_captype`.
    static func capType(_ w: ArraySlice<Unicode.Scalar>) -> CapType {
        var caps = 0, neutral = 0
        for c in w {
            let l = lower(c)
            if c != l { caps += 1 }
            if upper(c) == l { neutral += 1 }
        }
        if caps == 0 { return .none }
        let firstCap = w.first.map { lower($0) != $0 } ?? false
        if caps == 1 && firstCap { return .initial }
        if caps == w.count || caps + neutral == w.count { return .all }
        return caps > 1 && firstCap ? .mixedInitial : .mixed
    }

    static func lowered(_ w: ArraySlice<Unicode.Scalar>) -> [Unicode.Scalar] { w.map(lower) }

    static func initialCapital(_ w: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var out = w
        if !out.isEmpty { out[0] = upper(out[0]) }
        return out
    }

    // MARK: Look-up

    /// Whether Hunspell would accept `word` (`Hunspell_spell`).
    func spell(_ word: String) -> Bool {
        var w = Array(word.unicodeScalars)
        for i in w.indices where w[i] == "\u{2019}" { w[i] = "'" }   // ICONV ’ '
        return spell(w[...], depth: 0) != nil
    }

    /// Whether `word` is accepted and may be suggested (not only from `NOSUGGEST` entries).
    func suggestable(_ word: String) -> Bool {
        var w = Array(word.unicodeScalars)
        for i in w.indices where w[i] == "\u{2019}" { w[i] = "'" }
        guard let form = spell(w[...], depth: 0) else { return false }
        return !noSuggest.contains(form)
    }

    /// The hash of the form that accepted the word (1 for numbers and compounds), or nil.
    private func spell(_ input: ArraySlice<Unicode.Scalar>, depth: Int) -> UInt64? {
        guard depth < 20 else { return nil }
        var w = input
        while w.first == " " { w.removeFirst() }
        var dots = 0
        while w.last == "." { w.removeLast(); dots += 1 }
        if w.isEmpty { return 1 }
        if Self.isNumber(w) { return 1 }
        let word = Array(w)
        if let hit = checkCase(word, dots: dots) { return hit }
        // Hunspell breaks the word as its case branch left it: ALL CAPS as Capitalised lower case
        // ("RFC-0736" → "Rfc" + "0736"), other words with one of their trailing dots back.
        switch Self.capType(w) {
        case .all: return breakAtHyphens(Self.initialCapital(Self.lowered(w)), depth: depth)
        case .initial: return breakAtHyphens(word, depth: depth)
        default: return breakAtHyphens(dots > 0 ? word + ["."] : word, depth: depth)
        }
    }

    /// Hunspell's number rule: digits with single `.`, `,` or `-` between them.
    private static func isNumber(_ w: ArraySlice<Unicode.Scalar>) -> Bool {
        var sawDigit = false, lastSep = false
        for (i, c) in w.enumerated() {
            if c >= "0" && c <= "9" {
                sawDigit = true; lastSep = false
            } else if c == "," || c == "." || c == "-" {
                if lastSep || i == 0 { return false }
                lastSep = true
            } else {
                return false
            }
        }
        return sawDigit && !lastSep
    }

    private func checkCase(_ w: [Unicode.Scalar], dots: Int) -> UInt64? {
        switch Self.capType(w[...]) {
        case .none, .mixed, .mixedInitial:
            if let h = checkWord(w, upcase: false) { return h }
            if dots > 0 { return checkWord(w + ["."], upcase: false) }
            return nil
        case .all:
            if let h = checkWord(w, upcase: true) { return h }
            if dots > 0, let h = checkWord(w + ["."], upcase: true) { return h }
            // "SANT'ELIA" → "sant'Elia", "Sant'Elia".
            if let apos = w.firstIndex(of: "'"), apos < w.count - 1 {
                let lower = Self.lowered(w[...])
                var part1 = Array(lower[...apos]), part2 = Self.initialCapital(Array(lower[(apos + 1)...]))
                if let h = checkWord(part1 + part2, upcase: true) { return h }
                part1 = Self.initialCapital(part1)
                part2 = Self.initialCapital(part2)
                if let h = checkWord(part1 + part2, upcase: true) { return h }
            }
            return checkInitial(w, dots: dots, upcase: true)
        case .initial:
            return checkInitial(w, dots: dots, upcase: false)
        }
    }

    /// Hunspell's INITCAP branch (also the end of the ALL-CAPS one): the word Capitalised, then lower case.
    private func checkInitial(_ w: [Unicode.Scalar], dots: Int, upcase: Bool) -> UInt64? {
        let lower = Self.lowered(w[...])
        let initial = Self.initialCapital(lower)
        if let h = checkWord(initial, upcase: upcase) { return h }
        if let h = checkWord(lower, upcase: upcase) { return h }
        if dots > 0 {
            if let h = checkWord(lower + ["."], upcase: upcase) { return h }
            return checkWord(initial + ["."], upcase: upcase)
        }
        return nil
    }

    /// Hunspell's `checkword`: the form as an entry or an affixed form, or a compound.
    private func checkWord(_ w: [Unicode.Scalar], upcase: Bool) -> UInt64? {
        let h = Self.hash(w[...])
        if words.contains(h) || (upcase && upcase_contains(h)) { return h }
        return isCompound(w[...]) ? 1 : nil
    }

    @inline(__always) private func upcase_contains(_ h: UInt64) -> Bool { upcase.contains(h) }

    /// Hunspell's default `BREAK` patterns (`-`, `^-`, `-$`): a hyphenated word is right when its parts are.
    private func breakAtHyphens(_ w: [Unicode.Scalar], depth: Int) -> UInt64? {
        let n = w.count
        let hyphens = w.reduce(0) { $0 + ($1 == "-" ? 1 : 0) }
        guard hyphens > 0, hyphens < 10 else { return nil }
        if n > 1, w[0] == "-", spell(w[1...], depth: depth + 1) != nil { return 1 }
        if n > 1, w[n - 1] == "-", spell(w[..<(n - 1)], depth: depth + 1) != nil { return 1 }
        guard let first = w.firstIndex(of: "-"), first > 0, first < n - 1 else { return nil }
        // At the second hyphen first (to find entries that contain a hyphen), then at the first.
        var at = first
        if let second = w[(first + 1)...].firstIndex(of: "-"), second < n - 1 { at = second }
        if spell(w[(at + 1)...], depth: depth + 1) != nil, spell(w[..<at], depth: depth + 1) != nil { return 1 }
        if at != first, spell(w[(first + 1)...], depth: depth + 1) != nil, spell(w[..<first], depth: depth + 1) != nil {
            return 1
        }
        return nil
    }

    /// Whether `w` splits into at least two compound parts whose flags match a `COMPOUNDRULE`.
    func isCompound(_ w: ArraySlice<Unicode.Scalar>) -> Bool {
        let c = compound
        guard !c.rules.isEmpty, let f = w.first, c.firstScalars.contains(f), w.count >= 2 * c.minLength else { return false }
        var parts: [[UInt8]] = []
        func split(_ start: Int) -> Bool {
            if start == w.endIndex {
                return parts.count >= 2 && c.rules.contains { Self.matches(rule: $0[...], parts[...]) }
            }
            var h = WordHash.offset
            var end = start
            while end < w.endIndex && end - start < c.maxPartLength {
                let s = w[end]
                if s.value < 0x80 { h = WordHash.add(h, UInt8(s.value)) } else { UTF8.encode(s) { h = WordHash.add(h, $0) } }
                end += 1
                if end - start >= c.minLength, let flags = c.partHashes[WordHash.finish(h)] {
                    parts.append(flags)
                    if split(end) { return true }
                    parts.removeLast()
                }
            }
            return false
        }
        return split(w.startIndex)
    }

    /// Whether the parts' flags, one chosen per part, spell `rule` (flags with `*` and `?`).
    static func matches(rule: ArraySlice<UInt8>, _ parts: ArraySlice<[UInt8]>) -> Bool {
        guard let flag = rule.first else { return parts.isEmpty }
        let rest = rule.dropFirst()
        let quant = rest.first
        if quant == 42 {   // *
            if matches(rule: rest.dropFirst(), parts) { return true }
            if let p = parts.first, p.contains(flag) { return matches(rule: rule, parts.dropFirst()) }
            return false
        }
        if quant == 63 {   // ?
            if matches(rule: rest.dropFirst(), parts) { return true }
            if let p = parts.first, p.contains(flag) { return matches(rule: rest.dropFirst(), parts.dropFirst()) }
            return false
        }
        guard let p = parts.first, p.contains(flag) else { return false }
        return matches(rule: rest, parts.dropFirst())
    }
}

// MARK: Building

extension WordTable {
    /// One `.dic` entry: the word and its flag bytes.
    struct Entry {
        var word: [Unicode.Scalar]
        var flags: [UInt8]
    }

    /// The entries of `.dic` bytes, as Hunspell reads them: the first line is the count; a line is
    /// `word[/flags]`, then maybe morphological fields (after a tab, or after a space before `xx:`);
    /// `\/` is a slash in the word.
    static func entries(dic: [UInt8]) -> [Entry] {
        var out: [Entry] = []
        var lineStart = 0
        var first = true
        let n = dic.count
        out.reserveCapacity(n / 12)
        while lineStart < n {
            var lineEnd = lineStart
            while lineEnd < n && dic[lineEnd] != 10 { lineEnd += 1 }
            defer { lineStart = lineEnd + 1 }
            if first { first = false; continue }
            var line = dic[lineStart..<lineEnd]
            while let l = line.last, l == 13 { line.removeLast() }
            if line.isEmpty { continue }
            // Morphological fields: " xx:" (the first colon three after a blank), or a tab.
            var cut = line.endIndex
            var i = line.startIndex
            while i < line.endIndex {
                if line[i] == 58, i - line.startIndex > 3, line[i - 3] == 32 || line[i - 3] == 9 {
                    var j = i - 3
                    while j > line.startIndex, line[j - 1] == 32 || line[j - 1] == 9 { j -= 1 }
                    if j > line.startIndex { cut = j }
                    break
                }
                i += 1
            }
            if let tab = line.firstIndex(of: 9), tab < cut { cut = tab }
            line = line[..<cut]
            // Word and flags: the first "/" after the first byte not escaped by "\".
            var word: [UInt8] = []
            var flags: [UInt8] = []
            var k = line.startIndex
            var inFlags = false
            while k < line.endIndex {
                let b = line[k]
                if inFlags {
                    flags.append(b)
                } else if b == 47 && k > line.startIndex {
                    if word.last == 92 { word[word.count - 1] = 47 } else { inFlags = true }
                } else {
                    word.append(b)
                }
                k += 1
            }
            if word.isEmpty { continue }
            out.append(Entry(word: Array(String(decoding: word, as: UTF8.self).unicodeScalars), flags: flags))
        }
        return out
    }

    /// The rules by flag byte (arrays, not dictionaries: the expansion asks for every flag of every entry).
    struct FlagRules {
        var prefixes = [[AffixRules.Rule]](repeating: [], count: 256)
        var suffixes = [[AffixRules.Rule]](repeating: [], count: 256)
        /// The flag has a cross-product prefix rule.
        var crossPrefix = [Bool](repeating: false, count: 256)
        var onlyInCompound: UInt8?
        var needAffix: UInt8?

        init(_ rules: AffixRules) {
            for (f, r) in rules.prefixes {
                prefixes[Int(f)] = r
                crossPrefix[Int(f)] = r.contains { $0.cross }
            }
            for (f, r) in rules.suffixes { suffixes[Int(f)] = r }
            onlyInCompound = rules.onlyInCompound
            needAffix = rules.needAffix
        }
    }

    /// Whether the suffix rule applies to `root`. Hunspell: the root minus the strip is not empty, ends as
    /// the strip says, and meets the condition (the form is then the root minus the strip, plus the add).
    private static func suffixApplies(_ r: AffixRules.Rule, to root: [Unicode.Scalar]) -> Bool {
        let n = root.count
        guard n > r.strip.count, n >= r.condition.count else { return false }
        if !r.strip.isEmpty && !root[(n - r.strip.count)...].elementsEqual(r.strip) { return false }
        var i = n - r.condition.count
        for c in r.condition {
            if !c.matches(root[i]) { return false }
            i += 1
        }
        return true
    }

    @inline(__always) private static func addHash(_ h: UInt64, _ c: Unicode.Scalar) -> UInt64 {
        if c.value < 0x80 { return WordHash.add(h, UInt8(c.value)) }
        var h = h
        UTF8.encode(c) { h = WordHash.add(h, $0) }
        return h
    }

    /// The hashes of every accepted form of `root` with `flags`, passed to `add` (maybe repeated).
    /// Suffixed forms are hashed without being built (the root's running hash, then the ending).
    static func expand(_ root: [Unicode.Scalar], flags: [UInt8], rules: FlagRules, add: (UInt64) -> Void) {
        if let o = rules.onlyInCompound, flags.contains(o) { return }
        // prefixHash[k]: the running hash of root[..<k].
        var prefixHash = [UInt64](repeating: WordHash.offset, count: root.count + 1)
        for (k, c) in root.enumerated() { prefixHash[k + 1] = addHash(prefixHash[k], c) }
        if rules.needAffix.map({ !flags.contains($0) }) ?? true { add(WordHash.finish(prefixHash[root.count])) }
        let crossWanted = flags.contains { rules.crossPrefix[Int($0)] }
        var crossSuffixed: [[Unicode.Scalar]] = []
        var seen: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        func firstTime(_ f: UInt8) -> Bool {
            let bit = UInt64(1) << UInt64(f & 63)
            switch f >> 6 {
            case 0: if seen.0 & bit != 0 { return false }; seen.0 |= bit
            case 1: if seen.1 & bit != 0 { return false }; seen.1 |= bit
            case 2: if seen.2 & bit != 0 { return false }; seen.2 |= bit
            default: if seen.3 & bit != 0 { return false }; seen.3 |= bit
            }
            return true
        }
        for f in flags where firstTime(f) {
            for r in rules.suffixes[Int(f)] where suffixApplies(r, to: root) {
                var h = prefixHash[root.count - r.strip.count]
                for c in r.add { h = addHash(h, c) }
                add(WordHash.finish(h))
                if r.cross && crossWanted { crossSuffixed.append(Array(root[..<(root.count - r.strip.count)]) + r.add) }
            }
        }
        seen = (0, 0, 0, 0)
        for f in flags where firstTime(f) {
            for r in rules.prefixes[Int(f)] {
                if let form = AffixRules.applyPrefix(r, to: root) { add(hash(form[...])) }
                guard r.cross else { continue }
                for s in crossSuffixed {
                    if let form = AffixRules.applyPrefix(r, to: s) { add(hash(form[...])) }
                }
            }
        }
    }

    /// A growing set of non-zero hashes for the build (Swift's `Set` hashes each UInt64 again with SipHash).
    struct HashBuilder {
        private(set) var slots: [UInt64]
        private(set) var count = 0
        private var shift: UInt64

        /// Room for `capacity` hashes before the first growth (each growth re-inserts them all).
        init(capacity: Int = 1024) {
            var size = 1 << 10, bits: UInt64 = 10
            while size < capacity * 2 { size <<= 1; bits += 1 }
            slots = [UInt64](repeating: 0, count: size)
            shift = 64 - bits
        }

        @discardableResult
        mutating func insert(_ h: UInt64) -> Bool {
            if (count + 1) * 2 > slots.count { grow() }
            let j = HashProbe.find(h, in: slots, shift: shift)
            if slots[j] == h { return false }
            slots[j] = h
            count += 1
            return true
        }

        func contains(_ h: UInt64) -> Bool { slots[HashProbe.find(h, in: slots, shift: shift)] == h }

        var elements: [UInt64] { slots.filter { $0 != 0 } }

        private mutating func grow() {
            let old = slots
            slots = [UInt64](repeating: 0, count: old.count * 2)
            shift -= 1
            count = 0
            for h in old where h != 0 { insert(h) }
        }
    }

    /// The stems in a table sized like `HashSlots` (the same slot function), to keep the cache small.
    static func packedStems(_ t: StemTable) -> StemTable {
        let packed = HashSlots(t.stemSlots.filter { $0 != 0 }, minimumSize: 1024)
        return StemTable(slots: packed.slots, count: t.count) ?? t
    }

    /// The table of a dictionary: every entry expanded (with Hunspell's hidden capitalised entries for
    /// mixed-case and affixed ALL-CAPS words), the stems, the compound parts.
    static func build(rules: AffixRules, dic: [UInt8]) -> WordTable {
        let byFlag = FlagRules(rules)
        // Forms of ordinary entries, forms of NOSUGGEST entries, forms of hidden capitalised entries.
        let all = entries(dic: dic)
        // English dictionaries have 3–4 forms an entry.
        var accepted = HashBuilder(capacity: all.count * 4), fromNoSuggest = HashBuilder(), upcase = HashBuilder()
        var parts: [String: [UInt8]] = [:]
        let compoundFlags = rules.compoundFlags
        // Hunspell keeps a hidden capitalised entry only when no real entry is spelt the same ("HF/SM"
        // gets none: "Hf" is an entry), and only the first of several.
        var real = HashBuilder(capacity: all.count)
        for e in all { real.insert(hash(e.word[...])) }
        var hidden = HashBuilder()
        for e in all {
            if let n = rules.noSuggest, e.flags.contains(n) {
                expand(e.word, flags: e.flags, rules: byFlag) { fromNoSuggest.insert($0) }
            } else {
                expand(e.word, flags: e.flags, rules: byFlag) { accepted.insert($0) }
            }
            if !compoundFlags.isEmpty, e.flags.contains(where: compoundFlags.contains) {
                var s = String.UnicodeScalarView()
                s.append(contentsOf: e.word)
                parts[String(s), default: []] += e.flags
            }
            let cap = capType(e.word[...])
            if cap == .mixed || cap == .mixedInitial || (cap == .all && !e.flags.isEmpty) {
                let root = initialCapital(lowered(e.word[...]))
                let h = hash(root[...])
                if !real.contains(h) && hidden.insert(h) {
                    expand(root, flags: e.flags, rules: byFlag) { upcase.insert($0) }
                }
            }
        }
        let onlyNoSuggest = fromNoSuggest.elements.filter { !accepted.contains($0) }
        for h in onlyNoSuggest { accepted.insert(h) }
        let upcaseOnly = upcase.elements.filter { !accepted.contains($0) }
        return WordTable(
            words: HashSlots(accepted.elements), noSuggest: HashSlots(onlyNoSuggest), upcase: HashSlots(upcaseOnly),
            stems: packedStems(StemTable(dic: dic)),
            compound: Compound(rules: rules.compoundRules, minLength: rules.compoundMin, parts: parts))
    }
}
