/// The grammar rules (category `grammar`): each looks at a trigger word and a few neighbours, whose parts
/// of speech come from `POSLexicon`. A rule fires only when the neighbours leave one reading; an unknown
/// neighbour means no finding. Every finding carries its correction as the first replacement.
extension Run {
    /// Trigger words: only tokens whose hash is here cost more than one probe.
    enum Trigger: UInt8 {
        case a, an, its, itsC, your, youre, there, their, theyre, then, than, to, too, were, whereW
        case affect, affects, effect, effects, loose, lose, of, i, iContraction
        case he, she, it, they, we, you, isW, are, was, am, theres, theirs
    }

    static let triggers: [UInt64: Trigger] = {
        let words: [(String, Trigger)] = [
            ("a", .a), ("an", .an), ("its", .its), ("it's", .itsC), ("your", .your), ("you're", .youre),
            ("there", .there), ("their", .their), ("they're", .theyre), ("then", .then), ("than", .than),
            ("to", .to), ("too", .too), ("were", .were), ("where", .whereW), ("affect", .affect), ("affects", .affects),
            ("effect", .effect), ("effects", .effects), ("loose", .loose), ("lose", .lose), ("of", .of), ("i", .i),
            ("i'm", .iContraction), ("i've", .iContraction), ("i'll", .iContraction), ("i'd", .iContraction),
            ("he", .he), ("she", .she), ("it", .it), ("they", .they), ("we", .we), ("you", .you),
            ("is", .isW), ("are", .are), ("was", .was), ("am", .am), ("there's", .theres), ("their's", .theirs),
        ]
        var d: [UInt64: Trigger] = [:]
        for (w, t) in words { d[WordHash.of(Substring(w))] = t }
        return d
    }()

    static func hashes(_ s: String) -> Set<UInt64> {
        Set(s.split(separator: " ").map { WordHash.of($0) })
    }

    static let modalsOf = hashes("could would should might must may couldn't wouldn't shouldn't mustn't i'd you'd he'd she'd we'd they'd")
    static let comparatives = hashes("more less fewer better worse rather other else greater smaller larger higher lower further farther")
    static let thenOK = hashes("back and since until till just now even but only by from")
    static let causativeVerbs = hashes("make makes made let lets help helps helped see saw watch watched have has had hear heard")
    static let takeEffect = hashes("take takes took taken taking come comes came into in")
    static let affectAfter = hashes("will would can could may might must should to not does did do don't doesn't didn't")
    static let looseAfter = hashes("come comes came coming broke break breaks cut cuts let lets hang set")
    static let loseAfter = hashes("to will would can could may might must should not don't didn't never")
    static let whereStarts = hashes("is are do does did can could will would should was")
    static let itsAfter = hashes("a an the not been being going got gonna my your his her our their this that these those what")
    static let beingWords = hashes("being")
    static let muchMany = hashes("much many")
    static let youreAfter = hashes("welcome right wrong not going being so very too really always never just")
    static let pluralNumbers = hashes("two three four five six seven eight nine ten several many few both")
    static let notMiddle = hashes("not also always never just only still really")
    static let vowelSoundLetters: Set<UInt8> = Set("aefhilmnorsx".utf8)
    // Prefixes of words spelt with a vowel but said with a consonant ("a unicorn", "a one-off", "a eulogy").
    static let consonantSound = ["uni", "unan", "use", "usu", "uti", "uto", "ure", "uri", "uro", "ura", "uku", "ubiq",
                                 "uvu", "eu", "ewe", "one", "once", "ouija", "unary", "ufo", "usa", "usb", "ukr", "uga"]
    static let consonantSoundExceptions = ["unin", "unim", "unid", "unil", "unis"]
    // Prefixes of words spelt with a consonant but said with a vowel ("an hour", "an honest").
    static let vowelSound = ["hour", "honest", "honor", "honour", "heir"]

