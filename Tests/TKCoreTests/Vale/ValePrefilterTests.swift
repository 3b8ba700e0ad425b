import Foundation
import Testing
@testable import TKCore

@Suite struct ValePrefilterTests {
    @Test func literalsOfTypicalRulePatterns() {
        // A word list under Vale's word template: the words themselves.
        #expect(ValeLiterals.required("(?i)(?m)\\b(?:very|quite|really)\\b") == ["very", "quite", "really"])
        // Case folded; an escaped dot is a literal; a class of one letter in two cases is that letter.
        #expect(ValeLiterals.required("\\b[Ee]\\.g\\.") == ["e.g."])
        // Alternatives with a class part keep their literal part.
        #expect(ValeLiterals.required("(?i)\\b(?:[\\w]+ed|awoken)\\b") == ["ed", "awoken"])
        // The best required run of a concatenation: here the longer word.
        #expect(ValeLiterals.required("utilize\\s+\\w+\\s+resources") == ["resources"])
        // Small exact sets multiply out.
        #expect(ValeLiterals.required("(?:a|an) (?:hour|honest)") == ["a hour", "a honest", "an hour", "an honest"])
        // Lookarounds and named groups.
        #expect(ValeLiterals.required("(?<!-)(?P<x>figure)(?= out)") == ["figure"])
        #expect(ValeLiterals.required("(?:fo){2,3}bars") == ["bars"])
    }

    /// Reading a run of plain characters as one literal gives what reading them one by one gives:
    /// the same required literals and leads, over patterns made of every construct the reader knows.
    @Test func literalRunsReadAsTheirCharactersDo() {
        var state: UInt64 = 20_261_201
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        let pieces = ["a", "B", "c", "word", "Two Words", " ", "e\\.g\\.", "\\b", "\\s+", "\\w", ".", "[Ee]", "[^,]",
                      "?", "*", "+", "{2}", "{1,3}", "??", "(?:", "(", "(?i)", "(?<!x)", "(?=y)", ")", "|", "^", "$",
                      "é", "{", "}", "]", "x{2,}", "-", "'s"]
        var fixed = ["(?i)\\b(?:very|quite|really)\\b", "utilize\\s+\\w+\\s+resources", "(?:a|an) (?:hour|honest)",
                     "colou?r", "abc{2}", "ab+c", "(?:fo){2,3}bars", "(?i)(?:\\b|_)(?:in order to|a number of)(?:\\b|_)"]
        for _ in 0..<3000 {
            fixed.append((0..<(1 + next(10))).map { _ in pieces[next(pieces.count)] }.joined())
        }
        for p in fixed {
            #expect(ValeLiterals.required(p) == ValeLiterals.required(p, literalRuns: false), "\(p)")
            let a = ValeLiterals.leads(p), b = ValeLiterals.leads(p, literalRuns: false)
            #expect(a?.literals == b?.literals && a?.skip == b?.skip, "\(p)")
        }
    }

    /// The byte helpers that stand in for Foundation's string calls in the rules do what Go's do.
    @Test func byteHelpersDoWhatGoDoes() {
        #expect(VB.split("a|b||c", "|") == ["a", "b", "", "c"])
        #expect(VB.split("", "|") == [""])
        #expect(VB.split("no separator", "|") == ["no separator"])
        #expect(VB.replaceFirst("Use '%s' not '%s'.", "'%s'", with: "%s") == "Use %s not '%s'.")
        #expect(VB.replaceFirst("nothing", "'%s'", with: "%s") == "nothing")
        #expect(VB.count(Array("'%s' '%s'".utf8), Array("'%s'".utf8)) == 2)
        #expect(VB.replaceAll("(?m)\\b(?:%s)\\b|%s", "%s", with: "a|b") == "(?m)\\b(?:a|b)\\b|a|b")
        #expect(VB.replaceAll("(?P<x>a)(?P<y>b)", "(?P<", with: "(?<") == "(?<x>a)(?<y>b)")
        #expect(VB.replaceAll("%%ss", "%s", with: "") == "%s")
        #expect(VB.replaceAll("nothing", "%s", with: "x") == "nothing")
        // Bytes, as Go: a combining mark after the directive does not hide it.
        #expect(VB.replaceAll("%s\u{301}", "%s", with: "e") == "e\u{301}")
        // `^\d+\.`: digits of any script, then a full stop.
        #expect(VB.startsWithNumberAndDot("12."))
        #expect(VB.startsWithNumberAndDot("\u{663}.") )        // Arabic-Indic three
        #expect(VB.startsWithNumberAndDot("3.5"))
        #expect(!VB.startsWithNumberAndDot("3"))
        #expect(!VB.startsWithNumberAndDot("."))
        #expect(!VB.startsWithNumberAndDot("a1."))
        #expect(!VB.startsWithNumberAndDot("\u{2162}."))      // Roman numeral three: a letter number, not Nd
        for s in ["12.", "\u{663}.", "3", ".", "a1.", "\u{2162}.", "1a.", "", "7.x"] {
            #expect(VB.startsWithNumberAndDot(s) == (s.range(of: "^\\d+\\.", options: .regularExpression) != nil), "\(s)")
        }
    }

