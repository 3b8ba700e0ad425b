import Foundation
import Synchronization
import Testing
@testable import TKCore

/// Issue 15, speed: suggestions without `Hunspell_suggest`, the stem pre-filter, the idle release.
@Suite struct SpellerTests {
    private func speller(_ lang: String = "en_US") throws -> Speller {
        try Speller.named(lang).get()
    }

    @Test func suggestionsPutTheLikelyWordFirst() throws {
        let s = try speller()
        #expect(s.suggestions("freind").first == "friend")
        #expect(s.suggestions("recieve").first == "receive")
        #expect(s.suggestions("teh").first == "the")
        #expect(s.suggestions("definately").first == "definitely")
        #expect(s.suggestions("leter").contains("letter"))
        #expect(s.suggestions("accomodate").first == "accommodate")
        #expect(s.suggestions("wich").contains("which"))
        // British spellings under en_US get the American word first, in the word's case.
        #expect(s.suggestions("colour").first == "color")
        #expect(s.suggestions("Neighbourhood").first == "Neighborhood")
        #expect(s.suggestions("humoured").first == "humored")
        #expect(s.suggestions("criticise").first == "criticize")
        #expect(s.suggestions("judgement").first == "judgment")
        #expect(s.suggestions("centre").first == "center")
        // Two slips (doubled letters) when nothing is one edit away.
        #expect(s.suggestions("tommorow").first == "tomorrow")
        #expect(s.suggestions("dissapoint").first == "disappoint")
        // Nothing sensible one edit away: no junk.
        #expect(s.suggestions("Quorvanthix").isEmpty)
        #expect(s.suggestions("leter", limit: 1).count == 1)
    }

    /// Equal suggestions come in the same order in every process: the two-slip candidates are made
    /// with the vowels in a fixed order (a `Set`'s order is seeded per process, so `check` and the
    /// sidecar gave "snatches or snitches" one run and "snitches or snatches" the next).
    @Test func slipsComeInTheSameOrderInEveryProcess() throws {
        let bat = Suggester.slips(Array("bat".utf8)).map { String(decoding: $0, as: UTF8.self) }
        #expect(bat == ["bbat", "abt", "baat", "bet", "bit", "bot", "but", "byt", "bta", "batt"])
        #expect(try speller().suggestions("sneetches") == ["snatches", "snitches"])
    }

    @Test func britishDictionaryGetsTheBritishWord() throws {
        let s = try speller("en_GB")
        #expect(s.suggestions("color").first == "colour")
        #expect(s.suggestions("recieve").first == "receive")
    }

    @Test func everySuggestionIsAWordOfTheDictionary() throws {
        let s = try speller()
        for w in ["freind", "leter", "teh", "wrold", "becuase", "occured", "seperate", "Thier"] {
            let sug = s.suggestions(w)
            #expect(!sug.isEmpty, "no suggestion for \(w)")
            for x in sug { #expect(s.isCorrect(x), "\(x) suggested for \(w)") }
        }
    }

    @Test func stemTableAcceptsStemsWithCommonEndingsOnly() {
        let t = StemTable(dic: Array("4\nwalk/DGS\nhappy/TPR\nstop/S\nbake\n".utf8))
        #expect(t.count == 4)
        for w in ["walk", "walked", "walking", "happier", "happiness", "stopped", "baked", "baker", "rewalked", "unhappy"] {
            #expect(t.plausible(Array(w.utf8)), "\(w)")
        }
        for w in ["walx", "wxlked", "stoop", "bak", "happx"] {
            #expect(!t.plausible(Array(w.utf8)), "\(w)")
        }
        #expect(StemTable(dic: []).count == 0)
        #expect(!StemTable(dic: []).plausible(Array("walk".utf8)))
    }

    @Test func plainWordLookUpNeverAcceptsWhatHunspellRejects() throws {
        for lang in ["en_US", "en_GB"] {
            let s = try speller(lang)
            // The plain-word look-up serves the Hunspell path (the word table's stems have none).
            let dic = try #require(FileManager.default.contents(atPath: s.dicPath))
            let aff = try #require(FileManager.default.contents(atPath: s.affPath))
            let table = StemTable(dic: [UInt8](dic), aff: [UInt8](aff))
            #expect(table.exactUsable)
            var accepted = 0
            for (k, line) in String(decoding: dic, as: UTF8.self).split(separator: "\n").dropFirst().enumerated() where k % 3 == 0 {
                let word = String(line.prefix { $0 != "/" && $0 != "\t" && $0 != " " })
                guard let f = word.first else { continue }
                for w in [word, word.lowercased(), String(f).uppercased() + word.dropFirst()] where table.isPlainWord(w) {
                    accepted += 1
                    #expect(s.hunspellAccepts(w), "\(lang): \(w) taken as a word, Hunspell says no")
                }
            }
            #expect(accepted > 10_000)
        }
        let us = try speller()
        let t = StemTable(dic: try [UInt8](#require(FileManager.default.contents(atPath: us.dicPath))),
                          aff: try [UInt8](#require(FileManager.default.contents(atPath: us.affPath))))
        #expect(t.isPlainWord("the") && t.isPlainWord("The") && !t.isPlainWord("leter") && !t.isPlainWord("walked"))
        #expect(StemTable.specialFlags(aff: Array("FLAG long\n".utf8)) == nil)
        #expect(StemTable.specialFlags(aff: Array("ONLYINCOMPOUND c\nCOMPOUNDRULE 1\nCOMPOUNDRULE n*1t\n".utf8)) == Set("cn1t".utf8))
    }

    @Test func dictionaryIsReleasedWhenIdleAndLoadedAgainOnUse() throws {
        let base = try speller()
        let start = ContinuousClock.now
        let clock = Mutex(start)
        let s = Speller(language: "en_US", aff: base.affPath, dic: base.dicPath, autoRelease: false,
                        now: { clock.withLock { $0 } })
        #expect(!s.isLoaded && s.loadCount == 0)   // nothing loaded before the first use
        #expect(s.releaseIfIdle() == nil)
        #expect(!s.isCorrect("leter") && s.isLoaded && s.loadCount == 1)
        clock.withLock { $0 = start + .seconds(30) }
        #expect(s.releaseIfIdle() == Speller.idleRelease - .seconds(30))   // used 30 s ago: kept
        #expect(s.isLoaded)
        #expect(s.isCorrect("letter"))   // a use at +30 s resets the idle time
        clock.withLock { $0 = start + .seconds(30) + Speller.idleRelease - .milliseconds(1) }
        #expect(s.releaseIfIdle() != nil && s.isLoaded)
        clock.withLock { $0 = start + .seconds(30) + Speller.idleRelease }
        #expect(s.releaseIfIdle() == nil)
        #expect(!s.isLoaded && s.loadCount == 1)
        // The next use loads it again; suggestions made before the release are remembered.
        #expect(s.suggestions("freind").first == "friend")
        #expect(s.isLoaded && s.loadCount == 2)
    }

    @Test func preloadLoadsOnAnotherThread() async throws {
        let base = try speller()
        let s = Speller(language: "en_US", aff: base.affPath, dic: base.dicPath, autoRelease: false)
        s.preload()
        s.load()   // waits for the preload (or loads first): one load either way
        #expect(s.isLoaded && s.loadCount == 1)
    }

    @Test func missingFilesGiveNoFindingsAndNoCrash() {
        let s = Speller(language: "xx_XX", aff: "/nonexistent/xx.aff", dic: "/nonexistent/xx.dic", autoRelease: false)
        #expect(s.isCorrect("anything"))
        #expect(s.suggestions("anything").isEmpty)
    }
}
