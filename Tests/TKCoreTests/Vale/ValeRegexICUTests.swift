import Foundation
import Testing
import Yams
@testable import TKCore

/// ICU called directly (`ValeRegex`), Yams without its per-scalar regular expressions (`ValeYAML`)
/// and the walker's line split (`VB.lines`): each gives what the slower way it replaced gave.
@Suite struct ValeRegexICUTests {
    static let texts = ["Very good, quite veryquite very. E.g. this", "", "a", "x Note\nNote: Tip\n",
                        "É very — quite 😀 very 𝒳 quite", "it's 10 AM – 12 PM\r\nand ss ß STRASSE", "aaa"]
    static let patterns = ["(?i)(?m)\\b(?:very|quite|e\\.g\\.)\\b", "(?m)^(\\w+)", "(\\w)(\\w)?", "x*", "(?i)strasse",
                           "(?<=very )(quite)", "(?:\\b[A-Z][a-z]+ )+", "\\p{So}", "(a)|(b)", "$"]

    /// Matches, groups and counts as Foundation's `NSRegularExpression` finds them, in scalars.
    @Test func matchesEqualFoundations() throws {
        for p in Self.patterns {
            let re = try ValeRegex(p)
            let ns = try NSRegularExpression(pattern: p)
            for s in Self.texts {
                let t = ValeText(s)
                let ours = re.matches(in: t)
                let theirs = ns.matches(in: s, range: NSRange(location: 0, length: (s as NSString).length))
                #expect(ours.count == theirs.count, "\(p) on \(s)")
                #expect(re.count(in: t) == theirs.count)
                for (a, b) in zip(ours, theirs) {
                    #expect(a.range == Self.scalars(b.range, t), "\(p) on \(s)")
                    #expect(a.groups.count == b.numberOfRanges)
                    for g in 0..<min(a.groups.count, b.numberOfRanges) {
                        let r = b.range(at: g)
                        #expect(a.groups[g] == (r.location == NSNotFound ? nil : Self.scalars(r, t)), "\(p) group \(g) on \(s)")
                    }
                }
                #expect(re.isMatch(s) == (ns.firstMatch(in: s, range: NSRange(location: 0, length: (s as NSString).length)) != nil))
            }
        }
    }

    static func scalars(_ r: NSRange, _ t: ValeText) -> Range<Int> { t.scalarRange(r.location, r.location + r.length) }

    /// Templates filled as `NSRegularExpression.stringByReplacingMatches` fills them.
    @Test func replacementsEqualFoundations() throws {
        let cases: [(String, String)] = [("(\\w+)@(\\w+)", "$2 at $1"), ("(a)|(b)", "[$1$2]"), ("(o)", "\\$1 $$ $"),
                                         ("(x)", "$9"), ("(é)", "`$1`"), ("(?s)^(.+)$", "\n```\n$1\n```\n"),
                                         ("((((((((((k))))))))))", "$10|$1"), ("(?i)(quite)", "$0\\\\")]
        let texts = ["me@host you@there", "abcab", "foo boo", "x", "café é", "front\nmatter", "kk", "Quite quite"]
        for (p, template) in cases {
            let re = try ValeRegex(p)
            let ns = try NSRegularExpression(pattern: p)
            for s in texts {
                let expected = ns.stringByReplacingMatches(in: s, range: NSRange(location: 0, length: (s as NSString).length),
                                                           withTemplate: template)
                #expect(re.replace(s, template: template) == expected, "\(p) → \(template) on \(s)")
            }
        }
    }

