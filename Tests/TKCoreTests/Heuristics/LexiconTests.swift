import Testing
@testable import TKCore

/// The phrase tables are read from text at every process start; these pin down how a table line
/// and a phrase are read, so a faster reader cannot read them differently.
struct LexiconTests {
    @Test func aTableLineGivesThePhraseAndItsReplacements() {
        var lx = Lexicon(capacity: 64)
        lx.addTable("""
            # a comment line
              in order to  =>  to | so as to |
            \tat this point in time=>now

            """, category: .wordy, rule: "wordy", severity: .suggestion)
        #expect(lx.phrases.count == 2)
        #expect(lx.phrases.map(\.replacements) == [["to", "so as to"], ["now"]])
        #expect(lx.phrases[0].words == Lexicon.compile("in order to").words)
        #expect(lx.phrases[1].words == Lexicon.compile("at this point in time").words)
    }

    /// The byte reader of `Lexicon.entries` against a plain reading with `String`'s own operations,
    /// on every built-in table and on lines that test its edges.
    @Test func theTableReaderReadsAsStringOperationsDo() {
        func reference(_ table: String) -> [String] {
            var out: [String] = []
            for raw in table.split(separator: "\n") {
                let line = raw.trimmingSpacesAndTabs
                if line.isEmpty || line.hasPrefix("#") { continue }
                guard let arrow = line.range(of: "=>") else { out.append("\(line) -> "); continue }
                let replacements = line[arrow.upperBound...].split(separator: "|").map { $0.trimmingSpacesAndTabs }.filter { !$0.isEmpty }
                out.append("\(line[..<arrow.lowerBound].trimmingSpacesAndTabs) -> \(replacements.joined(separator: "|"))")
            }
            return out
        }
        let edges = "\n\n  # comment\n#x => y\n=> only\nphrase =>\nphrase => | |\n\ta  b\t=>\tc | d e |f\n"
            + "x => y => z\nno arrow here\n trailing => r \t\n\u{201C}curly\u{201D} => it\u{2019}s\n=>\n=\n>\n a=>b"
        let tables = [WordLists.weaselStops, UsageLists.stops, WordLists.genericOpenings, WordLists.aiCliches, WordLists.cliches,
                      WordLists.wordy, WordLists.weasel, WordLists.hedges, UsageLists.wordy, UsageLists.redundancies,
                      UsageLists.oxymorons, UsageLists.mixedMetaphors, UsageLists.cliches, GrammarLists.fixedErrors, edges]
        var lines = 0
        for table in tables {
            let read = Lexicon.entries(table).map { "\($0.phrase) -> \($0.replacements.joined(separator: "|"))" }
            #expect(read == reference(table))
            lines += read.count
        }
        #expect(lines > 1_500)
    }

    @Test func aMessageIsMadeFromThePhraseAsWritten() {
        var lx = Lexicon(capacity: 64)
        lx.addTable("Very Unique => unique", category: .wordy, rule: "r", severity: .info) { phrase, repl in
            "\(phrase)->\(repl.joined(separator: ","))"
        }
        #expect(lx.phrases.first?.message == "Very Unique->unique")
    }

    @Test func wordsAreHashedAsTheTokenizerHashesThem() {
        let curly = Lexicon.compile("Don\u{2019}t go")
        let straight = Lexicon.compile("don't GO")
        #expect(curly.words == straight.words)
        #expect(curly.words == [WordHash.of("don't"), WordHash.of("go")])
        // An apostrophe that does not join two word characters is not part of a word.
        #expect(Lexicon.compile("writers' room").words == [WordHash.of("writers"), WordHash.of("room")])
        // Accented letters are word characters.
        #expect(Lexicon.compile("déjà vu").words == [WordHash.of("déjà"), WordHash.of("vu")])
    }

    @Test func punctuationBetweenWordsIsNotedButSpacesAndHyphensAreNot() {
        #expect(Lexicon.compile("well-known fact").allowBreak == 0)
        #expect(Lexicon.compile("well, actually").allowBreak == 1 << 1)
        #expect(Lexicon.compile("yes; no. maybe").allowBreak == (1 << 1) | (1 << 2))
    }

    @Test func longerPhrasesAreTriedFirstAndBlockStartRulesBeforeOthers() {
        var lx = Lexicon(capacity: 64)
        lx.addPhrase("in fact", category: .wordy, rule: "a", severity: .info)
        lx.addPhrase("in fact it is", category: .wordy, rule: "b", severity: .info)
        lx.addPhrase("in short", category: .wordy, rule: "c", severity: .info)
        lx.addPhrase("in brief", category: .wordy, rule: "d", severity: .info, onlyAtBlockStart: true)
        lx.addPhrase("in fact", category: .cliche, rule: "dup", severity: .info)   // same words: kept as it was
        let e = lx.lookup(WordHash.of("in"))
        #expect(e >= 0)
        let order = lx.phraseStarts[e].map { lx.phrases[Int($0)].rule }
        #expect(order == ["b", "d", "a", "c"])
        #expect(lx.phrases.count == 4)
    }

    @Test func aPluggedInRuleReplacesTheBuiltInOneWithTheSameWords() {
        var lx = Lexicon(capacity: 64)
        lx.addPhrase("in fact", category: .wordy, rule: "a", severity: .info)
        lx.addPhrase("In fact", category: .cliche, rule: "tip", severity: .warning, replacing: true)
        #expect(lx.phrases.count == 1)
        #expect(lx.phrases[0].rule == "tip")
        #expect(lx.phrases[0].severity == .warning)
    }
}

extension StringProtocol {
    fileprivate var trimmingSpacesAndTabs: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
