import Foundation
import Testing
@testable import TKCore

/// A throwaway project: `.vale.ini`, a `styles/House` folder of rules written here, documents.
private struct Project {
    let root: String
    init(ini: String, rules: [String: String], vocab: (accept: [String], reject: [String])? = nil) throws {
        root = TestScratch.path("vale")
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/styles/House", withIntermediateDirectories: true)
        try ini.write(toFile: root + "/.vale.ini", atomically: true, encoding: .utf8)
        for (name, body) in rules {
            try body.write(toFile: root + "/styles/House/\(name).yml", atomically: true, encoding: .utf8)
        }
        if let vocab {
            let dir = root + "/styles/config/vocabularies/Team"
            try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try vocab.accept.joined(separator: "\n").write(toFile: dir + "/accept.txt", atomically: true, encoding: .utf8)
            try vocab.reject.joined(separator: "\n").write(toFile: dir + "/reject.txt", atomically: true, encoding: .utf8)
        }
    }
    func engine() throws -> ValeEngine {
        ValeEngine(configuration: try ValeConfiguration.load(path: root + "/.vale.ini"), root: root)
    }
    /// `file:line:col:Rule:message` lines, as `vale --output=line` prints them.
    ///
    /// Every case also checks `check`'s way: the document walked on a thread of its own and its
    /// rules shared among one to three threads give the same findings, in the same order.
    func lint(_ text: String, as name: String = "test.md") throws -> [String] {
        let engine = try engine()
        let bytes = Array(text.utf8)
        let inline = engine.findings(bytes: bytes, relativePath: name)
        for threads in 1...3 {
            let walk = ValeDocumentWalk(bytes: bytes, relativePath: name, configuration: engine.configuration)
            #expect(engine.findings(bytes: bytes, walk: walk, threads: threads) == inline, "\(threads) threads")
        }
        return inline.map { "\($0.line):\($0.column):\($0.rule):\($0.message)" }
    }
}

private let baseIni = """
StylesPath = styles
MinAlertLevel = suggestion

[*.md]
BasedOnStyles = House
"""

@Suite struct ValeEngineTests {
    /// Go's `strings.Index` from an offset, for one byte (memchr) and longer needles (memmem) alike.
    @Test func byteSearchFromAnOffset() {
        let hay = Array("ab\ncd\nab".utf8)
        for (needle, from, want) in [("\n", 0, 2), ("\n", 3, 5), ("\n", 6, nil), ("ab", 1, 6), ("b", 2, 7), ("x", 0, nil),
                                     ("", 4, 4), ("\n", 9, nil), ("b", 8, nil)] as [(String, Int, Int?)] {
            #expect(VB.index(hay, Array(needle.utf8), from: from) == want, "\(needle) from \(from)")
        }
        #expect(VB.count(Array("a\nb\n\n".utf8), [10]) == 3)
    }