    /// One pattern matched from many threads at once: each match borrows its own matcher.
    @Test func onePatternMatchesFromManyThreads() async throws {
        let re = try ValeRegex("(?i)\\b(very|quite)\\b")
        let text = ValeText(String(repeating: "Very nice, quite so. ", count: 200))
        let counts = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<16 { group.addTask { re.matches(in: text).count + re.count(in: text) } }
            var all: [Int] = []
            for await c in group { all.append(c) }
            return all
        }
        #expect(counts == Array(repeating: 800, count: 16))
    }

    @Test func aPatternICUCannotReadIsAnError() {
        #expect(throws: ValeRegex.CompileError.self) { try ValeRegex("(unclosed") }
    }

    /// What a rule file gives: the same values, of the same types, as `Yams.load`.
    @Test func yamlValuesEqualYamsLoad() throws {
        let docs = ["""
            extends: substitution
            message: "Use '%s' instead of '%s'."
            ignorecase: true
            level: warning
            max: 30
            grade: 8.5
            nonword: false
            link: ~
            empty:
            quoted: 'true'
            double: "12"
            when: 2024-01-02
            swap:
              yes: no
              On: Off
              '-1': +2
              .5: .inf
              0x1F: 0o17
              "utilize": use
            tokens:
              - NULL
              - 'null'
              - <<
              - =
              - 1_000
              - - nested
                - 3
            """, "- a\n- 1\n- true\n", "plain", "", "key: |\n  block\n  text\n"]
        for d in docs {
            let ours = try ValeYAML.parse(d)
            let theirs = try Yams.load(yaml: d)
            #expect(Self.canonical(ours) == Self.canonical(theirs), "\(d)")
        }
        // Merge keys and aliases go through Yams as they are.
        let merged = "base: &b\n  a: 1\nrule:\n  <<: *b\n  c: 2\n"
        #expect(Self.canonical(try ValeYAML.parse(merged)) == Self.canonical(try Yams.load(yaml: merged)))
        #expect(Self.canonical(try ValeYAML.parse(merged)).contains("a:Int 1"))
    }

    /// Each value of a loaded tree with its type, mappings in key order.
    static func canonical(_ v: Any?) -> String {
        switch v {
        case let d as [AnyHashable: Any]:
            let keys = d.keys.sorted { "\($0)" < "\($1)" }
            return "{" + keys.map { k in "\(k):\(canonical(d[k]))" }.joined(separator: ",") + "}"
        case let a as [Any]: return "[" + a.map(canonical).joined(separator: ",") + "]"
        case nil: return "nil"
        case let x?: return "\(type(of: x)) \(x)"
        }
    }

    /// Messages are formatted on bytes, as Go's `Sprintf` reads them: non-ASCII text and line ends around the directives change nothing.
    @Test func messagesFormatOnBytesAsGoDoes() {
        let cases: [(String, [String])] = [("Use '%[2]s' for '%[1]s', then %s.", ["a", "b", "c"]), ("Only '%s'.", ["x", "y"]),
                                           ("'%s' and '%s'", ["x"]), ("100%% sure", []), ("Bad %[9]s", ["x"]),
                                           ("ends in %", ["x"]), ("%v and %q", ["é", "😀"]), ("no directive", ["x"]),
                                           ("%[1]s%[1]s %s", ["ab"]), ("%[x]s %", [])]
        for (msg, subs) in cases {
            let ascii = ValeFileLinter.format(msg, subs)
            #expect(ValeFileLinter.format("é " + msg, subs) == "é " + ascii, "\(msg)")
            #expect(ValeFileLinter.format(msg + "\r\n", subs).hasPrefix(ascii) || msg.hasSuffix("%"), "\(msg)")
        }
        #expect(ValeFileLinter.format("%s is %s", ["é", "x"]) == "é is x")
        // Go reads the directive before a combining mark (Characters would have made `s\u{301}` one).
        #expect(ValeFileLinter.format("'%s\u{301}' %[1]s\u{301}", ["x"]) == "'x\u{301}' x\u{301}")
    }

    @Test func linesSplitAsStringSplitDoes() {
        for s in ["", "a", "a\nb", "\n", "a\n\nb\n", "x\r\ny\nz", "é\n😀\n", "\r\n\r\n"] {
            let expected = s.split(separator: "\n", omittingEmptySubsequences: false).map { Array(String($0).utf8) }
            #expect(VB.lines(s) == expected, "\(s.debugDescription)")
        }
    }

    /// A pack's word count (`token: \b(\w+)\b` in an occurrence rule) counted without ICU on plain
    /// prose gives ICU's count: the same pattern with an empty group added, which ICU runs (texts
    /// with other characters go to ICU, and must agree too).
    @Test func wordRunsAreCountedAsICUCountsThem() throws {
        for p in ["(?:\\b(\\w+)\\b)", "(?i)(?:\\b(\\w+)\\b)", "(?:\\w+)", "\\b\\w+\\b"] {
            let fast = try ValeRegex(p), icu = try ValeRegex(p + "(?:)")
            #expect(fast.countsWordRuns && !icu.countsWordRuns)
            var state: UInt64 = 20_261_201
            func next(_ n: Int) -> Int {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Int((state >> 33) % UInt64(n))
            }
            let pieces = ["word", " ", "_", "3", "it's", "-", ",", "a", "Z9", "__", "\t", "\n", ".", "don't", "x_y", "é", "naïve", "\u{301}", "—", "“", "”", "‘", "’", "…", "\u{A0}", "«", "»", "×", "Ω", "ÿ", "‑", "\u{200D}", "‿"]
            for _ in 0..<500 {
                let text = ValeText((0..<next(12)).map { _ in pieces[next(pieces.count)] }.joined())
                #expect(fast.count(in: text) == icu.count(in: text), "\(p) on \(text.string)")
            }
        }
        #expect(!(try ValeRegex("(?:\\b(\\w+)\\b\\.)")).countsWordRuns)
    }
}
