import Testing
@testable import TKCore

/// Word lists rewritten as trees of shared beginnings must match what the lists match, with the same
/// branch winning, everywhere the rewritten pattern is used (texts the prefilter has read).
@Suite struct ValeAlternationTests {
    @Test func wordsSharingABeginningShareABranchInTheirOrder() {
        #expect(ValeAlternation.tree(["be", "been", "being"], caseless: false) == "b(?:e(?:|en|ing))")
        // Different first letters cannot both match at one place: they keep their own branches.
        #expect(ValeAlternation.tree(["cat", "dog", "cow"], caseless: false) == "c(?:at|ow)|dog")
        // Under (?i) a capital and a small letter are one branch; without it, two.
        #expect(ValeAlternation.tree(["Apple", "apricot"], caseless: true) == "A(?:p(?:ple|ricot))")
        #expect(ValeAlternation.tree(["Apple", "apricot"], caseless: false) == "Apple|apricot")
    }

    @Test func onlyLongListsOfPlainWordsAreRewritten() {
        let words = (0..<ValeAlternation.minimumRun).map { "word\($0)" }
        let short = words.dropLast().joined(separator: "|")
        #expect(ValeAlternation.factored("(?m)\\b(?:\(short))\\b") == nil)
        let long = words.joined(separator: "|")
        let factored = ValeAlternation.factored("(?i)(?m)\\b(?:\(long))\\b")
        #expect(factored?.hasPrefix("(?i)(?m)\\b(?:w(?:o(?:r(?:d(?:") == true)
        // A branch that is a pattern stays where it is and splits the run around it.
        #expect(ValeAlternation.factored("\\b(?:[\\w]+ed|\(long))\\b")?.hasPrefix("\\b(?:[\\w]+ed|w(?:") == true)
        // Syntax the reader leaves alone.
        for p in ["(?x)(?:\(long))", "(?:(?-i)x|\(long))", "\\Q|\\E(?:\(long))", "(?#c)(?:\(long))", "(?:\(long)", "(?:\(long)))"] {
            #expect(ValeAlternation.factored(p) == nil, "\(p)")
        }
        // Capture groups keep their numbers: a capturing branch is not a plain word.
        let groups = try? ValeRegex("(?:(a)|\(long)|(b))").groupCount
        #expect(groups == 2)
    }

    /// A pattern with trees is compiled as written only when a text the prefilter has not read
    /// needs it; its groups are counted the same either way; one ICU refuses stays a compile error.
    @Test func theListAsWrittenIsCompiledAtItsFirstUse() throws {
        let long = (0..<ValeAlternation.minimumRun).map { "word\($0)" }.joined(separator: "|")
        let re = try ValeRegex("(?i)(\\w+) (?:\(long))\\b(?=(x)?)")
        #expect(re.isFactored && !re.hasCompiledPlain)
        #expect(re.groupCount == 2)
        let t = ValeText("The WORD3 and it word11 x")
        let trees = re.matches(in: t, prefiltered: true).map(\.groups)
        #expect(trees.count == 2)
        #expect(re.matches(in: t, startingAt: Array(0..<t.utf16Count)).map(\.groups) == trees)
        #expect(!re.hasCompiledPlain)
        #expect(re.matches(in: t).map(\.groups) == trees)
        #expect(re.hasCompiledPlain)
        // Without trees the pattern is compiled at once.
        #expect(try ValeRegex("(?i)\\b(?:a|b)\\b").hasCompiledPlain)
        // A syntax error outside the list is still one (the trees do not compile either).
        #expect(throws: ValeRegex.CompileError.self) { try ValeRegex("(?:\(long))[") }
        // An unbounded lookbehind with a list: bounded as before, then both forms.
        let behind = try ValeRegex("(?<=a+)(?:\(long))")
        #expect(behind.isFactored && behind.hasCompiledPlain)
    }

