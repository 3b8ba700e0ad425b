import CHunspell
import Foundation
import Testing
@testable import TKCore

/// Issue 15, speed: the compiled word table answers like `Hunspell_spell` without building Hunspell's
/// tables; its cache file is keyed, checked and rebuilt; an `.aff` it does not model falls back.
@Suite struct WordTableTests {
    static let aff = """
        SET UTF-8
        TRY esianrtolcdugmfphbyvkw
        ICONV 1
        ICONV ’ '
        NOSUGGEST !
        ONLYINCOMPOUND c
        COMPOUNDMIN 1
        COMPOUNDRULE 1
        COMPOUNDRULE n*1t
        PFX U Y 1
        PFX U   0     un         .
        PFX R N 1
        PFX R   0     re         .
        PFX E Y 1
        PFX E   e     o          e
        SFX S Y 3
        SFX S   y     ies        [^aeiou]y
        SFX S   0     s          [aeiou]y
        SFX S   0     s          [^y]
        SFX D Y 2
        SFX D   0     d          e
        SFX D   0     ed         [^ey]
        SFX N N 1
        SFX N   0     ness       .
        SFX M Y 1
        SFX M   0     's         .

        """

    static let dic = """
        17
        lock/USD
        fly/S
        toy/S
        bake/D
        kind/RN
        eat/ED
        Paris/M
        McDonald/M
        NASA
        darn/!S
        1/n1
        2/n1
        1th/tc
        well-being
        HF/S
        Hf
        RFC

        """

    /// A folder with the two files (and a cache folder), removed by the caller.
    static func dictionary(aff: String = aff, dic: String = dic) throws -> (dir: String, aff: String, dic: String) {
        let dir = NSTemporaryDirectory() + "tk-wordtable-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try aff.write(toFile: dir + "/xx_TEST.aff", atomically: true, encoding: .utf8)
        try dic.write(toFile: dir + "/xx_TEST.dic", atomically: true, encoding: .utf8)
        return (dir, dir + "/xx_TEST.aff", dir + "/xx_TEST.dic")
    }

    static func table(aff: String = aff, dic: String = dic) throws -> WordTable {
        guard case .rules(let rules) = AffixRules.parse(Array(aff.utf8)) else {
            Issue.record("not modelled")
            throw CancellationError()
        }
        return WordTable.build(rules: rules, dic: Array(dic.utf8))
    }

    @Test func parsesRulesWithStripsConditionsAndCrossProducts() throws {
        guard case .rules(let r) = AffixRules.parse(Array(Self.aff.utf8)) else { Issue.record("not modelled"); return }
        #expect(r.suffixes[UInt8(ascii: "S")]?.count == 3)
        let s = try #require(r.suffixes[UInt8(ascii: "S")]?.first)
        #expect(s.strip == ["y"] && s.add == ["i", "e", "s"] && s.cross)
        #expect(s.condition == [.noneOf(["a", "e", "i", "o", "u"]), .oneOf(["y"])])
        #expect(r.prefixes[UInt8(ascii: "R")]?.first?.cross == false)
        #expect(r.noSuggest == UInt8(ascii: "!") && r.onlyInCompound == UInt8(ascii: "c") && r.compoundMin == 1)
        #expect(r.compoundRules == [Array("n*1t".utf8)])
    }

    @Test func expandsEveryAcceptedForm() throws {
        let t = try Self.table()
        for w in ["lock", "locks", "locked", "unlock", "unlocks", "unlocked", "flies", "toys", "baked", "kind", "rekind",
                  "kindness", "eat", "oat", "oated", "eated", "Paris", "Paris's", "McDonald", "McDonald's", "NASA", "darn", "darns",
                  "well-being"] {
            #expect(t.spell(w), "\(w)")
        }
        // Conditions, strips, cross products (R and N are not cross), ONLYINCOMPOUND.
        for w in ["flys", "toies", "bakeed", "rekindness", "unlockeds", "unflies", "1th", "lockness", "oatness"] {
            #expect(!t.spell(w), "\(w)")
        }
    }

    @Test func caseRulesAreHunspells() throws {
        let t = try Self.table()
        // A lower-case entry: Capitalised and ALL-CAPS too, not mixed.
        #expect(t.spell("Lock") && t.spell("LOCK") && t.spell("Unlocked") && t.spell("UNLOCKED"))
        #expect(!t.spell("lOck") && !t.spell("LoCK"))
        // A Capitalised entry: ALL-CAPS too, never lower case.
        #expect(t.spell("PARIS") && !t.spell("paris"))
        // Mixed case: as written, and in ALL CAPS (Hunspell's hidden "Mcdonald"), not otherwise.
        #expect(t.spell("MCDONALD") && t.spell("MCDONALD'S"))
        #expect(!t.spell("Mcdonald") && !t.spell("mcdonald") && !t.spell("Nasa") && !t.spell("nasa"))
        // ’ is ', trailing dots, hyphenated words by their parts, numbers, compounds of COMPOUNDRULE.
        #expect(t.spell("Paris’s") && t.spell("lock.") && t.spell("toy-lock") && !t.spell("toy-lokc"))
        #expect(t.spell("1,000") && t.spell("11th") && t.spell("21th") && !t.spell("1th"))
    }

