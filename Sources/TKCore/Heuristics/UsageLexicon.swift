/// Registers the usage tables of `UsageLists` (issue 15) after the original tables, so an entry that
/// both hold keeps its original rule.
extension Lexicon {
    mutating func addUsageTables() {
        addTable(UsageLists.wordy, category: .wordy, rule: "wordy", severity: .suggestion)
        addTable(UsageLists.redundancies, category: .wordy, rule: "redundancy", severity: .suggestion) { phrase, repl in
            let q = Messages.q
            return repl.isEmpty ? "Redundant: \(q(phrase)) says the same thing twice. Cut the repetition."
                : "Redundant: \(q(phrase)) says the same thing twice. Try " + repl.map(q).joined(separator: " or ") + "."
        }
        // "more unique", "rather perfect": every degree word with every uncomparable adjective, minus idioms.
        let idioms = Set(UsageLists.degreeIdioms.split(separator: "\n").map { $0.trimmingCharacters(in: " ") })
        // The message's fixed part made once, each adjective's once (hundreds of phrases at every start).
        let tail = " has no degrees. Use it alone, or pick a word that has them (\(Messages.q("unusual")), \(Messages.q("nearly complete")))."
        let degrees = UsageLists.degreeWords.split(whereSeparator: { $0 == " " || $0 == "\n" })
        for adjective in UsageLists.uncomparableAdjectives.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let word = String(adjective)
            let about = ": " + Messages.q(word) + tail
            for degree in degrees {
                let phrase = degree + " " + word
                if idioms.contains(phrase) { continue }
                addPhrase(phrase, category: .wordy, rule: "uncomparable", severity: .suggestion,
                          message: Messages.q(phrase) + about, replacements: [word])
            }
        }
        addTable(UsageLists.oxymorons, category: .other, rule: "oxymoron", severity: .suggestion) { phrase, repl in
            "\(Messages.q(phrase)) contradicts itself." + (repl.isEmpty ? "" : " Try " + repl.map(Messages.q).joined(separator: " or ") + ".")
        }
        addTable(UsageLists.mixedMetaphors, category: .other, rule: "mixed_metaphor", severity: .warning) { phrase, repl in
            repl.isEmpty ? "\(Messages.q(phrase)) is a garbled idiom; cut it."
                : "\(Messages.q(phrase)) mixes up the idiom: it is " + repl.map(Messages.q).joined(separator: " or ") + "."
        }
        addTable(UsageLists.cliches, category: .cliche, rule: "cliche", severity: .suggestion)
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in chars: String) -> String {
        var s = Substring(self)
        while let f = s.first, chars.contains(f) { s.removeFirst() }
        while let l = s.last, chars.contains(l) { s.removeLast() }
        return String(s)
    }
}