    /// `VB.trimmed` trims what Foundation's `.whitespacesAndNewlines` trims, every such character.
    @Test func trimmingEqualsFoundations() {
        let spaces = ["", " ", "\t", "\n", "\r\n", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}", "\u{1680}", "\u{2003}", "\u{200A}",
                      "\u{2028}", "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}", "\u{200B}", "\u{FEFF}", "\u{301}"]
        for a in spaces {
            for b in spaces {
                for body in ["", "word", "two words", "é\u{301}", "a\u{2003}b"] {
                    let s = a + body + b + a
                    #expect(VB.trimmed(s) == s.trimmingCharacters(in: .whitespacesAndNewlines), "\(s.debugDescription)")
                    #expect(VB.trimmed(s[...]) == s.trimmingCharacters(in: .whitespacesAndNewlines))
                }
            }
        }
    }

    /// `VB.string` encodes scalars of one to four UTF-8 bytes as the standard library does.
    @Test func scalarsBecomeTheSameString() {
        let text = "plain ASCII, café, naïve é\u{301}, \u{2014} dash, 日本語, emoji 👩\u{200D}💻 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢\u{0}\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}"
        let sc = Array(text.unicodeScalars)
        for lo in stride(from: 0, to: sc.count, by: 3) {
            for hi in stride(from: lo, through: sc.count, by: 5) {
                #expect(VB.string(sc[lo..<hi]) == String(String.UnicodeScalarView(sc[lo..<hi])))
            }
        }
        #expect(VB.string([][...]) == "")
    }

    /// A paragraph ends after the first blank line, found in bytes as Go finds it.
    @Test func paragraphsEndAfterTheFirstBlankLine() {
        let s: Substring = "one\ntwo\n\nthree\n\n\nfour"[...]
        let end = ValeFileLinter.afterBlankLine(s)
        #expect(end.map { String(s[..<$0]) } == "one\ntwo\n\n")
        #expect(end.flatMap { ValeFileLinter.afterBlankLine(s[$0...]) }.map { String(s[$0...]) } == "\nfour")
        #expect(ValeFileLinter.afterBlankLine("no blank\nline\n"[...]) == nil)
        // A combining mark after the blank line does not hide it (Foundation's search would).
        let combining: Substring = "a\n\n\u{301}b"[...]
        #expect(ValeFileLinter.afterBlankLine(combining).map { String(combining[..<$0]) } == "a\n\n")
    }

    @Test func existenceFindsTokensWithValeColumnsAndSkipsCode() throws {
        let p = try Project(ini: baseIni, rules: ["Weasel": """
            extends: existence
            message: "Avoid '%s'."
            ignorecase: true
            level: warning
            tokens:
              - very
              - quite
            """])
        let text = "# Title\n\nThis is Very good, `very` in code.\n\n```\nvery\n```\n\nQuite — über quite.\n"
        #expect(try p.lint(text) == [
            "3:9:House.Weasel:Avoid 'Very'.",
            "9:1:House.Weasel:Avoid 'Quite'.",
            "9:14:House.Weasel:Avoid 'quite'.",
        ])
    }

    @Test func substitutionCarriesTheReplacementAndFormatsTheMessage() throws {
        let p = try Project(ini: baseIni, rules: ["Terms": """
            extends: substitution
            message: "Use '%s' instead of '%s'."
            level: error
            ignorecase: true
            action:
              name: replace
            swap:
              utilise: use
              e-mail: email
            """])
        let f = try p.engine().findings(bytes: Array("Please utilise the\ne-mail form.\n".utf8), relativePath: "test.md")
        #expect(f.map { "\($0.line):\($0.column):\($0.message)" } == ["1:8:Use 'use' instead of 'utilise'.", "2:1:Use 'email' instead of 'e-mail'."])
        #expect(f.first?.replacements == ["use"])
        #expect(f.first?.severity == .error)
        #expect(f.first?.category == .vale)
        #expect(f.first?.text == "utilise")
    }

    /// Vale reads rules with Go's yaml.v2, where a repeated key is not an error and the last value
    /// wins; Yams refuses the file, which would drop the whole rule.
    @Test func aRepeatedKeyKeepsTheRuleAndTheLastValueWins() throws {
        let p = try Project(ini: baseIni, rules: ["Terms": """
            extends: substitution
            message: "Use '%s' instead of '%s'."
            level: warning
            level: error
            swap:
              utilise: employ
              'e-mail': email
              utilise: use
            """])
        let e = try p.engine()
        #expect(e.problems.isEmpty)
        let f = e.findings(bytes: Array("Please utilise the\ne-mail form.\n".utf8), relativePath: "test.md")
        #expect(f.map { "\($0.line):\($0.column):\($0.message)" } == ["1:8:Use 'use' instead of 'utilise'.", "2:1:Use 'email' instead of 'e-mail'."])
        #expect(f.first?.severity == .error)
        // The same key in two mappings is not a repeat; an entry's value block goes with it.
        let kept = ValeYAML.keepingLastOfRepeatedKeys("""
            a:
              k: 1
            b:
              k: 2
            k:
              - x
              - y
            k: 3
            """, keys: ["k"])
        #expect(kept == "a:\n  k: 1\nb:\n  k: 2\nk: 3")
        // A flow mapping is left to Yams: its error stands.
        #expect(throws: (any Error).self) { try ValeYAML.load("swap: {a: 1, a: 2}") }
    }

    @Test func occurrenceRepetitionAndConsistency() throws {
        let p = try Project(ini: baseIni, rules: [
            "Long": """
            extends: occurrence
            message: "More than 5 words (%s)."
            scope: sentence
            level: suggestion
            max: 5
            token: '\\b(\\w+)\\b'
            """,
            "Again": """
            extends: repetition
            message: "'%s' is repeated."
            alpha: true
            tokens:
              - '[^\\s]+'
            """,
            "Spell": """
            extends: consistency
            message: "Inconsistent spelling of '%s'."
            either:
              colour: color
            """,
        ])
        let out = try p.lint("One two three four five six seven.\n\nThe the colour and the color.\n")
        #expect(out.contains("1:1:House.Long:More than 5 words (7)."))
        #expect(out.contains("3:1:House.Again:'the' is repeated.") == false) // "The the" differs in case
        #expect(out.contains("3:24:House.Spell:Inconsistent spelling of 'color'."))
        let rep = try p.lint("It is is here.\n")
        #expect(rep.contains("1:4:House.Again:'is' is repeated."))
    }

    @Test func capitalizationAndConditionalOnTheirScopes() throws {
        let p = try Project(ini: baseIni, rules: [
            "Heads": """
            extends: capitalization
            message: "'%s' should be in sentence case."
            scope: heading
            match: $sentence
            """,
            "Acronyms": """
            extends: conditional
            message: "'%s' has no definition."
            first: '\\b([A-Z]{3,5})\\b'
            second: '(?:\\b[A-Z][a-z]+ )+\\(([A-Z]{3,5})\\)'
            exceptions:
              - API
            """,
        ])
        let out = try p.lint("# A Heading In Title Case\n\n## A fine heading\n\nThe World Health Organization (WHO) and WHO. The NBA and the API.\n")
        #expect(out == [
            "1:3:House.Heads:'A Heading In Title Case' should be in sentence case.",
            "5:50:House.Acronyms:'NBA' has no definition.",
        ])
    }

    /// `check` shares a document's rules among threads (`lint` above compares every case with one
    /// linter): ties at one place keep the rules' order, conditional rules still see what the others
    /// noted, and the walker's comments, counts and masks reach every share.
    @Test func rulesSharedAmongThreadsReportWhatOneLinterReports() throws {
        let p = try Project(ini: baseIni, rules: [
            "A1": "extends: existence\nmessage: \"a1 '%s'\"\ntokens:\n  - very\n",
            "A2": "extends: existence\nmessage: \"a2 '%s'\"\ntokens:\n  - very\n  - really\n",
            "A3": "extends: substitution\nmessage: \"Use '%s' for '%s'.\"\nswap:\n  utilize: use\n  very: quite\n",
            "A4": "extends: occurrence\nmessage: \"Long (%s).\"\nscope: sentence\nmax: 6\ntoken: '\\b(\\w+)\\b'\n",
            "A5": "extends: repetition\nmessage: \"'%s' again.\"\ntokens:\n  - '[^\\s]+'\n",
            "Def1": """
            extends: conditional
            message: "'%s' is not defined."
            first: '\\b([A-Z]{3,5})\\b'
            second: '(?:\\b[A-Z][a-z]+ )+\\(([A-Z]{3,5})\\)'
            """,
            "Def2": """
            extends: conditional
            message: "'%s' is not defined either."
            first: '\\b([A-Z]{3,5})\\b'
            second: 'never(ZZZZ)'
            """,
            "Heads": "extends: capitalization\nmessage: \"'%s' in sentence case.\"\nscope: heading\nmatch: $sentence\n",
            "Lists": "extends: metric\nmessage: \"%s lists.\"\nformula: list\ncondition: \"> 1\"\n",
            "Spell": "extends: consistency\nmessage: \"Inconsistent '%s'.\"\neither:\n  colour: color\n",
        ])
        let text = """
            # A Heading In Title Case

            The World Health Organization (WHO) said very little. We utilize the the colour and the color.

            <!-- vale House.A1 = NO -->

            - very one
            - really two

            <!-- vale House.A1 = YES -->

            - very three, and a sentence that goes on for more than six words.

            ![very alt text](x.png)

            """
        let out = try p.lint(text)
        // The same word flagged by three rules, two of them in one share: the rules' order, as one
        // linter reports it.
        #expect(out.filter { $0.hasPrefix("3:42:") } == ["3:42:House.A1:a1 'very'", "3:42:House.A2:a2 'very'",
                                                       "3:42:House.A3:Use 'quite' for 'very'."])
        // WHO is defined for Def2 by what Def1 noted.
        #expect(!out.contains { $0.contains("not defined either") && $0.contains("'WHO'") })
        #expect(out.contains("7:3:House.A2:a2 'very'") && !out.contains("7:3:House.A1:a1 'very'"))
        #expect(out.contains("1:1:House.Lists:3.00 lists."))
    }

    @Test func metricUsesDocumentCounts() throws {
        let p = try Project(ini: baseIni, rules: ["Lists": """
            extends: metric
            message: "This topic has %s lists and headings."
            formula: heading.h2 + list
            condition: "> 1"
            """])
        #expect(try p.lint("## One\n\nSome words here.\n\n- item\n") == ["1:1:House.Lists:This topic has 2.00 lists and headings."])
        #expect(try p.lint("Some words here.\n") == [])
        // The whole document's counts, not those of the text read so far.
        #expect(try p.lint("## One\n\nSome words.\n\n- item\n\nMore.\n\n## Two\n\nText.\n\n## Three\n\nText.\n")
                == ["1:1:House.Lists:This topic has 4.00 lists and headings."])
    }

    @Test func metricCountsWordsAsValeDoes() throws {
        // Words are runs of letters, digits and apostrophes, or dotted acronyms ("e-mail" is two,
        // "U.S.A." one); a long word has more than six bytes ("Naïves": 7, "scores": 6).
        let p = try Project(ini: baseIni, rules: ["Counts": """
            extends: metric
            message: "%s"
            formula: words * 100 + long_words * 10 + sentences
            condition: "> 0"
            """])
        #expect(try p.lint("U.S.A. e-mail scores. Naïves score!\n") == ["1:1:House.Counts:612.00"])
    }

    @Test func readabilityAveragesTheNamedGradesOverTheDocument() throws {
        let p = try Project(ini: baseIni, rules: ["Grade": """
            extends: readability
            message: "Grade level (%s) too high!"
            level: warning
            grade: 8
            metrics:
              - Flesch-Kincaid
              - Automated Readability
            """, "Bad": """
            extends: readability
            message: "x"
            grade: 8
            metrics:
              - Readability Magic
            """])
        #expect(try p.lint("# Easy\n\nThe cat sat. The dog ran. We had fun.\n") == [])
        let hard = "# Hard\n\nNotwithstanding considerable organizational uncertainty, the administrative committee " +
            "unanimously recommended comprehensive institutional reconsideration of longstanding interdepartmental " +
            "communication responsibilities, emphasizing transparency, accountability and sustainability.\n"
        let out = try p.lint(hard)
        #expect(out.count == 1)
        #expect(out.first?.hasPrefix("1:1:House.Grade:Grade level (") == true)
        #expect(try p.engine().problems.contains { $0.contains("Readability Magic") })
    }

    @Test func commentsSwitchRulesInsideTheDocument() throws {
        let p = try Project(ini: baseIni, rules: ["Weasel": "extends: existence\nmessage: \"'%s'\"\ntokens:\n  - very\n"])
        let text = "very one\n\n<!-- vale off -->\n\nvery two\n\n<!-- vale on -->\n\nvery three\n\n<!-- vale House.Weasel = NO -->\n\nvery four\n\n<!-- vale House.Weasel = YES -->\n\nvery five\n"
        #expect(try p.lint(text) == ["1:1:House.Weasel:'very'", "9:1:House.Weasel:'very'", "17:1:House.Weasel:'very'"])
    }

    @Test func iniSectionsLevelsAndMinAlertLevel() throws {
        let rules = ["Weasel": "extends: existence\nmessage: \"'%s'\"\nlevel: suggestion\ntokens:\n  - very\n",
                     "Hedge": "extends: existence\nmessage: \"hedge '%s'\"\ntokens:\n  - maybe\n"]
        let ini = """
            StylesPath = styles

            [*]
            BasedOnStyles = House

            [*.md]
            House.Hedge = NO

            [special.md]
            House.Hedge = YES
            House.Weasel = error
            House.Missing = YES
            """
        let p = try Project(ini: ini, rules: rules)
        // Hedge is off for *.md. As in Vale, a level set in any section applies to the rule everywhere:
        // Weasel (a suggestion, under the default MinAlertLevel warning) shows as an error.
        #expect(try p.lint("very maybe\n") == ["1:1:House.Weasel:'very'"])
        // [special.md] switches Hedge back on and raises Weasel to error.
        let f = try p.engine().findings(bytes: Array("very maybe\n".utf8), relativePath: "special.md")
        #expect(f.map(\.rule) == ["House.Weasel", "House.Hedge"])
        #expect(f.first?.severity == .error)
        #expect(ValeGlob("*.{md,py}").matches("a/b.py") && ValeGlob("*.md").matches("deep/er/x.md") && !ValeGlob("*.md").matches("x.txt"))
    }

    @Test func tokenIgnoresVocabAndLineEnds() throws {
        let ini = baseIni + "\nTokenIgnores = (\\$[^\\n$]+\\$)\n"
        let p = try Project(ini: "Vocab = Team\n" + ini.replacingOccurrences(of: "BasedOnStyles = House", with: "BasedOnStyles = House, Vale"),
                            rules: ["Weasel": "extends: existence\nmessage: \"'%s'\"\ntokens:\n  - very\n  - Tk\n"],
                            vocab: (accept: ["Tk"], reject: ["synergy"]))
        let out = try p.lint("Math $very$ here.\r\nvery synergy Tk\rvery\n")
        #expect(out == ["2:1:House.Weasel:'very'", "2:6:Vale.Avoid:Avoid using 'synergy'.", "3:1:House.Weasel:'very'"])
    }

    @Test func unsupportedTypesAreSkippedNotFatal() throws {
        let p = try Project(ini: baseIni, rules: [
            "Script": "extends: script\nmessage: x\nscript: 'x := 1'\n",
            "Broken": "extends: nonsense\nmessage: x\n",
            "Weasel": "extends: existence\nmessage: \"'%s'\"\ntokens:\n  - very\n",
        ])
        let e = try p.engine()
        // Every rule type Vale defines runs now (a script that sets no matches finds nothing).
        #expect(e.styles.skipped.isEmpty && e.styles.rules["House.Script"] != nil)
        #expect(e.problems.contains { $0.contains("Broken") })
        #expect(try p.lint("very\n") == ["1:1:House.Weasel:'very'"])
    }

    @Test func discoveryWalksUpAndDigestChangesWithRules() throws {
        let p = try Project(ini: baseIni, rules: ["Weasel": "extends: existence\nmessage: \"'%s'\"\ntokens:\n  - very\n"])
        let sub = p.root + "/docs/deep"
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
        #expect(ValeConfiguration.find(from: sub) == p.root + "/.vale.ini")
        let d1 = try p.engine().digest
        try "extends: existence\nmessage: \"'%s'\"\ntokens:\n  - quite\n".write(toFile: p.root + "/styles/House/Weasel.yml", atomically: true, encoding: .utf8)
        #expect(try p.engine().digest != d1)
    }
}