    /// Random lists (shared beginnings, words that begin others, repeats, mixed case) in Vale's
    /// templates, over random texts of those words and others: the factored pattern gives the same
    /// matches and groups as the list, scanned and tried at every place.
    @Test func theTreeMatchesWhatTheListMatches() throws {
        var rng = SplitMix(seed: 0x7a11_e47a)
        let stems = ["be", "bee", "been", "being", "bet", "Be", "con", "cont", "contain", "contained", "contents",
                     "I'd", "I'll", "it", "its", "it's", "on-line", "online", "on", "one", "once", "a", "an", "and",
                     "every day", "everyday", "every", "ever", "x", "x-ray", "Xray", "ss", "sss"]
        let fillers = ["the", "Been", "BEING", "contents.", "once,", "on-line!", "I'D", "x-rays", "beet", "and/or", "\n",
                       "—", "it’s", "one's", "e.g.", "(be)", "\"an\"", "EVERY DAY", "everyday's", "   ", "ss", "sSs"]
        let templates = ["(?i)\\b(be|is)\\b\\s*(?m)\\b(?:[\\w]+ed|%s)\\b", "(?i)(?m)\\b(?:%s)\\b", "(?m)\\b(?:%s)\\b", "(?m)(?:%s)", "(?i)\\b(am|is|was)\\b\\s*(?:[\\w]+ed|%s)\\b",
                         "(?i)(?:%s)(?=\\s)", "(?m)\\b(?:%s)+"]
        var checked = 0
        for round in 0..<120 {
            var words: [String] = []
            for _ in 0..<Int.random(in: ValeAlternation.minimumRun...40, using: &rng) {
                var w = stems.randomElement(using: &rng) ?? "be"
                if Bool.random(using: &rng) { w += ["d", "s", "ing", "er", " up", "-off"].randomElement(using: &rng) ?? "" }
                words.append(w)
            }
            let template = templates[round % templates.count]
            let pattern = VB.replaceAll(template, "%s", with: words.joined(separator: "|"))
            let re = try ValeRegex(pattern)
            #expect(re.isFactored, "\(pattern)")
            for _ in 0..<6 {
                var text = ""
                for _ in 0..<Int.random(in: 5...60, using: &rng) {
                    text += (Bool.random(using: &rng) ? words.randomElement(using: &rng) : fillers.randomElement(using: &rng)) ?? ""
                    text += [" ", " ", ", ", ". ", "\n", "", "-"].randomElement(using: &rng) ?? " "
                }
                let t = ValeText(text)
                let plain = re.matches(in: t).map { $0.groups }
                #expect(re.matches(in: t, prefiltered: true).map { $0.groups } == plain, "\(pattern) on \(text)")
                #expect(re.count(in: t, prefiltered: true) == plain.count)
                // Tried at every place, as the prefilter's places would have it.
                let everywhere = Array(0..<t.utf16Count)
                #expect(re.matches(in: t, startingAt: everywhere).map { $0.groups } == plain, "\(pattern) on \(text)")
                checked += 1
            }
        }
        #expect(checked == 720)
        // Vale's `raw` before its word template: `(?m)` inside the pattern.
        let raw = "(?i)\\b(am|is)\\b\\s*(?m)\\b(?:" + (0..<ValeAlternation.minimumRun).map { "w\($0)" }.joined(separator: "|") + ")\\b"
        #expect(ValeAlternation.factored(raw) != nil)
    }

    /// The tree as first written, on strings and a dictionary: the byte version gives the same text.
    static func referenceTree(_ words: [[Character]], caseless: Bool) -> String {
        func key(_ c: Character) -> Character { caseless ? Character(c.lowercased()) : c }
        var parts: [String] = []
        var segment: [[Character]] = []
        func flush() {
            var order: [Character] = []
            var groups: [Character: [[Character]]] = [:]
            for w in segment {
                guard let first = w.first else { continue }
                if groups[key(first)] == nil { order.append(key(first)) }
                groups[key(first), default: []].append(w)
            }
            for k in order {
                guard let g = groups[k] else { continue }
                if g.count == 1 { parts.append(String(g[0])); continue }
                parts.append(String(g[0][0]) + "(?:" + referenceTree(g.map { Array($0.dropFirst()) }, caseless: caseless) + ")")
            }
            segment = []
        }
        for w in words {
            if w.isEmpty { flush(); parts.append("") } else { segment.append(w) }
        }
        flush()
        return parts.joined(separator: "|")
    }

    @Test func theTreeIsWrittenAsTheStringVersionWroteIt() {
        var rng = SplitMix(seed: 0x3e_7e)
        let letters = Array("abAB -'1")
        for _ in 0..<500 {
            let words: [String] = (0..<Int.random(in: 0...30, using: &rng)).map { _ in
                String((0..<Int.random(in: 0...5, using: &rng)).map { _ in letters.randomElement(using: &rng) ?? "a" })
            }
            for caseless in [false, true] {
                #expect(ValeAlternation.tree(words, caseless: caseless) == Self.referenceTree(words.map(Array.init), caseless: caseless),
                        "\(words) \(caseless)")
            }
        }
    }
}
