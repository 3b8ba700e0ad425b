import CPOSTable

/// What a word can be: the open classes from WordNet (`POSData`) and the closed classes kept by hand
/// (`ClosedClass`). A word carries every tag it may take ("walk": noun and verb); `main*` marks the
/// part of speech it has most often in tagged text.
struct POSTags: OptionSet, Sendable {
    let rawValue: UInt32
    static let noun = POSTags(rawValue: 1 << 0)
    static let verb = POSTags(rawValue: 1 << 1)
    static let adjective = POSTags(rawValue: 1 << 2)
    static let adverb = POSTags(rawValue: 1 << 3)
    /// A plural noun form ("children", "boxes").
    static let plural = POSTags(rawValue: 1 << 4)
    /// A third-person singular verb form ("goes", "walks").
    static let thirdPerson = POSTags(rawValue: 1 << 5)
    /// A past tense or past participle ("went", "walked").
    static let past = POSTags(rawValue: 1 << 6)
    /// An -ing form ("walking").
    static let gerund = POSTags(rawValue: 1 << 7)
    /// A comparative ("better", "taller").
    static let comparative = POSTags(rawValue: 1 << 8)
    static let mainNoun = POSTags(rawValue: 1 << 9)
    static let mainVerb = POSTags(rawValue: 1 << 10)
    static let mainAdjective = POSTags(rawValue: 1 << 11)
    static let mainAdverb = POSTags(rawValue: 1 << 12)
    // Closed classes.
    static let determiner = POSTags(rawValue: 1 << 16)
    static let subjectPronoun = POSTags(rawValue: 1 << 17)
    static let objectPronoun = POSTags(rawValue: 1 << 18)
    static let possessive = POSTags(rawValue: 1 << 19)
    static let auxiliary = POSTags(rawValue: 1 << 20)
    static let modal = POSTags(rawValue: 1 << 21)
    static let preposition = POSTags(rawValue: 1 << 22)
    static let conjunction = POSTags(rawValue: 1 << 23)
    static let degree = POSTags(rawValue: 1 << 24)
    /// An indefinite pronoun ("anyone", "something", "nowhere"): a whole noun phrase, never after a possessive.
    static let indefinite = POSTags(rawValue: 1 << 26)
    /// A verb whose past tense is its base form ("put", "cut", "let").
    static let sameInPast = POSTags(rawValue: 1 << 25)
    /// Any closed-class word (they never count as nouns, verbs or adjectives for the rules).
    static let closed: POSTags = [.determiner, .subjectPronoun, .objectPronoun, .possessive, .auxiliary, .modal,
                                  .preposition, .conjunction, .degree, .indefinite]
    /// Closed classes whose words WordNet also lists as rare nouns ("at", "in", "it", "may"): those readings are dropped.
    static let notNouns: POSTags = [.determiner, .subjectPronoun, .objectPronoun, .possessive, .auxiliary, .modal,
                                    .preposition, .conjunction]

    /// An open-class form that can only be a noun (or noun plural).
    var onlyNoun: Bool { contains(.noun) && intersection([.verb, .adjective, .adverb, .gerund, .past]).isEmpty && intersection(Self.closed).isEmpty }
    /// Can only be an adjective (not a noun or a verb).
    var onlyAdjective: Bool { contains(.adjective) && intersection([.noun, .verb, .gerund, .past]).isEmpty && intersection(Self.closed).isEmpty }
}

/// Hand-kept closed-class words.
enum ClosedClass {
    static let determiners = "a an the this that these those every each some any no another either neither such what whatever which"
    static let subjectPronouns = "i you he she it we they"
    static let objectPronouns = "me you him her it us them"
    static let possessives = "my your his her its our their"
    static let auxiliaries = """
    be am is are was were been being isn't aren't wasn't weren't have has had having haven't hasn't hadn't \
    do does did doesn't don't didn't
    """
    static let modals = "can could may might must shall should will would can't couldn't mustn't shouldn't won't wouldn't cannot"
    static let prepositions = """
    about above across after against along among around as at before behind below beneath beside besides between \
    beyond by despite down during except for from in inside into like near of off on onto out outside over past \
    since through throughout till to toward towards under underneath until unto up upon via with within without
    """
    static let conjunctions = "and but or nor so yet because although though if unless while whereas whether than"
    static let degree = "very so too quite rather really extremely fairly pretty somewhat incredibly"
    static let indefinites = """
    anybody anyone anything anywhere everybody everyone everything everywhere nobody nothing nowhere \
    somebody someone something somewhere
    """
    static let sameInPast = """
    put cut hit let set shut cost hurt read beat quit spread bet burst cast split thrust bid broadcast upset \
    forecast rid shed slit wed knit fit
    """
}

/// Part-of-speech look-up by word hash (~50k words).
///
/// The table is laid out when the program is built (`Sources/CPOSTable`, written by
/// `scripts/gen_pos_table` from `table()`), so a process reads it from the binary's pages instead
/// of hashing the word lists at every start. `POSTableTests` fails when the two differ.
struct POSLexicon: Sendable {
    static let shared = POSLexicon()

    /// Slots of the open-addressed table: at least twice the words.
    static let capacity = Int(TK_POS_CAPACITY)
    private static let mask = capacity - 1

    private init() {}