    /// Where an anchored pattern is tried: each place once, in order, also `skip` units before a lead.
    @Test func anchoredStartsAreSortedOnce() throws {
        let a = try ValeRegex("(?i)\\b(?:very|very good|good)\\b")
        let b = try ValeRegex("(?:^|\\s)good")
        let pf = ValePrefilter([a, b])
        let text = "good, very good. Very good!"
        let hits = pf.hits(text)
        let sa = try #require(pf.starts(a, hits))
        #expect(sa == sa.sorted() && Set(sa).count == sa.count)
        #expect(Set(sa) == [0, 6, 11, 17, 22])
        // "good" at 0, 11 and 22, each also one unit before (the space the pattern may start with).
        let sb = try #require(pf.starts(b, hits))
        #expect(sb == [0, 10, 11, 21, 22])
    }

    @Test func patternsWithoutARequiredLiteralAlwaysRun() {
        #expect(ValeLiterals.required("[^\\s]+") == nil)
        #expect(ValeLiterals.required("colou?r|\\d+") == nil)     // one alternative needs no literal
        #expect(ValeLiterals.required("(?x) a b ") == nil)          // free spacing: not read
        #expect(ValeLiterals.required("\\1abc") == nil)             // back reference: not read
        #expect(ValeLiterals.required("(?:x)?") == nil)
        #expect(ValeLiterals.required("a|") == nil)
        #expect(ValeLiterals.required("(unclosed") == nil)
        #expect(ValeLiterals.required("über") == nil || ValeLiterals.required("über") == ["ber"])
    }

    @Test func automatonTellsWhichPatternsCanMatch() throws {
        let a = try ValeRegex("(?i)\\b(?:very|quite)\\b")
        let b = try ValeRegex("\\butilize\\b")
        let c = try ValeRegex("[^\\s]+")
        let pf = ValePrefilter([a, b, c])
        #expect(pf.count == 2)
        let hits = pf.hits("It is VERY good.")
        #expect(pf.mayMatch(a, hits))
        #expect(!pf.mayMatch(b, hits))
        #expect(pf.mayMatch(c, hits))              // unknown literals: always runs
        // Literals across non-ASCII text, found after a non-ASCII character.
        let h2 = pf.hits("Café — we utilize it")
        #expect(!pf.mayMatch(a, h2) && pf.mayMatch(b, h2))
        // A character whose case mapping is ASCII (long s, Kelvin sign) may match a literal under
        // (?i): every pattern runs.
        #expect(pf.hits("Quiſe") == nil)
        // Capital sharp s: its lower case `ß` is folded to `ss` by ICU's (?i), though neither maps to ASCII.
        #expect(pf.hits("STRAẞE quite") == nil)
        #expect(ValePrefilter.mapsToASCII("ẞ") && ValePrefilter.mapsToASCII("ß") && ValePrefilter.mapsToASCII("K"))
        #expect(!ValePrefilter.mapsToASCII("’") && !ValePrefilter.mapsToASCII("é") && !ValePrefilter.mapsToASCII("—"))
        #expect(a.isMatch("qUITE") && pf.mayMatch(a, pf.hits("qUITE")))
    }