    @Test func noSuggestWordsAreAcceptedButNeverSuggested() throws {
        let t = try Self.table()
        #expect(t.spell("darn") && t.spell("darns"))
        #expect(!t.suggestable("darn") && !t.suggestable("Darns") && t.suggestable("lock"))
        let d = try Self.dictionary()
        defer { try? FileManager.default.removeItem(atPath: d.dir) }
        let s = Speller(language: "xx_TEST", aff: d.aff, dic: d.dic, autoRelease: false, cacheDirectory: d.dir + "/cache")
        #expect(!s.suggestions("darnn").contains("darn"))
        #expect(s.suggestions("lokc").contains("lock"))
        #expect(s.hunspellLoadCount == 0)
    }

    /// The table's verdict is Hunspell's on the hand-written dictionary, for words of every kind.
    @Test func answersLikeHunspellOnTheSmallDictionary() throws {
        let d = try Self.dictionary()
        defer { try? FileManager.default.removeItem(atPath: d.dir) }
        let t = try Self.table()
        guard let h = Hunspell_create(d.aff, d.dic) else { Issue.record("Hunspell_create failed"); return }
        defer { Hunspell_destroy(h) }
        let words = ["lock", "Locks", "LOCKED", "unlock", "UnLock", "flies", "flys", "Flies", "toys", "toies", "baked",
                     "bakeed", "kindness", "rekind", "rekindness", "Rekind", "eat", "oat", "oated", "Paris", "paris",
                     "PARIS", "Paris's", "PARIS'S", "McDonald", "MCDONALD", "Mcdonald", "McDonald's", "NASA", "Nasa",
                     "nasa", "NASA's", "darn", "DARNS", "1th", "11th", "21th", "12th", "1", "10", "1.5", "1..5", "well-being",
                     "Well-being", "toy-lock", "-lock", "lock-", "lock-toy-fly", "lock.", "Lock..", "lo", "l", "'lock",
                     "Lock's", "x-y",
                     // Hidden capitalised entries only where no real entry is spelt the same; ALL CAPS
                     // words broken at hyphens as Capitalised lower case.
                     "HF", "HFS", "Hfs", "Hf", "RFC", "RFC-12", "LOCK-TOY", "NASA-LOCK", "-LOCK", "MCDONALD'S-LOCK"]
        for w in words {
            #expect(t.spell(w) == (Hunspell_spell(h, w) != 0), "\(w): table \(t.spell(w))")
        }
    }