    /// The table as built from `POSData` and `ClosedClass` (what `Sources/CPOSTable` holds): a word's
    /// hash in `keys` (0: free), its tags at the same slot of `values`, linear probing.
    static func table() -> (keys: [UInt64], values: [UInt32]) {
        var keys = [UInt64](repeating: 0, count: capacity)
        var values = [UInt32](repeating: 0, count: capacity)
        func insert(_ h: UInt64, _ tags: POSTags) {
            var i = Int(truncatingIfNeeded: h ^ (h >> 31)) & mask
            while keys[i] != 0 && keys[i] != h { i = (i + 1) & mask }
            keys[i] = h
            values[i] |= tags.rawValue
        }
        func add(_ words: String, _ tags: POSTags) {
            var h = WordHash.offset
            var any = false
            for b in words.utf8 {
                if b == 32 || b == 10 || b == 92 {
                    if any { insert(WordHash.finish(h), tags) }
                    h = WordHash.offset
                    any = false
                } else {
                    h = WordHash.add(h, b)
                    any = true
                }
            }
            if any { insert(WordHash.finish(h), tags) }
        }
        for (bits, words) in POSData.groups { add(words, POSTags(rawValue: UInt32(bits))) }
        add(ClosedClass.determiners, .determiner)
        add(ClosedClass.subjectPronouns, .subjectPronoun)
        add(ClosedClass.objectPronouns, .objectPronoun)
        add(ClosedClass.possessives, .possessive)
        add(ClosedClass.auxiliaries, .auxiliary)
        add(ClosedClass.modals, .modal)
        add(ClosedClass.prepositions, .preposition)
        add(ClosedClass.conjunctions, .conjunction)
        add(ClosedClass.degree, .degree)
        add(ClosedClass.sameInPast, .sameInPast)
        add(ClosedClass.indefinites, .indefinite)
        // A function word is read as its function: "Their in the kitchen" has no noun "in" (inch), "at it" no noun "at".
        for i in values.indices where POSTags(rawValue: values[i]).intersection(POSTags.notNouns).isEmpty == false {
            values[i] &= ~(POSTags.noun.rawValue | POSTags.mainNoun.rawValue | POSTags.plural.rawValue)
        }
        return (keys, values)
    }

    /// The tags stored for a word hash (no inflection undone); empty when unknown.
    func stored(_ h: UInt64) -> POSTags {
        let keys = tk_pos_keys(), values = tk_pos_values()
        var i = Int(truncatingIfNeeded: h ^ (h >> 31)) & Self.mask
        while true {
            let k = keys[i]
            if k == h { return POSTags(rawValue: values[i]) }
            if k == 0 { return [] }
            i = (i + 1) & Self.mask
        }
    }

    static func hash(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var h = WordHash.offset
        for b in bytes { h = WordHash.add(h, b) }
        return WordHash.finish(h)
    }

    /// The tags of a lower-case word: stored ones, plus those of the base form it inflects
    /// ("walked" → verb, past; "boxes" → noun, plural; "taller" → comparative).
    func tags(_ w: [UInt8]) -> POSTags {
        var t = stored(Self.hash(w[...]))
        let n = w.count
        guard n >= 4 else { return t }
        func base(_ drop: Int, _ add: [UInt8] = []) -> POSTags {
            guard n - drop >= 2 else { return [] }
            return stored(Self.hash(w[0..<(n - drop)] + add[...]))
        }
        func doubled(_ drop: Int) -> POSTags {
            // "stopped" → "stop": the consonant before the suffix doubled.
            guard n - drop >= 3, w[n - drop - 1] == w[n - drop - 2] else { return [] }
            return stored(Self.hash(w[0..<(n - drop - 1)]))
        }
        let last = w[n - 1], last2 = w[n - 2]
        if last == 115 /* s */ && last2 != 115 {
            var b = base(1)
            if b.isEmpty, last2 == 101 { b = base(2) }                       // boxes, goes
            if b.isEmpty, last2 == 101, w[n - 3] == 105 { b = base(3, [121]) }   // flies → fly
            if b.contains(.noun) { t.insert([.noun, .plural]) }
            if b.contains(.verb) { t.insert([.verb, .thirdPerson]) }
            t.formUnion(b.intersection([.mainNoun, .mainVerb]))
        } else if last == 100 && last2 == 101 {   // -ed
            var b = base(2)
            if !b.contains(.verb) { b.formUnion(base(1)) }                  // liked → like
            if !b.contains(.verb) { b.formUnion(doubled(2)) }
            if !b.contains(.verb), w[n - 3] == 105 { b.formUnion(base(3, [121])) }   // carried → carry
            if b.contains(.verb) { t.insert([.verb, .past]) }
            t.formUnion(b.intersection([.mainNoun, .mainVerb]))
        } else if n >= 5 && last == 103 && last2 == 110 && w[n - 3] == 105 {   // -ing
            var b = base(3)
            if !b.contains(.verb) { b.formUnion(base(3, [101])) }           // making → make
            if !b.contains(.verb) { b.formUnion(doubled(3)) }
            if b.contains(.verb) { t.insert([.verb, .gerund]) }
            t.formUnion(b.intersection([.mainNoun, .mainVerb]))
        } else if last == 114 && last2 == 101 {   // -er: comparative of a short adjective
            var b = base(2)
            if !b.contains(.adjective) { b = base(1) }                       // nicer → nice
            if !b.contains(.adjective) { b = doubled(2) }                    // bigger → big
            if !b.contains(.adjective), w[n - 3] == 105 { b = base(3, [121]) }   // happier → happy
            if b.contains(.adjective) { t.insert(.comparative) }
        }
        return t
    }
}