    /// The prefilter skips only what cannot match: a rule set's findings equal the regexes' own.
    @Test func prefilterKeepsEveryMatch() throws {
        let patterns = ["(?i)\\b(?:very|quite|e\\.g\\.)\\b", "\\b[Aa]n? (?:hour|apple)\\b", "(?i)(?:colou?r|hue)s?", "(?<=the )best"]
        let res = try patterns.map { try ValeRegex($0) }
        let pf = ValePrefilter(res)
        let texts = ["Very Best of the best, e.g. An apple", "A HOUR of colour", "nothing here", "ſo quite", "COLOR and hues"]
        for t in texts {
            let hits = pf.hits(t)
            for re in res where !pf.mayMatch(re, hits) {
                #expect(re.matches(in: ValeText(t)).isEmpty, "\(re.pattern) on \(t)")
            }
        }
        #expect(!pf.mayMatch(res[0], pf.hits("nothing here")))
    }

    /// `locate` (the search behind Vale's columns) reads the masked prefix without copying it.
    @Test func locateMatchesTheMaskedSearch() {
        let ctx = Array("very-good very_x `very` very very\nvery".utf8)
        // Masked prefix: as if everything before byte 10 were `@`.
        let (pos, _) = ValeFileLinter.locate(ctx, Array("very".utf8), from: 10)
        var masked = ctx
        for i in 0..<10 where masked[i] != 10 { masked[i] = 64 }
        let (ref, _) = ValeFileLinter.locate(masked, Array("very".utf8), from: 0)
        #expect(pos == ref)
        // Prefers a place not next to a backtick; the underscore form counts from after the `_`.
        #expect(ValeFileLinter.locate(Array("x `very` y very".utf8), Array("very".utf8), from: 0).0 == 12)
        #expect(ValeFileLinter.locate(Array("a_very b".utf8), Array("very".utf8), from: 0).0 == 3)
        #expect(ValeFileLinter.locate(ctx, Array("absent".utf8), from: 0).0 == -1)
        // Runes, not bytes.
        #expect(ValeFileLinter.locate(Array("é é very".utf8), Array("very".utf8), from: 0).0 == 5)
    }
}

@Suite struct ValeWatchInputTests {
    /// The watcher turns a change of the Vale styles (not documents) into a project-wide refresh.
    @Test func valeFilesAreProjectInputs() {
        #expect(TreeWatcher.isValeInput(PathBytes(".vale.ini")))
        #expect(TreeWatcher.isValeInput(PathBytes("_vale")))
        #expect(TreeWatcher.isValeInput(PathBytes("styles/House/Terms.yml")))
        #expect(TreeWatcher.isValeInput(PathBytes("styles/config/vocabularies/Team/accept.txt")))
        #expect(TreeWatcher.isValeInput(PathBytes("styles/config/dictionaries/en_GB.dic")))
        #expect(!TreeWatcher.isValeInput(PathBytes("notes/.vale.ini")))   // Vale reads the root's (or a parent's)
        #expect(!TreeWatcher.isValeInput(PathBytes("notes/todo.txt")))
        #expect(!TreeWatcher.isValeInput(PathBytes("vale.ini.bak")))
    }
}

@Suite struct ValeSemanticsTests {
    /// A `{` that opens no repetition is literal, as in Go (Hugo shortcodes in BlockIgnores).
    @Test func literalBracesCompile() throws {
        let re = try ValeRegex("(?s) *({{< ?file [^>]* ?>}}.*?{{< ?/file ?>}})")
        #expect(re.isMatch("{{< file \"a.py\" >}}\ncode\n{{< /file >}}"))
        #expect(try ValeRegex("a{2}\\p{L}{1,}").isMatch("aaé"))
        #expect(try !ValeRegex("a{2}").isMatch("a{2}"))
    }