    @inline(__always) func lower(_ p: UnsafeBufferPointer<UInt8>, _ t: Token) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(t.end - t.start)
        var i = t.start
        while i < t.end {
            let c = p[i]
            if c == 0xE2, i + 2 < t.end, p[i + 1] == 0x80, p[i + 2] == 0x99 { out.append(39); i += 3; continue }
            out.append(c >= 65 && c <= 90 ? c + 32 : c)
            i += 1
        }
        return out
    }

    func tags(_ p: UnsafeBufferPointer<UInt8>, _ t: Token) -> POSTags {
        if t.flags.contains(.opaque) || t.flags.contains(.numeric) { return [] }
        return POSLexicon.shared.tags(lower(p, t))
    }

    /// Keeps the case of the word replaced: "Its" → "It's", "THEN" → "THAN".
    func cased(_ replacement: String, like t: Token, _ p: UnsafeBufferPointer<UInt8>) -> String {
        guard t.flags.contains(.capitalized) else { return replacement }
        if t.end - t.start > 1, p[t.start + 1] >= 65, p[t.start + 1] <= 90 { return replacement.uppercased() }
        return replacement.prefix(1).uppercased() + replacement.dropFirst()
    }

    mutating func grammarFinding(_ p: UnsafeBufferPointer<UInt8>, _ t: Token, _ rule: String, _ replacement: String,
                                 _ message: String, index k: Int) {
        let r = cased(replacement, like: t, p)
        add(t.start, t.end, rule, .grammar, .warning, message, [r], tokens: k..<(k + 1))
    }

    /// Grammar rules over one block.
    mutating func grammar(_ p: UnsafeBufferPointer<UInt8>, block: ProseBlock, tokens: [Token], sentences: [Sentence]) {
        let n = tokens.count
        /// The token after k when nothing but spaces stands between.
        func next(_ k: Int) -> Token? {
            guard k + 1 < n else { return nil }
            let u = tokens[k + 1]
            if u.flags.contains(.breakBefore) || u.flags.contains(.opaque) || u.flags.contains(.sentenceStart)
                || u.flags.contains(.hyphenBefore) { return nil }
            return u
        }
        func prev(_ k: Int) -> Token? {
            guard k > 0 else { return nil }
            let t = tokens[k]
            if t.flags.contains(.breakBefore) || t.flags.contains(.sentenceStart) || t.flags.contains(.hyphenBefore) { return nil }
            let u = tokens[k - 1]
            return u.flags.contains(.opaque) ? nil : u
        }
        /// Whether the clause ends after token k (punctuation, the end of the sentence or block).
        func endsAfter(_ k: Int) -> Bool {
            guard k + 1 < n else { return true }
            let u = tokens[k + 1]
            return u.flags.contains(.breakBefore) || u.flags.contains(.sentenceStart)
        }
        for k in 0..<n {
            let tok = tokens[k]
            if tok.flags.contains(.opaque) || (k < foreign.count && foreign[k]) { continue }
            if !block.isHeading { capitalization(p, k, tokens: tokens, block: block, sentenceCount: sentences.count) }
            guard let trig = Self.triggers[tok.hash] else { continue }
            switch trig {
            case .a, .an:
                aAn(p, k, trig == .an, next(k), prev: prev(k))
            case .its:
                guard let u = next(k) else { continue }
                let tu = tags(p, u)
                var wrong = Self.itsAfter.contains(u.hash) && !(prev(k).map { tags(p, $0).contains(.preposition) } ?? false)
                if !wrong, tu.onlyAdjective, endsAfter(k + 1) || Self.hashes("to that for if when because unless enough").contains(tokens[k + 1 < n - 1 ? k + 2 : k + 1].hash) {
                    wrong = true
                }
                // "Its to late": never "to" after a possessive (but "its to-do list").
                if !wrong, u.hash == Self.toHash, next(k + 1) != nil { wrong = true }
                // "Its true." "Its over.": a sentence of two words whose second is no noun.
                if !wrong, tok.flags.contains(.sentenceStart), endsAfter(k + 1), !tu.contains(.mainNoun), !tu.isEmpty, u.hash != Self.ownHash,
                   tu.contains(.adjective) || tu.contains(.preposition) || tu.contains(.adverb) { wrong = true }
                // "Its had", "its anyone": a possessive needs a noun, never an auxiliary or an indefinite pronoun.
                if !wrong, tu.contains(.indefinite) || tu.contains(.auxiliary) && !tu.contains(.gerund) { wrong = true }
                // "Its called recursion": a participle that is neither noun nor adjective opening the sentence.
                if !wrong, tok.flags.contains(.sentenceStart), tu.contains(.past), tu.intersection([.noun, .adjective]).isEmpty,
                   tu.intersection(POSTags.closed).isEmpty { wrong = true }
                // "I think its Google": after a verb of thinking, a name standing alone.
                if !wrong, let v = prev(k), Self.thinkVerbs.contains(v.hash), u.flags.contains(.capitalized), !u.flags.contains(.sentenceStart),
                   endsAfter(k + 1) || next(k + 1).map({ !Self.nounHead(tags(p, $0)) && !$0.flags.contains(.capitalized) }) == true {
                    wrong = true
                }
                if !wrong, tu.contains(.degree), let v = next(k + 1), tags(p, v).onlyAdjective { wrong = true }
                // "its probably", "its really": an adverb where the possessive needs its noun.
                if !wrong, tu.contains(.mainAdverb), !tu.contains(.noun), !tu.contains(.adjective),
                   !(gerundPhraseSlot(p, prev(k)) && next(k + 1).map({ tags(p, $0).contains(.gerund) }) == true) { wrong = true }
                if wrong { grammarFinding(p, tok, "its_contraction", "it's", Messages.itsContraction, index: k) }
            case .itsC:
                guard let u = next(k) else { continue }
                if u.hash == Self.ownHash {
                    grammarFinding(p, tok, "its_possessive", "its", Messages.itsPossessive, index: k)
                } else if let v = prev(k), tags(p, v).contains(.preposition), !Self.clausePrepositions.contains(v.hash),
                          u.flags.contains(.numeric) || Self.isOrdinal(p, u) || Self.nounHead(tags(p, u))
                            || tags(p, u).contains(.adjective) && next(k + 1).map({ Self.nounHead(tags(p, $0)) }) == true {
                    // "updated to it's 5th version", "at it's core".
                    grammarFinding(p, tok, "its_possessive", "its", Messages.itsPossessive, index: k)
                } else if let v = prev(k), v.hash == Self.likeHash, Self.isOrdinal(p, u) || u.flags.contains(.numeric) == false
                            && tags(p, u).onlyAdjective && next(k + 1).map({ tags(p, $0).contains(.plural) && Self.nounHead(tags(p, $0)) }) == true {
                    // "I like it's various colours".
                    grammarFinding(p, tok, "its_possessive", "its", Messages.itsPossessive, index: k)
                } else if let v = prev(k), tags(p, v).contains(.verb), tags(p, v).intersection([.auxiliary, .modal, .conjunction, .preposition]).isEmpty,
                          !Self.thinkVerbs.contains(v.hash), !tags(p, u).contains(.gerund), !tags(p, u).contains(.adverb), !tags(p, u).contains(.determiner),
                          !tags(p, u).contains(.past), u.hash != WordHash.of("not"),
                          tags(p, u).contains(.mainNoun) || tags(p, u).contains(.adjective) && next(k + 1).map({ tags(p, $0).contains(.noun) }) == true || u.flags.contains(.numeric) || Self.isOrdinal(p, u) {
                    grammarFinding(p, tok, "its_possessive", "its", Messages.itsPossessive, index: k)
                } else if tags(p, u).onlyNoun || Self.nounHead(tags(p, u)), let v = next(k + 1) {
                    let tv = tags(p, v)
                    // A noun before an auxiliary is a subject ("it's colour is red"); before another verb only a plain noun.
                    let plainNoun = tags(p, u).onlyNoun || tags(p, u).contains(.plural)
                    if tv.contains(.auxiliary) || tv.contains(.modal) || plainNoun && (tv.contains(.thirdPerson) && !tv.contains(.plural)
                        || (tv.contains(.past) && !tv.contains(.noun))) {
                        grammarFinding(p, tok, "its_possessive", "its", Messages.itsPossessive, index: k)
                    }
                }
            case .your:
                guard let u = next(k) else { continue }
                let tu = tags(p, u)
                if tu.contains(.gerund), gerundPhraseSlot(p, prev(k)) { continue }   // "prevent your going"
                // "for your long, kind letter", "in your last": after a preposition only the possessive can stand.
                if let v = prev(k), tags(p, v).contains(.preposition), !Self.clausePrepositions.contains(v.hash) { continue }
                var wrong = Self.youreAfter.contains(u.hash) && u.hash != WordHash.of("right") || tu.contains(.determiner) && !tu.contains(.possessive)
                if !wrong, u.hash == WordHash.of("right") || u.hash == WordHash.of("wrong") || u.hash == WordHash.of("well"),
                   endsAfter(k + 1) { wrong = true }
                if !wrong, tu.contains(.gerund), !tu.contains(.noun), let v = next(k + 1) {
                    let tv = tags(p, v)
                    wrong = v.hash == Self.toHash || tv.contains(.determiner) || tv.contains(.objectPronoun) || tv.contains(.possessive)
                        || tv.contains(.preposition)
                }
                // "your completely out of ideas", "your totally committed": an adverb, then what you are.
                if !wrong, adverbThenPredicate(p, k) { wrong = true }
                // "Your smarter than that": a comparison.
                if !wrong, tu.contains(.comparative), !tu.contains(.noun), next(k + 1).map({ $0.hash == WordHash.of("than") }) == true { wrong = true }
                // "Your cool." alone: a predicate, not a thing owned.
                if !wrong, tok.flags.contains(.sentenceStart), endsAfter(k + 1), tu.contains(.adjective), !tu.contains(.mainNoun),
                   tu.intersection(POSTags.closed).isEmpty, !tu.contains(.comparative) { wrong = true }
                if !wrong, tu.onlyAdjective || tu.contains(.mainAdjective) && !tu.contains(.mainNoun),
                   endsAfter(k + 1) || next(k + 1).map({ Self.hashes("here there now today to").contains($0.hash) || tags(p, $0).contains(.preposition) }) == true {
                    wrong = true
                }
                if !wrong, tu.contains(.past), !tu.contains(.noun), !tu.contains(.adjective), endsAfter(k + 1) || next(k + 1).map({ tags(p, $0).contains(.preposition) }) == true {
                    wrong = true
                }
                if wrong { grammarFinding(p, tok, "your_youre", "you're", Messages.youre, index: k) }
            case .youre:
                guard let u = next(k) else { continue }
                // After a verb of doing, a preposition or a determiner, before a noun: "thanks for you're help", "lose you're keys".
                let objectSlot = prev(k).map { v in
                    let tv = tags(p, v)
                    return !Self.thinkVerbs.contains(v.hash) && !Self.clausePrepositions.contains(v.hash) && v.hash != WordHash.of("for")
                        && (tv.contains(.preposition) || tv.contains(.verb) && tv.intersection(POSTags.closed).isEmpty)
                } ?? false
                let forHelp = prev(k).map { $0.hash == WordHash.of("for") } == true && Self.nounHead(tags(p, u)) && !tags(p, u).contains(.plural)
                    && next(k + 1).map({ tags(p, $0).intersection([.auxiliary, .modal]).isEmpty && !tags(p, $0).contains(.gerund) }) ?? true
                if u.hash == Self.ownHash || (tags(p, u).onlyNoun && next(k + 1).map { tags(p, $0).intersection([.auxiliary, .modal]).isEmpty == false } == true)
                    || objectSlot && Self.nounHead(tags(p, u)) && !tags(p, u).contains(.adjective) || forHelp {
                    grammarFinding(p, tok, "your_youre", "your", Messages.your, index: k)
                }
            case .their:
                guard let u = next(k) else {
                    // "over their." — a place, not an owner.
                    if k > 0, endsAfter(k), !tok.flags.contains(.sentenceStart) {
                        grammarFinding(p, tok, "there_their", "there", Messages.there, index: k)
                    }
                    continue
                }
                let tu = tags(p, u)
                if let v = prev(k), v.flags.contains(.sentenceStart), Self.hashes("is are was were").contains(v.hash),
                   tu.contains(.determiner) || tu.contains(.indefinite) || Self.pluralNumbers.contains(u.hash) {
                    // "Is their a problem?": the opener of a question.
                    grammarFinding(p, tok, "there_their", "there", Messages.there, index: k)
                    continue
                }
                if let v = prev(k), Self.thinkVerbs.contains(v.hash),
                   tu.contains(.gerund) && next(k + 1).map({ !Self.nounHead(tags(p, $0)) }) ?? true
                    || (tu.onlyAdjective || tu.contains(.mainAdjective) && !tu.contains(.mainNoun)) && endsAfter(k + 1) {
                    // "I know their coming", "I think their right.".
                    grammarFinding(p, tok, "there_their", "they're", Messages.theyre, index: k)
                    continue
                }
                if let v = prev(k), Self.hashes("if whether because when while since").contains(v.hash), tu.contains(.gerund),
                   next(k + 1).map({ !Self.nounHead(tags(p, $0)) }) ?? true, !auxiliaryAhead(p, from: k + 2, within: 6) {
                    // "Do you know if their coming?"
                    grammarFinding(p, tok, "there_their", "they're", Messages.theyre, index: k)
                    continue
                }
                if tok.flags.contains(.sentenceStart), tu.contains(.gerund), let w = next(k + 1), tags(p, w).contains(.preposition) || tags(p, w).contains(.adverb) && !tags(p, w).contains(.noun),
                   !auxiliaryAhead(p, from: k + 2, within: 6) {
                    // "Their coming over tonight".
                    grammarFinding(p, tok, "there_their", "they're", Messages.theyre, index: k)
                    continue
                }
                if let v = prev(k), Self.placeParticles.contains(v.hash), tu.contains(.preposition), !tok.flags.contains(.sentenceStart) {
                    // "over their by the window": a place.
                    grammarFinding(p, tok, "there_their", "there", Messages.there, index: k)
                } else if Self.hashes("is are was were isn't aren't wasn't weren't").contains(u.hash)
                    || (tu.contains(.modal) || (tu.contains(.auxiliary) && !tu.contains(.gerund))) && u.hash != WordHash.of("being") {
                    grammarFinding(p, tok, "there_their", "there", Messages.there, index: k)
                } else if u.hash == Self.ownHash {
                    continue
                } else if prev(k).map({ tags(p, $0).contains(.preposition) && !Self.clausePrepositions.contains($0.hash) }) == true {
                    continue   // "at their close": after a preposition only the possessive can stand.
                } else if next(k + 1).map({ tags(p, $0).intersection([.auxiliary, .modal]).isEmpty == false }) == true && tu.contains(.gerund) {
                    continue   // "their going was deferred": the -ing form is the subject.
                } else if tu.contains(.determiner) || Self.hashes("going gonna not so very too here").contains(u.hash)
                            || u.hash == Self.toHash && next(k + 1) != nil
                            || tu.contains(.gerund) && !gerundPhraseSlot(p, prev(k))
                                && (!tu.contains(.noun) || next(k + 1).map({ tags(p, $0).intersection([.determiner, .possessive, .objectPronoun]).isEmpty == false }) == true)
                                && next(k + 1).map({ tags(p, $0).intersection([.auxiliary, .modal]).isEmpty }) ?? true
                            || (tu.onlyAdjective || tu.contains(.mainAdjective) && !tu.contains(.mainNoun))
                                && (endsAfter(k + 1) || next(k + 1).map({ $0.hash == Self.toHash }) == true)
                            || adverbThenPredicate(p, k) {
                    grammarFinding(p, tok, "there_their", "they're", Messages.theyre, index: k)
                } else if let v = prev(k), tags(p, v).contains(.verb), tags(p, v).intersection(POSTags.closed).isEmpty,
                          tu.contains(.preposition) && next(k + 1).map({ !tu.contains(.adjective) || !Self.nounHead(tags(p, $0)) }) == true
                            || Self.hashes("and or").contains(u.hash) && next(k + 1).map({ tags(p, $0).contains(.verb) && !tags(p, $0).contains(.noun) }) == true {
                    // "meet their at noon", "stop their and refuel": a place after a verb.
                    grammarFinding(p, tok, "there_their", "there", Messages.there, index: k)
                } else if !tu.contains(.noun), !tu.contains(.determiner),
                          !(next(k + 1).map { tags(p, $0).contains(.noun) || (tu.contains(.adverb) && tags(p, $0).contains(.adjective)) } ?? false),
                          tu.contains(.preposition) || tu.contains(.adverb) || tu.contains(.past) || tu.contains(.gerund) {
                    // "Their in the kitchen" (they are) / "meet their after work" (a place).
                    let afterVerb = prev(k).map { tags(p, $0).contains(.verb) && !tags(p, $0).contains(.auxiliary) } ?? false
                    if afterVerb && tu.contains(.preposition) || afterVerb && Self.hashes("again already").contains(u.hash) && !tok.flags.contains(.sentenceStart) {
                        grammarFinding(p, tok, "there_their", "there", Messages.there, index: k)
                    } else if !afterVerb || tok.flags.contains(.sentenceStart) {
                        grammarFinding(p, tok, "there_their", "they're", Messages.theyre, index: k)
                    }
                }
            case .there:
                guard let u = next(k) else { continue }
                let tu = tags(p, u)
                if u.hash == Self.ownHash {
                    grammarFinding(p, tok, "there_their", "their", Messages.their, index: k); continue
                }
                if let v = prev(k), Self.hashes("is are was were").contains(v.hash), k >= 1,
                   v.flags.contains(.sentenceStart) || prev(k - 1).map({ tags(p, $0).contains(.conjunction) }) ?? true {
                    thereAgreement(p, k - 1, verb: v, u, plural: false)
                }
                // "It is there fault.": a subject, a be-verb, then a noun closing the clause.
                if let v = prev(k), Self.hashes("is was").contains(v.hash), k >= 2, !v.flags.contains(.breakBefore), !v.flags.contains(.sentenceStart),
                   tags(p, tokens[k - 2]).contains(.subjectPronoun) || tags(p, tokens[k - 2]).contains(.determiner),
                   Self.nounHead(tu), tu.contains(.mainNoun) || tu.onlyNoun, !Self.timeNouns.contains(u.hash), endsAfter(k + 1) {
                    grammarFinding(p, tok, "there_their", "their", Messages.their, index: k)
                    continue
                }
                // "There are", "is that there", "was there money", "over there": a place, an opener, a question.
                if let v = prev(k), tags(p, v).intersection([.auxiliary, .modal]).isEmpty == false { continue }
                // Opening a sentence: "There planning a trip", "There still waiting", "There ready to go" (they're).
                let opensWithPredicate = tok.flags.contains(.sentenceStart) && (
                    tu.contains(.gerund) && u.hash != Self.beingHash
                        && next(k + 1).map({ tags(p, $0).intersection([.determiner, .possessive, .objectPronoun]).isEmpty == false }) == true
                    || adverbThenPredicate(p, k) && next(k + 1).map({ t in
                        let tw = tags(p, t)
                        return tw.contains(.gerund) || tw.contains(.adjective) && !tw.contains(.past) && !tw.contains(.verb)
                    }) == true
                        // Not an inversion: "There still standing is the old mill".
                        && next(k + 2).map({ tags(p, $0).intersection([.auxiliary, .modal]).isEmpty }) ?? true
                    || tu.contains(.mainAdjective) && tu.intersection([.mainNoun, .mainVerb, .past, .gerund]).isEmpty
                        && next(k + 1).map({ $0.hash == Self.toHash }) == true)
                if u.hash == WordHash.of("going") || (tu.contains(.gerund) && !tu.contains(.noun) && u.hash != Self.beingHash) || opensWithPredicate {
                    grammarFinding(p, tok, "there_their", "they're", Messages.theyre, index: k)
                    continue
                }
                let tv = next(k + 1).map { tags(p, $0) } ?? []
                let before = prev(k).map { tags(p, $0) }
                // Where a possessive may stand: after a verb or a preposition, or opening a clause.
                let afterVerbOrPrep = before.map { $0.contains(.preposition) || $0.contains(.verb) && $0.intersection(POSTags.closed).isEmpty
                    || $0.contains(.objectPronoun) && !$0.contains(.subjectPronoun) } ?? false
                let opensClause = before == nil || before!.contains(.conjunction) || tok.flags.contains(.sentenceStart)
                // "sold there old house": an adjective and its noun after a verb.
                if afterVerbOrPrep, before.map({ $0.contains(.verb) }) == true, tu.contains(.mainAdjective), !tu.contains(.mainAdverb),
                   tu.intersection(POSTags.closed).isEmpty, !Self.quantifiers.contains(u.hash), let w = next(k + 1), Self.nounHead(tags(p, w)),
                   !Self.timeNouns.contains(w.hash) {
                    grammarFinding(p, tok, "there_their", "their", Messages.their, index: k)
                    continue
                }
                if Self.nounHead(tu), !Self.timeNouns.contains(u.hash), !Self.quantifiers.contains(u.hash), afterVerbOrPrep || opensClause {
                    // "There dog is barking", "and there needs were met": a noun subject before its verb.
                    let verbFollows = tv.contains(.auxiliary) || tv.contains(.modal)
                        || (tv.contains(.past) || tv.contains(.thirdPerson)) && !tv.contains(.noun) && tv.intersection(POSTags.closed).isEmpty
                    // "forgot there backpacks", "stems from there potential": a noun object.
                    let objectSlot = afterVerbOrPrep && !tv.contains(.auxiliary) && !tv.contains(.modal)
                        && !(tv.contains(.verb) && !tv.contains(.noun) && !tv.contains(.adjective))
                        && !(tu.contains(.thirdPerson) && next(k + 1).map({ $0.hash == Self.toHash || tags(p, $0).contains(.determiner) }) == true)
                    // Before an auxiliary a bare verb can't stand ("There answer was"): any noun reading will do.
                    let auxFollows = tv.contains(.auxiliary) || tv.contains(.modal)
                    if verbFollows && !tu.contains(.mainVerb) || verbFollows && tu.contains(.mainNoun) || auxFollows && !tu.contains(.thirdPerson)
                        || objectSlot || tu.onlyNoun && opensClause && !endsAfter(k + 1) {
                        grammarFinding(p, tok, "there_their", "their", Messages.their, index: k)
                    }
                } else if tu.onlyAdjective, tv.contains(.noun), tv.intersection(POSTags.closed).isEmpty, afterVerbOrPrep || opensClause,
                          !Self.quantifiers.contains(u.hash), next(k + 1).map({ !Self.timeNouns.contains($0.hash) }) ?? true {
                    grammarFinding(p, tok, "there_their", "their", Messages.their, index: k)
                }
            case .theyre:
                // After a verb of doing (or its object): "I went they're", "Put it they're".
                let afterDoing = prev(k).map { v in
                    let tv = tags(p, v)
                    if tv.contains(.verb), tv.intersection(POSTags.closed).isEmpty, !Self.thinkVerbs.contains(v.hash) { return true }
                    return tv.contains(.objectPronoun) && k >= 2 && !tokens[k - 1].flags.contains(.breakBefore)
                        && tags(p, tokens[k - 2]).contains(.verb) && tags(p, tokens[k - 2]).intersection(POSTags.closed).isEmpty
                        && !Self.thinkVerbs.contains(tokens[k - 2].hash)
                } ?? false
                guard let u = next(k) else {
                    // "over they're." — a place.
                    if endsAfter(k), let v = prev(k), Self.placeParticles.contains(v.hash) || afterDoing {
                        grammarFinding(p, tok, "there_their", "there", Messages.there, index: k)
                    }
                    continue
                }
                let tu = tags(p, u)
                if Self.hashes("is are was were isn't aren't wasn't weren't").contains(u.hash)
                    || afterDoing && (Self.hashes("yesterday today tomorrow again already now").contains(u.hash)) {
                    // "They're is a cat", "I went they're yesterday".
                    grammarFinding(p, tok, "there_their", "there", Messages.there, index: k)
                    continue
                }
                if tu.contains(.mainAdjective), !tu.contains(.mainAdverb), tu.intersection(POSTags.closed).isEmpty,
                   let w = next(k + 1), Self.nounHead(tags(p, w)),
                   afterDoing && !tags(p, w).contains(.plural) || afterDoing && prev(k).map({ !tags(p, $0).contains(.objectPronoun) }) == true
                    || (prev(k) == nil || tok.flags.contains(.sentenceStart)) && next(k + 2).map({ tags(p, $0).intersection([.auxiliary, .modal]).isEmpty == false }) == true {
                    // "visited they're old school", "They're new car is red".
                    grammarFinding(p, tok, "there_their", "their", Messages.their, index: k)
                    continue
                }
                if let v = prev(k), Self.hashes("is was").contains(v.hash), k >= 2, !v.flags.contains(.breakBefore),
                   tags(p, tokens[k - 2]).contains(.noun) || tags(p, tokens[k - 2]).contains(.subjectPronoun) || tags(p, tokens[k - 2]).contains(.determiner),
                   Self.nounHead(tu), !tu.contains(.plural) {
                    // "That is they're problem".
                    grammarFinding(p, tok, "there_their", "their", Messages.their, index: k)
                    continue
                }
                let before = prev(k).map { tags(p, $0) }
                // After a verb of doing (not of saying or thinking), a preposition or an object pronoun a clause cannot start.
                let objectSlot = prev(k).map { v in
                    let tv = tags(p, v)
                    return !Self.thinkVerbs.contains(v.hash) && !Self.clausePrepositions.contains(v.hash)
                        && (tv.contains(.preposition) || tv.contains(.objectPronoun) && !tv.contains(.subjectPronoun)
                            || tv.contains(.verb) && tv.intersection(POSTags.closed).isEmpty)
                } ?? false
                if u.hash == Self.ownHash {
                    grammarFinding(p, tok, "there_their", "their", Messages.their, index: k)
                } else if let v = prev(k), tags(p, v).contains(.preposition), !Self.clausePrepositions.contains(v.hash),
                          !Self.placeParticles.contains(v.hash), v.hash != WordHash.of("for"),
                          tu.contains(.noun) || tu.contains(.adjective), !tu.contains(.gerund), !tu.contains(.adverb) || tu.contains(.noun) {
                    // "narratives about they're past": after a preposition only the possessive can stand.
                    grammarFinding(p, tok, "there_their", "their", Messages.their, index: k)
                } else if let v = prev(k), Self.placeParticles.contains(v.hash), tu.contains(.preposition) {
                    // "over they're by the window".
                    grammarFinding(p, tok, "there_their", "there", Messages.there, index: k)
                } else if Self.nounHead(tu), !tu.contains(.adjective) || tu.contains(.mainNoun) {
                    let tv = next(k + 1).map { tags(p, $0) } ?? []
                    // "They're dog sprinted": a noun subject; "lost they're mittens": a noun object.
                    let verbFollows = tv.contains(.auxiliary) || tv.contains(.modal)
                        || (tv.contains(.past) || tv.contains(.thirdPerson)) && !tv.contains(.noun) && tv.intersection(POSTags.closed).isEmpty
                    let singular = !tu.contains(.plural)
                    let opens = before == nil || before!.contains(.conjunction) || tok.flags.contains(.sentenceStart)
                    if verbFollows && (opens || objectSlot) || objectSlot && (singular || !tv.contains(.verb) || tv.contains(.noun)) {
                        grammarFinding(p, tok, "there_their", "their", Messages.their, index: k)
                    }
                }
            case .then:
                guard let v = prev(k), next(k) != nil || endsAfter(k) == false else { continue }
                let tv = tags(p, v)
                let isComparative = Self.comparatives.contains(v.hash) || tv.contains(.comparative)
                    || (k >= 2 && Self.hashes("more less rather").contains(tokens[k - 2].hash) && !tokens[k - 1].flags.contains(.breakBefore))
                    // "easier said then done", "better late then never": a comparative, then a word that is no noun.
                    || (k >= 2 && !tokens[k - 1].flags.contains(.breakBefore) && tags(p, tokens[k - 2]).contains(.comparative)
                        && !tv.contains(.noun) && tv.intersection(POSTags.closed).isEmpty
                        && (tv.contains(.past) || tv.contains(.adjective) || tv.contains(.adverb)))
                if isComparative, !Self.thenOK.contains(v.hash), next(k) != nil {
                    grammarFinding(p, tok, "then_than", "than", Messages.than, index: k)
                }
            case .than:
                // "If it rains, than we stay": after a comma, before a subject, with no comparison before the comma.
                if k >= 1, tok.flags.contains(.breakBefore), !tok.flags.contains(.sentenceStart), k + 1 < n,
                   next(k).map({ tags(p, $0).contains(.subjectPronoun) }) == true,
                   p[tokens[k - 1].end] == 44,
                   !(tags(p, tokens[k - 1]).contains(.comparative) || Self.comparatives.contains(tokens[k - 1].hash)),
                   !(k >= 2 && (tags(p, tokens[k - 2]).contains(.comparative) || Self.comparatives.contains(tokens[k - 2].hash))),
                   conditionOpens(p, before: k) {
                    grammarFinding(p, tok, "then_than", "then", Messages.then, index: k)
                    continue
                }
                if tok.flags.contains(.sentenceStart) || prev(k).map({ Self.thenOK.contains($0.hash) && $0.hash != WordHash.of("but") }) == true {
                    if let v = prev(k), Self.comparatives.contains(v.hash) { continue }
                    // "until than,": a time word closing the clause.
                    if endsAfter(k), let v = prev(k), Self.hashes("until till since by from back").contains(v.hash) {
                        grammarFinding(p, tok, "then_than", "then", Messages.then, index: k)
                        continue
                    }
                    if next(k).map({ tags(p, $0).contains(.subjectPronoun) || tags(p, $0).contains(.determiner) || tags(p, $0).contains(.verb) }) == true {
                        grammarFinding(p, tok, "then_than", "then", Messages.then, index: k)
                    }
                }
            case .to:
                if let u = next(k) {
                    let tu = tags(p, u)
                    let tv = prev(k).map { tags(p, $0) }
                    let afterBeOrDegree = tv.map { $0.contains(.auxiliary) || $0.contains(.degree) } ?? false
                    // "to many" after a verb of giving or speaking is right ("spoke to many people").
                    let manyAfterVerb = u.hash == WordHash.of("many") && tv.map({ $0.contains(.verb) && $0.intersection(POSTags.closed).isEmpty }) == true
                    if Self.muchMany.contains(u.hash), !manyAfterVerb, endsAfter(k + 1) || next(k + 1).map({ tags(p, $0).contains(.noun) && !tags(p, $0).contains(.verb)
                        || afterBeOrDegree && (Self.nounHead(tags(p, $0)) || Self.pluralWithoutS.contains($0.hash)) }) == true,
                       !(tv.map { $0.contains(.adjective) && !$0.contains(.verb) && $0.intersection(POSTags.closed).isEmpty } ?? false) {
                        // Not "equal to much", "open to much debate": adjectives that take "to".
                        grammarFinding(p, tok, "to_too", "too", Messages.too, index: k)
                    } else if endsAfter(k + 1) || next(k + 1).map({ $0.hash == Self.toHash || $0.hash == WordHash.of("for") }) == true, !tu.contains(.comparative) {
                        // "to loud!", "was to cold": an adjective closing the clause. After a be-verb an adjective that is
                        // mostly one will do; after another verb only a word that can't be a noun or a verb, and not in
                        // "from … to …".
                        let afterBe = tv.map { $0.contains(.auxiliary) } ?? false || prev(k).map({ Self.beContractions.contains($0.hash) }) == true
                        let stored = POSLexicon.shared.stored(u.hash)
                        let adjective = tu.onlyAdjective || afterBe && tu.contains(.mainAdjective) && !tu.contains(.mainNoun) && !tu.contains(.mainVerb)
                            && tu.intersection(POSTags.closed).isEmpty
                            // "was to tired": stored as an adjective only, whatever the verb it comes from.
                            || afterBe && stored.contains(.adjective) && stored.intersection([.noun, .verb]).isEmpty && stored.intersection(POSTags.closed).isEmpty
                            // "are to kind": an adjective that is also a rare noun, never a verb.
                            || afterBe && tu.contains(.adjective) && !tu.contains(.mainNoun) && !tu.contains(.verb) && tu.intersection(POSTags.closed).isEmpty
                        var fromBefore = false
                        var j = k - 1
                        while j >= 0, j >= k - 6 {
                            if tokens[j].hash == Self.fromHash || tokens[j].hash == Self.betweenHash { fromBefore = true }
                            if tokens[j].flags.contains(.sentenceStart) { break }
                            j -= 1
                        }
                        // "to soon", "happened to quickly": an adverb that is no noun or verb, closing the clause.
                        let adverb = afterBe && endsAfter(k + 1) && tu.contains(.adverb) && tu.intersection([.noun, .verb]).isEmpty
                            && !Self.notMiddle.contains(u.hash) && !Self.hashes("simply even merely").contains(u.hash)
                            && tu.intersection(POSTags.closed).isEmpty && !Self.hashes("now then ever forever here there").contains(u.hash)
                            && prev(k).map({ !Self.hashes("up down back from").contains($0.hash) }) ?? true
                        if adjective || adverb, !fromBefore, !Self.pluralNumbers.contains(u.hash), u.hash != WordHash.of("all"), tv.map({ !$0.contains(.verb) || $0.contains(.auxiliary) || tu.onlyAdjective }) ?? true {
                            grammarFinding(p, tok, "to_too", "too", Messages.too, index: k)
                        }
                    }
                } else if endsAfter(k), let v = prev(k), tags(p, v).contains(.objectPronoun) || tags(p, v).contains(.subjectPronoun),
                          !(k >= 2 && tags(p, tokens[k - 2]).contains(.verb)) {
                    grammarFinding(p, tok, "to_too", "too", Messages.too, index: k)
                }
            case .too:
                if let u = next(k), u.hash == WordHash.of("be") {
                    // "Too be honest": never "too" before "be".
                    grammarFinding(p, tok, "to_too", "to", Messages.to, index: k)
                } else if let u = next(k), let v = prev(k) {
                    let tu = tags(p, u)
                    if tu.contains(.verb), !tu.contains(.adverb), !tu.contains(.past), !tu.contains(.gerund), !tu.contains(.adjective) || tu.contains(.mainVerb),
                       !tu.contains(.thirdPerson), Self.hashes("want wants wanted need needs needed going have has had try tried able used").contains(v.hash) {
                        grammarFinding(p, tok, "to_too", "to", Messages.to, index: k)
                    } else if tu.contains(.determiner) && !tu.contains(.adverb) || tu.contains(.possessive),
                              tags(p, v).contains(.verb), tags(p, v).intersection(POSTags.closed).isEmpty {
                        // "going too a concert": a noun phrase after a verb of motion or giving.
                        grammarFinding(p, tok, "to_too", "to", Messages.to, index: k)
                    } else if u.hash == Self.loseHash {
                        add(tok.start, u.end, "lose_loose", .grammar, .warning, Messages.tooLoose, [cased("too loose", like: tok, p)], tokens: k..<(k + 2))
                    }
                }
            case .were:
                if let v = prev(k), v.hash == Self.thereHash, let u = next(k) {
                    // "there were child": not the subjunctive "if there were time".
                    if !(k >= 2 && tokens[k - 2].hash == WordHash.of("if")) { thereAgreement(p, k, verb: tok, u, plural: true) }
                    continue
                }
                // A plural noun before "were" is its subject ("The results were the same"), not a verb asking where.
                if let v = prev(k), tags(p, v).contains(.plural) && tags(p, v).contains(.noun) || Self.pluralWithoutS.contains(v.hash)
                    || tags(p, v).contains(.noun) && k >= 2 && !v.flags.contains(.breakBefore)
                        && Self.modifiesNoun(tags(p, tokens[k - 2])) { continue }
                if let u = next(k), let v = prev(k), tags(p, u).contains(.subjectPronoun) || tags(p, u).contains(.determiner),
                   tags(p, v).contains(.verb) && tags(p, v).intersection([.auxiliary, .modal]).isEmpty || tags(p, v).contains(.objectPronoun) && !tags(p, v).contains(.subjectPronoun) {
                    grammarFinding(p, tok, "were_where", "where", Messages.whereW, index: k)
                } else if let u = next(k), Self.whereStarts.contains(u.hash) || tags(p, u).contains(.subjectPronoun) && next(k + 1).map({ tags(p, $0).contains(.verb) && !tags(p, $0).contains(.past) && !tags(p, $0).contains(.gerund) && !tags(p, $0).contains(.noun) }) == true {
                    if Self.whereStarts.contains(u.hash) && !(tok.flags.contains(.sentenceStart) || prev(k).map { tags(p, $0).contains(.verb) } == true) { continue }
                    grammarFinding(p, tok, "were_where", "where", Messages.whereW, index: k)
                }
            case .whereW:
                if tok.flags.contains(.sentenceStart), let u = next(k), tags(p, u).contains(.subjectPronoun), let w = next(k + 1), tags(p, w).contains(.gerund) {
                    grammarFinding(p, tok, "were_where", "were", Messages.were, index: k)
                    continue
                }
                guard let v = prev(k), let u = next(k) else { continue }
                // "tell you where to go", "show you where the key is": "you" is the object of a verb, not a subject.
                let youObject = v.hash == WordHash.of("you") && k >= 2 && !v.flags.contains(.breakBefore)
                    && tags(p, tokens[k - 2]).contains(.verb) && tags(p, tokens[k - 2]).intersection([.auxiliary, .modal]).isEmpty
                if youObject { continue }
                if Self.hashes("we they you").contains(v.hash), !tags(p, u).contains(.subjectPronoun) {
                    grammarFinding(p, tok, "were_where", "were", Messages.were, index: k)
                    continue
                }
                let tv = tags(p, v), tu = tags(p, u)
                let subject = Self.hashes("we they you").contains(v.hash) || (tv.contains(.plural) && !tv.contains(.verb) && !tv.contains(.preposition))
                if subject, tu.contains(.gerund) || Self.notMiddle.contains(u.hash) || (tu.contains(.past) && !tu.contains(.noun)) || tu.onlyAdjective {
                    grammarFinding(p, tok, "were_where", "were", Messages.were, index: k)
                }
            case .affect, .affects:
                guard let v = prev(k) else { continue }
                let tv = tags(p, v)
                let nounSlot = (tv.contains(.determiner) && v.hash != WordHash.of("that") && v.hash != WordHash.of("which")) || tv.contains(.possessive)
                    || tv.contains(.mainAdjective) || Self.takeEffect.contains(v.hash)
                    || (tv.contains(.mainNoun) && tv.intersection(POSTags.closed).isEmpty && !tv.contains(.plural)
                        && (endsAfter(k) || next(k).map({ tags(p, $0).contains(.auxiliary) || tags(p, $0).contains(.modal) || tags(p, $0).contains(.past)
                            || trig == .affect && tags(p, $0).contains(.thirdPerson) && !tags(p, $0).contains(.noun) }) == true))
                    || (v.hash == WordHash.of("and") && k >= 2 && tokens[k - 2].hash == WordHash.of("cause"))
                if nounSlot {
                    grammarFinding(p, tok, "affect_effect", trig == .affect ? "effect" : "effects", Messages.effect, index: k)
                }
            case .effect, .effects:
                guard var v = prev(k) else { continue }
                // "to effect change", "effect a transformation": the verb "effect" (bring about).
                if trig == .effect, next(k).map({ Self.hashes("change changes a an real lasting reform reforms").contains($0.hash) }) == true { continue }
                var tv = tags(p, v)
                // Past an adverb: "shouldn't effect", "won't immediately effect", "droughts severely effect".
                let adverbBetween = tv.contains(.adverb) && tv.intersection([.noun, .adjective, .verb]).isEmpty && tv.intersection(POSTags.closed).isEmpty
                if adverbBetween, let w = prev(k - 1) { v = w; tv = tags(p, w) }
                let objectAfter = next(k).map { tags(p, $0).intersection([.determiner, .objectPronoun, .possessive]).isEmpty == false || Self.nounHead(tags(p, $0)) } ?? false
                let pluralSubject = tv.contains(.plural) && Self.nounHead(tv) && objectAfter
                // "Does it effect the price?": after an auxiliary, "it" or "this" is the subject.
                let questionSubject = Self.hashes("it this that").contains(v.hash) && objectAfter
                    && prev(tokens.firstIndex(where: { $0.start == v.start }) ?? 0).map({ tags(p, $0).contains(.auxiliary) || tags(p, $0).contains(.modal) }) == true
                let verbSlot = trig == .effect ? (Self.affectAfter.contains(v.hash) || tv.contains(.modal) || tv.contains(.subjectPronoun) && !tv.contains(.objectPronoun)
                                                  || pluralSubject || questionSubject)
                    : (Self.hashes("it this that which what he she").contains(v.hash) && next(k).map { tags(p, $0).intersection([.determiner, .objectPronoun, .possessive]).isEmpty == false || tags(p, $0).onlyNoun } == true)
                if verbSlot, v.hash != WordHash.of("the") {
                    grammarFinding(p, tok, "affect_effect", trig == .effect ? "affect" : "affects", Messages.affect, index: k)
                }
            case .loose:
                if let v = prev(k), Self.loseAfter.contains(v.hash) || (tags(p, v).contains(.modal)) {
                    grammarFinding(p, tok, "lose_loose", "lose", Messages.lose, index: k)
                }
            case .lose:
                if let v = prev(k), Self.looseAfter.contains(v.hash), endsAfter(k) {
                    grammarFinding(p, tok, "lose_loose", "loose", Messages.loose, index: k)
                }
            case .of:
                if let v = prev(k), Self.modalsOf.contains(v.hash), next(k).map({ $0.hash != WordHash.of("course") }) ?? endsAfter(k),
                   !(v.flags.contains(.capitalized) && !v.flags.contains(.sentenceStart)),
                   !(k >= 2 && !v.flags.contains(.breakBefore) && (tags(p, tokens[k - 2]).contains(.determiner) || tags(p, tokens[k - 2]).contains(.adjective) && tags(p, tokens[k - 2]).intersection(POSTags.closed).isEmpty)) {
                    grammarFinding(p, tok, "could_of", "have", Messages.couldOf(text(v.start, v.end)), index: k)
                }
            case .i, .iContraction:
                // "I has", "I goes": the pronoun, not a numeral ("World War I has") nor a letter.
                if trig == .i, p[tok.start] == 73, prev(k).map({ !$0.flags.contains(.capitalized) || !tags(p, $0).intersection(POSTags.closed).isEmpty }) ?? true,
                   let (u, j) = verbAfterSubject(p, k), !Self.hashes("is was").contains(u.hash) {
                    agreement(p, k, .i, u, at: j, tokens: tokens, prev: prev(k))
                }
                if p[tok.start] == 105, !tok.flags.contains(.hyphenBefore), next(k).map({ !$0.flags.contains(.hyphenBefore) }) ?? true,
                   !(tok.end < p.count && (p[tok.end] == 46 || p[tok.end] == 41)) {
                    let w = text(tok.start, tok.end)
                    grammarFinding(p, tok, "capitalize_i", "I" + w.dropFirst(), Messages.capitalI, index: k)
                }
            case .theirs:
                grammarFinding(p, tok, "there_their", "there's", Messages.there, index: k)
            case .theres:
                if let u = next(k) {
                    if Self.pluralNumbers.contains(u.hash), next(k + 1).map({ $0.hash != WordHash.of("of") }) ?? true {
                        // "There's five apps".
                        add(tok.start, tok.end, "subject_verb_agreement", .grammar, .warning, Messages.thereAre("'s", "are"),
                            [cased("there are", like: tok, p)], tokens: k..<(k + 1))
                    } else {
                        thereAgreement(p, k, verb: tok, u, plural: false)
                    }
                }
            case .you:
                // "You car is parked outside": a singular noun with its own verb after it — the possessive.
                if let u = next(k), p[tok.start] == 89 || p[tok.start] == 121, Self.nounHead(tags(p, u)), !tags(p, u).contains(.plural),
                   !tags(p, u).contains(.mainVerb), !tags(p, u).contains(.adjective), let v = next(k + 1),
                   tags(p, v).contains(.auxiliary) || tags(p, v).contains(.modal) {
                    grammarFinding(p, tok, "your_youre", "your", Messages.yourPossessive, index: k)
                } else if let (u, j) = verbAfterSubject(p, k) {
                    agreement(p, k, trig, u, at: j, tokens: tokens, prev: prev(k))
                }
            case .he, .she, .it, .they, .we:
                if let (u, j) = verbAfterSubject(p, k) { agreement(p, k, trig, u, at: j, tokens: tokens, prev: prev(k)) }
            case .isW, .are, .was, .am:
                if let v = prev(k), v.hash == Self.iHash || v.hash == Self.thereHash {
                    beAgreement(p, k, trig, subject: v, next: next(k))
                }
            }
        }
    }

    static let ownHash = WordHash.of("own")
    /// Whether a possessive before an -ing form reads as a gerund phrase: after a preposition or a verb of doing
    /// ("of their being", "prevent your going"), where "they're" or "you're" could not stand.
    func gerundPhraseSlot(_ p: UnsafeBufferPointer<UInt8>, _ v: Token?) -> Bool {
        guard let v else { return false }
        let tv = tags(p, v)
        return tv.contains(.preposition) || tv.contains(.verb) && tv.intersection(POSTags.closed).isEmpty && !Self.thinkVerbs.contains(v.hash)
    }

    /// After token k (your, their): an adverb, then a predicate — an -ing form, a participle, an adjective, a preposition
    /// or "here" ("probably wondering", "completely out of", "totally committed") — not followed by a noun it describes.
    func adverbThenPredicate(_ p: UnsafeBufferPointer<UInt8>, _ k: Int) -> Bool {
        let n = currentTokens.count
        guard k + 2 < n else { return false }
        let u = currentTokens[k + 1], w = currentTokens[k + 2]
        for t in [u, w] where t.flags.contains(.breakBefore) || t.flags.contains(.opaque) || t.flags.contains(.hyphenBefore) { return false }
        let tu = tags(p, u)
        let adverb = Self.notMiddle.contains(u.hash) || tu.contains(.adverb) && tu.intersection([.noun, .adjective, .verb]).isEmpty
            && tu.intersection(POSTags.closed).isEmpty
        guard adverb else { return false }
        let tw = tags(p, w)
        let predicate = tw.contains(.gerund) || tw.contains(.past) && !tw.contains(.noun)
            || tw.contains(.adjective) && !tw.contains(.mainNoun) && tw.intersection(POSTags.closed).isEmpty
            || tw.contains(.preposition) || Self.hashes("here there").contains(w.hash)
        guard predicate else { return false }
        if k + 3 < n, !currentTokens[k + 3].flags.contains(.breakBefore), Self.nounHead(tags(p, currentTokens[k + 3])),
           !tw.contains(.preposition) { return false }
        return true
    }

    /// A word that stands before a noun it belongs to: a determiner, a possessive, an adjective that is no verb.
    static func modifiesNoun(_ t: POSTags) -> Bool {
        t.contains(.determiner) || t.contains(.possessive) || t.contains(.adjective) && !t.contains(.verb) && t.intersection(POSTags.closed).isEmpty
    }

    /// Whether an auxiliary or modal comes within `within` tokens from index `from`, in the same clause
    /// ("Their walking in the park was nice": the -ing phrase is a subject).
    func auxiliaryAhead(_ p: UnsafeBufferPointer<UInt8>, from: Int, within: Int) -> Bool {
        var i = from
        while i < currentTokens.count, i < from + within {
            let t = currentTokens[i]
            if t.flags.contains(.breakBefore) || t.flags.contains(.sentenceStart) { return false }
            if tags(p, t).intersection([.auxiliary, .modal]).isEmpty == false { return true }
            i += 1
        }
        return false
    }

    /// Whether the sentence holding token k opens with a condition or a first step ("If it rains, …", "First we eat, …")
    /// and holds no comparison before k ("no sooner … than", "more weight …, than").
    func conditionOpens(_ p: UnsafeBufferPointer<UInt8>, before k: Int) -> Bool {
        var i = k - 1
        while i >= 0 {
            let t = currentTokens[i]
            let tt = tags(p, t)
            if tt.contains(.comparative) || Self.comparatives.contains(t.hash) || Self.hashes("sooner soon such so").contains(t.hash) { return false }
            if t.flags.contains(.sentenceStart) || i == 0 { return Self.hashes("if when once first whenever unless").contains(t.hash) }
            i -= 1
        }
        return false
    }

    /// The verb after the subject at k, past one adverb ("She always go"), and its index.
    func verbAfterSubject(_ p: UnsafeBufferPointer<UInt8>, _ k: Int) -> (Token, Int)? {
        let n = currentTokens.count
        guard k + 1 < n else { return nil }
        let u = currentTokens[k + 1]
        if u.flags.contains(.breakBefore) || u.flags.contains(.opaque) || u.flags.contains(.sentenceStart) || u.flags.contains(.hyphenBefore) { return nil }
        let tu = tags(p, u)
        let adverb = tu.contains(.adverb) && tu.intersection([.noun, .verb, .adjective]).isEmpty && tu.intersection(POSTags.closed).isEmpty
            || Self.notMiddle.contains(u.hash) && u.hash != WordHash.of("not")
        if adverb, k + 2 < n {
            let w = currentTokens[k + 2]
            if w.flags.contains(.breakBefore) || w.flags.contains(.opaque) || w.flags.contains(.hyphenBefore) { return nil }
            return (w, k + 2)
        }
        return (u, k + 1)
    }

    /// Words that head a noun phrase: nouns that are not also adverbs, -ing or past forms, nor function words.
    static func nounHead(_ t: POSTags) -> Bool {
        t.contains(.noun) && t.intersection([.adverb, .gerund, .past]).isEmpty && t.intersection(POSTags.closed).isEmpty
            && !(t.contains(.mainAdjective) && !t.contains(.mainNoun))
    }
    /// Numbers and nouns of time, used as adverbs after "there" ("lived there years ago", "sat there ten minutes").
    static let timeNouns = hashes("one two three four five six seven eight nine ten eleven twelve twenty hundred thousand moment moments second seconds minute minutes hour hours day days week weeks month months year years decade decades century centuries night nights morning mornings evening evenings afternoon afternoons once twice")
    /// Particles of place before "there" ("over there", "out there").
    static let placeParticles = hashes("over out up down around back in")
    /// Prepositions that also open a clause ("like they're friends", "as they're leaving").
    static let clausePrepositions = hashes("like as since until till before after than")
    static let likeHash = WordHash.of("like")
    static let pluralWithoutS = hashes("people police cattle folk")
    static let beContractions = hashes("i'm you're we're they're he's she's it's that's there's what's who's")
    /// Numbers and quantifiers, which "there" may precede as an adverb ("lived there many years", "stayed there all night").
    static let quantifiers = hashes("one two three four five six seven eight nine ten several many few both all some each every most half much")
    /// Nouns whose plural is their singular ("there are fish in the lake").
    static let samePlural = hashes("fish sheep deer species series aircraft offspring means salmon trout swine moose bison")
    static let fromHash = WordHash.of("from")
    static let betweenHash = WordHash.of("between")
    static let thinkVerbs = hashes("assume assumed doubt doubted suspect suspected think thought know knew believe guess say said says hope mean meant feel felt bet suppose realize realise see saw seems seem figure figured sure hear heard")

    static func isOrdinal(_ p: UnsafeBufferPointer<UInt8>, _ t: Token) -> Bool {
        guard t.end - t.start >= 3, p[t.start] >= 48, p[t.start] <= 57 else { return false }
        let a = p[t.end - 2] | 0x20, b = p[t.end - 1] | 0x20
        return (a == 116 && b == 104) || (a == 115 && b == 116) || (a == 110 && b == 100) || (a == 114 && b == 100)
    }
    static let beingHash = WordHash.of("being")
    static let loseHash = WordHash.of("lose")
    static let iHash = WordHash.of("i")

    mutating func aAn(_ p: UnsafeBufferPointer<UInt8>, _ k: Int, _ isAn: Bool, _ u: Token?, prev: Token?) {
        guard let u else { return }
        var w: [UInt8] = []
        var i = u.start
        while i < u.end { w.append(p[i]); i += 1 }
        guard let first = w.first else { return }
        let lowerW = w.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }
        var vowel: Bool
        let upper = w.filter { $0 >= 65 && $0 <= 90 }.count
        let allCaps = w.count >= 2 && (w.allSatisfy { ($0 >= 65 && $0 <= 90) || ($0 >= 48 && $0 <= 57) } || upper >= 2)
        let hasVowel = lowerW.contains { "aeiou".utf8.contains($0) }
        if first >= 48 && first <= 57 {
            // 8, 11, 18, 80…: said with a vowel.
            let digits = w.prefix { $0 >= 48 && $0 <= 57 }
            if first == 56 { vowel = true } else if digits.count == 2 || digits.count == 5, w[0] == 49, w[1] == 49 || w[1] == 56 {
                vowel = true
            } else { vowel = false }
        } else if allCaps || (w.count >= 2 && !lowerW.contains { "aeiouy".utf8.contains($0) }
                              && w.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) }
                              && !(u.end < p.count && p[u.end] == 46)) {
            // Capitals, or a word without a vowel ("npm", "mp3"): read as letters unless it can be said as a word.
            vowel = Self.vowelSoundLetters.contains(lowerW[0])
            if hasVowel, Self.sayable(lowerW) {
                // "NASA", "LAN", "LED", "REST", "URL": said as a word by some and as letters by others; either article
                // is right when the two readings start differently.
                if Self.startsWithVowelSound(lowerW) != vowel { return }
            }
        } else if w.count == 1 {
            vowel = Self.vowelSoundLetters.contains(lowerW[0])
            if !u.flags.contains(.capitalized) && lowerW[0] != 120 { return }   // "a b c": letters in a list, leave them
        } else if first >= 0x80 {
            return
        } else {
            vowel = Self.startsWithVowelSound(lowerW)
            // A name the lexicon does not know, spelt with a vowel: its sound can't be told from its spelling
            // ("an Euler brick", "a Eurostar"), so only the plain vowel reading is judged.
            if !vowel, "aeiou".utf8.contains(lowerW[0]), u.flags.contains(.capitalized),
               POSLexicon.shared.tags(lowerW).isEmpty { return }
            // Closed-class words right after an article are not what it introduces ("a or b", "an is").
            let tu = POSLexicon.shared.stored(POSLexicon.hash(lowerW[...]))
            if tu.intersection([.conjunction, .auxiliary, .preposition, .subjectPronoun]).isEmpty == false, !tu.contains(.noun) { return }
        }
        let me = tokensText(p, k)
        guard vowel != isAn else { return }
        // "A" capitalised inside a sentence is often a letter ("Plan A is", "vitamin A").
        if me.0 == 65, me.1 == 1, !currentTokens[k].flags.contains(.sentenceStart), prev != nil { return }
        let replacement = isAn ? "a" : "an"
        let word = String(decoding: w, as: UTF8.self)
        let message = isAn ? Messages.useA(word) : Messages.useAn(word)
        addAt(p, k, "a_an", replacement, message)
    }

    /// Whether a lower-case word spelt with a vowel starts with a vowel sound ("an hour", "a unicorn", "a one-off").
    static func startsWithVowelSound(_ lowerW: [UInt8]) -> Bool {
        let s = String(decoding: lowerW, as: UTF8.self)
        var vowel = "aeiou".utf8.contains(lowerW[0])
        if vowel, consonantSound.contains(where: { s.hasPrefix($0) }),
           !consonantSoundExceptions.contains(where: { s.hasPrefix($0) }) { vowel = false }
        if !vowel, vowelSound.contains(where: { s.hasPrefix($0) }) { vowel = true }
        if lowerW[0] == 121 && lowerW.count > 1 && !"aeiou".utf8.contains(lowerW[1]) { vowel = true }   // "an yttrium"
        return vowel
    }

    /// Whether letters can be said as one English word: a vowel, and before the first vowel nothing or a
    /// consonant cluster English words start with ("NASA", "LAN", "REST" can; "MRI", "HTML", "FFmpeg" cannot).
    static func sayable(_ lowerW: [UInt8]) -> Bool {
        guard let v = lowerW.firstIndex(where: { "aeiouy".utf8.contains($0) }) else { return false }
        if !lowerW.allSatisfy({ $0 >= 97 && $0 <= 122 }) { return false }
        if v == 0 && lowerW[0] == 121 { return false }
        let onset = String(decoding: lowerW[0..<v], as: UTF8.self)
        return onset.count <= 1 && onset != "x" || onsets.contains(onset)
    }
    static let onsets: Set<String> = ["bl", "br", "ch", "cl", "cr", "dr", "dw", "fl", "fr", "gl", "gr", "kl", "kn", "kr", "ph", "pl", "pr",
                                      "qu", "sc", "sh", "sk", "sl", "sm", "sn", "sp", "st", "sw", "th", "tr", "tw", "wh", "wr",
                                      "sch", "scr", "shr", "spl", "spr", "str", "thr", "squ"]

    /// First byte and length of token k (via `candidates`' helpers).
    func tokensText(_ p: UnsafeBufferPointer<UInt8>, _ k: Int) -> (UInt8, Int) {
        let t = currentTokens[k]
        return (p[t.start], t.end - t.start)
    }

    mutating func addAt(_ p: UnsafeBufferPointer<UInt8>, _ k: Int, _ rule: String, _ replacement: String, _ message: String) {
        let t = currentTokens[k]
        grammarFinding(p, t, rule, replacement, message, index: k)
    }

    /// "He go", "She have", "They goes", "I has".
    mutating func agreement(_ p: UnsafeBufferPointer<UInt8>, _ k: Int, _ subject: Trigger, _ u: Token, at j: Int, tokens: [Token], prev: Token?) {
        let tu = tags(p, u)
        let w = lower(p, u)
        let word = String(decoding: w, as: UTF8.self)
        let third = subject == .he || subject == .she || subject == .it
        // "it" after a causative verb or a preposition is an object ("let it go", "for it"); "suggested she sell".
        if let v = prev {
            let tv = tags(p, v)
            if Self.causativeVerbs.contains(v.hash) || tv.contains(.preposition) || tv.contains(.verb) && !tv.contains(.conjunction) { return }
        }
        if third {
            var fix: String?
            switch word {
            case "have": fix = "has"
            case "do": fix = "does"
            case "don't": fix = "doesn't"
            case "haven't": fix = "hasn't"
            case "like": fix = "likes"
            case "are": fix = "is"
            case "were":
                // Not the subjunctive ("if he were", "I wish she were"): only opening a sentence or after and/but/so.
                guard prev == nil || prev.map({ Self.hashes("and but so because when while").contains($0.hash) }) == true,
                      !currentTokens[k].flags.contains(.breakBefore) || currentTokens[k].flags.contains(.sentenceStart),
                      !(k >= 1 && currentTokens[k - 1].hash == WordHash.of("if")) else { return }
                fix = "was"
            case "am": fix = "is"
            default:
                // After "he" a noun reading is out: a word that may be a verb and is no adverb or adjective is one
                // ("He walk to school"), unless "of" follows ("he sort of smiled").
                guard tu.contains(.verb), tu.contains(.mainVerb) || !tu.contains(.adverb) && !tu.contains(.adjective) && !tu.contains(.mainAdverb),
                      tu.intersection([.thirdPerson, .past, .gerund, .plural, .sameInPast]).isEmpty,
                      tu.intersection(POSTags.closed).isEmpty, next(after: u).map({ $0.hash != WordHash.of("of") }) ?? true else { return }
                // "He, like, …" and other words that are rarely verbs after a pronoun.
                if w.count < 2 { return }
                fix = Self.thirdPersonForm(word)
            }
            // "if he were", "he need not" and the like are too rare to flag; questions ("does he go") are not here.
            if let prev, tags(p, prev).contains(.auxiliary) || tags(p, prev).contains(.modal) { return }
            if let fix { add(u.start, u.end, "subject_verb_agreement", .grammar, .warning, Messages.agreement(word, fix), [fix], tokens: j..<(j + 1)) }
        } else {
            var fix: String?
            switch word {
            case "has": fix = "have"
            case "does": fix = "do"
            case "doesn't": fix = "don't"
            case "hasn't": fix = "haven't"
            case "is": fix = subject == .i ? "am" : "are"
            case "was": fix = (subject == .i) ? nil : "were"
            default:
                guard tu.contains(.thirdPerson), !tu.contains(.plural) || tu.contains(.mainVerb), tu.intersection(POSTags.closed).isEmpty else { return }
                fix = Self.baseForm(word)
            }
            if let prev, tags(p, prev).contains(.auxiliary) || tags(p, prev).contains(.modal) || tags(p, prev).contains(.preposition) { return }
            if let fix, !fix.isEmpty {
                add(u.start, u.end, "subject_verb_agreement", .grammar, .warning, Messages.agreement(word, fix), [fix], tokens: j..<(j + 1))
            }
        }
    }

    /// "I is" → "I am"; "there is many" → "there are".
    mutating func beAgreement(_ p: UnsafeBufferPointer<UInt8>, _ k: Int, _ verb: Trigger, subject: Token, next u: Token?) {
        let t = currentTokens[k]
        if subject.hash == Self.iHash {
            if let s = currentTokens.firstIndex(where: { $0.start == subject.start }), s > 0, currentTokens[s - 1].hash == Self.andHash { return }
            if verb == .isW || verb == .are {
                add(t.start, t.end, "subject_verb_agreement", .grammar, .warning, Messages.agreement(text(t.start, t.end), "am"), ["am"], tokens: k..<(k + 1))
            }
            return
        }
        guard let u else { return }
        if verb == .isW || verb == .was, Self.pluralNumbers.contains(u.hash) {
            let fix = verb == .isW ? "are" : "were"
            add(t.start, t.end, "subject_verb_agreement", .grammar, .warning, Messages.thereAre(text(t.start, t.end), fix), [fix], tokens: k..<(k + 1))
            return
        }
        thereAgreement(p, k, verb: t, u, plural: verb == .are)
    }

    /// "there is things" → "there are"; "there are person" → "there is" (also "is there …", "there's …").
    mutating func thereAgreement(_ p: UnsafeBufferPointer<UInt8>, _ k: Int, verb t: Token, _ u: Token, plural: Bool) {
        let w = lower(p, t)
        let word = String(decoding: w, as: UTF8.self)
        let isPluralVerb = word == "are" || word == "were"
        let tu = tags(p, u)
        guard tu.intersection(POSTags.closed).isEmpty, !tu.contains(.adjective), !tu.contains(.adverb), !tu.contains(.gerund),
              !Self.hashes("lots plenty").contains(u.hash) else { return }
        let after = next(after: u)
        if after?.flags.contains(.hyphenBefore) == true { return }   // "function-like macros": the noun is further on
        // "people", "police": plural without an -s.
        let plural = tu.contains(.plural) || Self.pluralWithoutS.contains(u.hash)
        if !isPluralVerb, plural, !tu.contains(.mainVerb) || !tu.contains(.thirdPerson)
            || after.map({ tags(p, $0).intersection([.determiner, .objectPronoun, .possessive]).isEmpty }) ?? true {
            let fix = word == "was" ? "were" : "are"
            let shown = word == "there's" ? "there are" : fix
            add(t.start, t.end, "subject_verb_agreement", .grammar, .warning, Messages.thereAre(word, fix), [cased(shown, like: t, p)], tokens: k..<(k + 1))
        } else if isPluralVerb, Self.nounHead(tu), !plural, !Self.samePlural.contains(u.hash),
                  !u.flags.contains(.capitalized) || u.flags.contains(.sentenceStart),
                  after.map({ tags(p, $0).contains(.preposition) || $0.hash == WordHash.of("that") }) ?? true {
            // "there were child", "there are issue with": a singular noun, closing the phrase or before a preposition.
            let fix = word == "were" ? "was" : "is"
            add(t.start, t.end, "subject_verb_agreement", .grammar, .warning, Messages.thereAre(word, fix), [cased(fix, like: t, p)], tokens: k..<(k + 1))
        }
    }

    /// The token after `u` in the current block with only spaces between, or nil.
    func next(after u: Token) -> Token? {
        guard let i = currentTokens.firstIndex(where: { $0.start == u.start }), i + 1 < currentTokens.count else { return nil }
        let v = currentTokens[i + 1]
        return v.flags.contains(.breakBefore) || v.flags.contains(.opaque) ? nil : v
    }

    static func thirdPersonForm(_ w: String) -> String {
        switch w {
        case "go": return "goes"
        case "be": return "is"
        default: break
        }
        if w.hasSuffix("s") || w.hasSuffix("x") || w.hasSuffix("z") || w.hasSuffix("ch") || w.hasSuffix("sh") || w.hasSuffix("o") {
            return w + "es"
        }
        if w.hasSuffix("y"), let c = w.dropLast().last, !"aeiou".contains(c) { return w.dropLast() + "ies" }
        return w + "s"
    }

    static func baseForm(_ w: String) -> String {
        if w == "goes" { return "go" }
        if w.hasSuffix("ies"), w.count > 4 { return w.dropLast(3) + "y" }
        for suffix in ["sses", "shes", "ches", "xes", "zes", "oes"] where w.hasSuffix(suffix) { return String(w.dropLast(2)) }
        return String(w.dropLast())
    }

    /// A lower-case word starting a sentence after a full stop, or a paragraph ("the end. then we left").
    mutating func capitalization(_ p: UnsafeBufferPointer<UInt8>, _ k: Int, tokens: [Token], block: ProseBlock, sentenceCount: Int) {
        let t = tokens[k]
        let c = p[t.start]
        guard c >= 97, c <= 122, !t.flags.contains(.inQuote), !t.flags.contains(.hyphenBefore) else { return }
        // Only all-lower-case words (not "iPhone", "macOS") and not single letters.
        var i = t.start + 1
        while i < t.end { if p[i] >= 65 && p[i] <= 90 { return }; i += 1 }
        guard t.end - t.start >= 2 else { return }
        if k == 0 {
            // A paragraph (not a list item) that opens in lower case.
            guard t.start == block.range.lowerBound, !block.inListItem, tokens.count >= 4, sentenceCount >= 2 else { return }
            // Only when the block reads as a sentence: it ends with a full stop.
            let last = min(block.range.upperBound, p.count) - 1
            guard last > t.end, p[last] == 46 || p[last] == 33 || p[last] == 63 else { return }
        } else {
            let prevTok = tokens[k - 1]
            if prevTok.flags.contains(.opaque) || prevTok.flags.contains(.numeric) || prevTok.letters < 2 { return }
            // Exactly ". " between the previous word and this one.
            guard t.start - prevTok.end == 2, p[prevTok.end] == 46, p[prevTok.end + 1] == 32 else { return }
            let f = flags(prevTok)
            if f.contains(.abbreviation) || f.contains(.abbreviationMaybeEnd) { return }
            if Self.notSentenceEnders.contains(prevTok.hash) { return }
        }
        let w = text(t.start, t.end)
        add(t.start, t.end, "sentence_capitalization", .grammar, .warning, Messages.capitalize(w),
            [w.prefix(1).uppercased() + w.dropFirst()], tokens: k..<(k + 1))
    }

    static let notSentenceEnders = hashes("etc al vs inc ltd co jr sr st no approx e.g i.e")
}