    @Test func cacheIsReadBackAndRebuiltWhenTheDictionaryChanges() throws {
        let d = try Self.dictionary()
        defer { try? FileManager.default.removeItem(atPath: d.dir) }
        let cache = d.dir + "/cache"
        func speller() -> Speller { Speller(language: "xx_TEST", aff: d.aff, dic: d.dic, autoRelease: false, cacheDirectory: cache) }
        let first = speller()
        #expect(first.isCorrect("unlocked") && first.tableBuildCount == 1 && first.hunspellLoadCount == 0)
        let file = WordTableCache.file(directory: cache, language: "xx_TEST", aff: d.aff, dic: d.dic)
        let attrs = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attrs[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let second = speller()
        #expect(second.isCorrect("unlocked") && !second.isCorrect("zebra"))
        #expect(second.tableBuildCount == 0 && second.usesTable)
        // A new word in the .dic: the cache's key no longer matches.
        try Self.dic.replacingOccurrences(of: "17\n", with: "18\nzebra/S\n").write(toFile: d.dic, atomically: true, encoding: .utf8)
        let third = speller()
        #expect(third.isCorrect("zebras") && third.tableBuildCount == 1)
    }

    @Test func corruptOrTruncatedCacheIsRebuiltNotTrusted() throws {
        let d = try Self.dictionary()
        defer { try? FileManager.default.removeItem(atPath: d.dir) }
        let cache = d.dir + "/cache"
        func speller() -> Speller { Speller(language: "xx_TEST", aff: d.aff, dic: d.dic, autoRelease: false, cacheDirectory: cache) }
        speller().load()
        let file = WordTableCache.file(directory: cache, language: "xx_TEST", aff: d.aff, dic: d.dic)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        let good = bytes
        // One bit flipped inside the word slots: the checksum catches it.
        bytes[bytes.count / 2] ^= 0x10
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let flipped = speller()
        #expect(flipped.isCorrect("unlocked") && !flipped.isCorrect("unlockd") && flipped.tableBuildCount == 1)
        // Rewritten whole by that rebuild (and read back by the next process); then truncated, emptied,
        // an old version.
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: file))).count == good.count)
        let reader = speller()
        #expect(reader.isCorrect("flies") && reader.usesTable && reader.tableBuildCount == 0)
        for broken in [Array(good.prefix(good.count - 8)), Array(good.prefix(100)), [], { var b = good; b[8] = 0; return b }()] {
            try Data(broken).write(to: URL(fileURLWithPath: file))
            let s = speller()
            #expect(s.isCorrect("flies") && !s.isCorrect("flys") && s.tableBuildCount == 1)
        }
    }

    @Test func unwritableCacheFolderMeansHunspellNotAnError() throws {
        let d = try Self.dictionary()
        defer { try? FileManager.default.removeItem(atPath: d.dir) }
        // The cache folder's place is a file: nothing can be created there.
        try "x".write(toFile: d.dir + "/blocked", atomically: true, encoding: .utf8)
        // Building the table costs more than Hunspell: without a cache to keep it, Hunspell answers.
        for dir in [d.dir + "/blocked/cache", nil] {
            let s = Speller(language: "xx_TEST", aff: d.aff, dic: d.dic, autoRelease: false, cacheDirectory: dir)
            #expect(s.isCorrect("unlocked") && !s.isCorrect("unlockd"))
            #expect(!s.usesTable && s.tableBuildCount == 0 && s.hunspellLoadCount == 1)
        }
    }

    @Test func unmodelledAffixFileFallsBackToHunspell() throws {
        for extra in ["FORBIDDENWORD X", "KEEPCASE K", "FLAG long", "BREAK 1\nBREAK -", "CIRCUMFIX Z", "COMPOUNDFLAG Y"] {
            let d = try Self.dictionary(aff: Self.aff + extra + "\n")
            defer { try? FileManager.default.removeItem(atPath: d.dir) }
            guard case .unmodelled = AffixRules.parse(Array((Self.aff + extra + "\n").utf8)) else {
                Issue.record("\(extra) parsed as modelled"); continue
            }
            let s = Speller(language: "xx_TEST", aff: d.aff, dic: d.dic, autoRelease: false, cacheDirectory: d.dir + "/cache")
            #expect(s.isCorrect("unlocked") || extra.hasPrefix("FLAG"))
            #expect(!s.usesTable && s.hunspellLoadCount == 1, "\(extra)")
            #expect(!FileManager.default.fileExists(atPath: d.dir + "/cache"))
        }
        // Continuation classes in an affix rule are not modelled either.
        let cont = Self.aff.replacingOccurrences(of: "SFX N   0     ness       .", with: "SFX N   0     ness/S     .")
        guard case .unmodelled = AffixRules.parse(Array(cont.utf8)) else { Issue.record("continuation parsed"); return }
    }

    /// What `check` does with a document (collect, look up, suggest) never creates Hunspell when the
    /// table serves en_US.
    @Test func checkingWithTheTableNeverLoadsHunspell() throws {
        let dir = NSTemporaryDirectory() + "tk-wordtable-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        guard case .success(let shared) = Speller.named("en_US") else { return }   // no en_US installed: nothing to test
        let s = Speller(language: "en_US", aff: shared.affPath, dic: shared.dicPath, autoRelease: false, cacheDirectory: dir)
        let doc = MarkdownDocument(bytes: Array("The quick brown fox jumpd over the lazy dog's kennel, unhappily.\n".utf8), fileName: "a.md")
        var collector = SpellCollector()
        let engine = HeuristicsEngine()
        doc.bytes.withUnsafeBufferPointer { p in
            let tokenizer = Tokenizer(lexicon: engine.lexicon)
            var tokens: [Token] = []
            var sentences: [Sentence] = []
            for block in doc.proseBlocks {
                tokenizer.tokenize(p, block: block, tokens: &tokens, sentences: &sentences)
                collector.collect(p, tokens: tokens, allowed: [Bool](repeating: false, count: tokens.count))
            }
        }
        let hits = collector.unknown(in: doc, speller: s, project: ProjectWords(), cap: 10)
        #expect(hits.map { doc.text($0.start..<$0.end) } == ["jumpd"])
        let suggested = hits.first?.replacements ?? []
        #expect(!suggested.isEmpty && suggested.allSatisfy { s.isCorrect($0) }, "\(suggested)")
        #expect(s.usesTable && s.loadCount == 1 && s.hunspellLoadCount == 0)
    }
}