    /// A repetition across inline markup (`[… in](link) in`) is not in the context as such: Vale
    /// places it at the start of the line that holds its sentence's words.
    @Test func guessedLocationForJoinedMarkup() throws {
        let root = TestScratch.path("vale-guess")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try "[*.md]\nBasedOnStyles = Vale\n".write(toFile: root + "/.vale.ini", atomically: true, encoding: .utf8)
        let e = ValeEngine(configuration: try ValeConfiguration.load(path: root + "/.vale.ini"), root: root)
        let text = "Some words here.\nAnd were [added to the API in](https://x.example/a) in GitLab.\n"
        let f = e.findings(bytes: Array(text.utf8), relativePath: "t.md").filter { $0.rule == "Vale.Repetition" }
        #expect(f.map { "\($0.line):\($0.column):\($0.message)" } == ["2:1:'in' is repeated!"])
    }
}

@Suite struct ValeAnchoredTests {
    @Test func leadingLiterals() {
        func leads(_ p: String) -> [String]? { ValeLiterals.leads(p).map { $0.literals.sorted() } }
        func skip(_ p: String) -> Int? { ValeLiterals.leads(p)?.skip }
        #expect(leads("(?i)(?m)\\b(?:very|Quite)\\b") == ["quite", "very"])
        #expect(leads("(?i)\\b(am|is)\\b\\s*\\b(?:[\\w]+ed|awoken)\\b") == ["am", "is"])
        #expect(leads("\\b(?:very|quite)?x") == ["quitex", "veryx", "x"])      // an optional group extends
        #expect(leads("(?:very|quite)|x") == ["quite", "very", "x"])            // alternation at the top
        #expect(leads("(?<=a)(?:b|c)") == ["b", "c"])                           // a lookbehind is zero-width
        #expect(leads("(?:\\w+ly|very)") == nil)                              // one alternative starts anywhere
        #expect(leads("a*b") == nil)
        #expect(leads("\\w+ly") == nil)
        // Literals not at the start: the match may begin a few units before them.
        #expect(leads("(?:^|\\s)I(?=\\s)|\\bme\\b") == ["i", "me"])
        #expect(skip("(?:^|\\s)I(?=\\s)|\\bme\\b") == 1)
        #expect(leads("[a-z][.?!] {2,}[A-Z]") == ["! ", ". ", "? "])         // a small class is literals
        #expect(skip("[a-z][.?!] {2,}[A-Z]") == 2)                             // one character before them
        #expect(leads("[a-z]\\.\\s+[A-Z]") == ["."])
        #expect(leads("\\s+x") == nil)                                         // no bound before the literal
        // A literal followed by a lookahead or a repetition still leads.
        #expect(leads("(?i)(?m)\\b(?:all of (?!a sudden|these)|a (?:large)? majority of)\\b")
                == ["a  majority of", "a large majority of", "all of "])
        #expect(leads("(?:foo)*bar") == nil)
        #expect(leads("x(?:foo)*bar") == ["x", "xfoo"])
    }

    /// Anchored matching at the literals' starts finds what a scan of the whole text finds,
    /// word boundaries and lookbehinds seeing the text before the start.
    @Test func anchoredMatchesEqualTheScan() throws {
        let patterns = ["(?i)(?m)\\b(?:very|quite|e\\.g\\.)\\b", "(?i)\\b(am|is|be)\\b\\s*\\b(?:[\\w]+ed|born)\\b",
                        "(?m)^(?:Note|Tip)\\b", "(?:ab|abc)(?<=c)", "(?i)(?:^|\\s)I(?=\\s)|\\bme\\b",
                        "(?i)\\b(?:all of (?!a sudden|these)|a (?:large)? majority of)\\b", "[a-z]\\.\\s?Note"]
        let res = try patterns.map { try ValeRegex($0) }
        let pf = ValePrefilter(res)
        let texts = ["Very good, quite veryquite very. E.g. this", "It is finished and I am born. This is bed.",
                     "x Note\nNote: Tip", "xabc abc ab", "É very — quite", "I think I\tmean me, and i said: I",
                     "All of these, all of them, all of a sudden; a large majority of you", "end. Note a.Note"]
        for t in texts {
            let text = ValeText(t)
            let h = pf.hits(t)
            for re in res {
                let all = re.matches(in: text).map(\.range)
                if let starts = pf.starts(re, h) {
                    #expect(re.matches(in: text, startingAt: starts).map(\.range) == all, "\(re.pattern) on \(t)")
                }
            }
        }
        #expect(pf.starts(res[0], pf.hits("very")) == [0])
    }
}