extension Messages {
    static let itsContraction = "\u{201C}its\u{201D} is the possessive; here you mean \u{201C}it's\u{201D} (it is / it has)."
    static let itsPossessive = "\u{201C}it's\u{201D} means \u{201C}it is\u{201D}; the possessive is \u{201C}its\u{201D}."
    static let youre = "\u{201C}your\u{201D} is the possessive; here you mean \u{201C}you're\u{201D} (you are)."
    static let your = "\u{201C}you're\u{201D} means \u{201C}you are\u{201D}; the possessive is \u{201C}your\u{201D}."
    static let yourPossessive = "Here you mean the possessive \u{201C}your\u{201D} (belonging to you)."
    static let there = "Here you mean the place or the opener \u{201C}there\u{201D}, not the possessive \u{201C}their\u{201D}."
    static let their = "Here you mean the possessive \u{201C}their\u{201D} (belonging to them)."
    static let theyre = "Here you mean \u{201C}they're\u{201D} (they are)."
    static let than = "After a comparison use \u{201C}than\u{201D}; \u{201C}then\u{201D} is about time."
    static let then = "\u{201C}than\u{201D} compares; for what comes next in time use \u{201C}then\u{201D}."
    static let too = "Here you mean \u{201C}too\u{201D} (also, or more than enough)."
    static let to = "Before a verb use \u{201C}to\u{201D}; \u{201C}too\u{201D} means also or excessively."
    static let whereW = "Here you mean \u{201C}where\u{201D} (the place); \u{201C}were\u{201D} is a verb."
    static let were = "Here you mean the verb \u{201C}were\u{201D}; \u{201C}where\u{201D} asks about a place."
    static let effect = "Here you need the noun \u{201C}effect\u{201D} (a result); \u{201C}affect\u{201D} is the verb."
    static let affect = "Here you need the verb \u{201C}affect\u{201D} (to influence); \u{201C}effect\u{201D} is the result."
    static let lose = "\u{201C}loose\u{201D} means not tight; the verb (to not win, to misplace) is \u{201C}lose\u{201D}."
    static let loose = "Here you mean \u{201C}loose\u{201D} (not tight, free); \u{201C}lose\u{201D} is the verb."
    static let tooLoose = "\u{201C}too lose\u{201D}: you mean \u{201C}too loose\u{201D} (not tight enough)."
    static let capitalI = "The pronoun \u{201C}I\u{201D} is always a capital letter."
    static func couldOf(_ modal: String) -> String { "\u{201C}\(modal) of\u{201D} is a mishearing of \u{201C}\(modal) have\u{201D} (\u{201C}\(modal)'ve\u{201D})." }
    static func useA(_ word: String) -> String { "Use \u{201C}a\u{201D} before \u{201C}\(word)\u{201D}: it starts with a consonant sound." }
    static func useAn(_ word: String) -> String { "Use \u{201C}an\u{201D} before \u{201C}\(word)\u{201D}: it starts with a vowel sound." }
    static func agreement(_ verb: String, _ fix: String) -> String {
        "The verb does not agree with its subject: \u{201C}\(verb)\u{201D} should be \u{201C}\(fix)\u{201D}."
    }
    static func thereAre(_ verb: String, _ fix: String) -> String {
        "A plural follows: \u{201C}there \(verb)\u{201D} should be \u{201C}there \(fix)\u{201D}."
    }
    static func capitalize(_ word: String) -> String { "A sentence starts with a capital letter: \u{201C}\(word)\u{201D}." }
}

/// Fixed errors: misspelt or misheard forms whose correction never depends on context (category `grammar`,
/// rule `common_error`). One entry a line, `wrong => right`.
enum GrammarLists {
    static let fixedErrors = """
    alot => a lot
    irregardless => regardless
    could care less => couldn't care less
    for all intensive purposes => for all intents and purposes
    one in the same => one and the same
    case and point => case in point
    deep seeded => deep-seated
    free reign => free rein
    mute point => moot point
    peak my interest => pique my interest
    peaked my interest => piqued my interest
    baited breath => bated breath
    sneak peak => sneak peek
    tow the line => toe the line
    wreck havoc => wreak havoc
    wet your appetite => whet your appetite
    by in large => by and large
    all of the sudden => all of a sudden
    nip it in the butt => nip it in the bud
    on accident => by accident
    supposably => supposedly
    expresso => espresso
    self-depreciating => self-deprecating
    statue of limitations => statute of limitations
    hunger pains => hunger pangs
    make due => make do
    in lieu of the fact => in light of the fact
    """
}

extension Lexicon {
    mutating func addGrammarTables() {
        addTable(GrammarLists.fixedErrors, category: .grammar, rule: "common_error", severity: .warning) { phrase, repl in
            "\(Messages.q(phrase)) is a common error for " + repl.map(Messages.q).joined(separator: " or ") + "."
        }
    }
}

extension Run {
    /// Whether a participle after a be-verb describes a state rather than an action ("was yellowed",
    /// "was very tired", "was tired and cold"): its verb is made from an adjective, a degree word stands
    /// before it, or an adjective is joined to it with "and".
    func adjectivalUse(_ p: UnsafeBufferPointer<UInt8>, participle q: Int, verb t: Int, tokens: [Token]) -> Bool {
        let part = tokens[q]
        if q > t + 1, POSLexicon.shared.stored(tokens[q - 1].hash).contains(.degree) { return true }
        let w = lower(p, part)
        if w.count > 4, w[w.count - 2] == 101, w[w.count - 1] == 100 {
            let base = POSLexicon.shared.stored(POSLexicon.hash(w[0..<(w.count - 2)]))
            if base.contains(.mainAdjective) { return true }
        }
        if q + 2 < tokens.count, tokens[q + 1].hash == Self.andHash, !tokens[q + 2].flags.contains(.breakBefore),
           POSLexicon.shared.tags(lower(p, tokens[q + 2])).onlyAdjective {
            return true
        }
        return false
    }

    static let andHash = WordHash.of("and")
}
