import Foundation
import Testing
@testable import TKCore

/// `Vale.Spelling` and `extends: spelling` rules, with the system's en_US (hunspell-en-us) and
/// dictionaries and word lists written here.
@Suite struct ValeSpellingTests {
    func project(ini: String, files: [String: String]) throws -> String {
        let root = TestScratch.path("vale-spell")
        for (rel, body) in files.merging([".vale.ini": ini], uniquingKeysWith: { a, _ in a }) {
            let p = root + "/" + rel
            try FileManager.default.createDirectory(atPath: (p as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try body.write(toFile: p, atomically: true, encoding: .utf8)
        }
        return root
    }

    func lint(_ root: String, _ text: String, as name: String = "test.md") throws -> [String] {
        let e = ValeEngine(configuration: try ValeConfiguration.load(path: root + "/.vale.ini"), root: root)
        return e.findings(bytes: Array(text.utf8), relativePath: name).map { "\($0.line):\($0.column):\($0.rule):\($0.message)" }
    }

    @Test func tokenizerPeelsPunctuationLikeVale() {
        #expect(ValeSpellCheck.tokenize("“Hello,” (said) the [cat's] e.g. Mr. $100 — ok.") == ["Hello", "said", "the", "cat's", "e.g.", "Mr.", "ok"])
    }

    @Test func valeSpellingUsesEnUSDictionariesIgnoreListsAndVocab() throws {
        let root = try project(ini: "StylesPath = styles\nVocab = Team\n\n[*.md]\nBasedOnStyles = Vale\n", files: [
            "styles/config/ignore/team/names.txt": "Frobnitz\n",
            "styles/config/vocabularies/Team/accept.txt": "Kubernetes\n",
            "styles/config/dictionaries/extra.dic": "1\nzorblax\n",
            "styles/config/dictionaries/extra.aff": "SET UTF-8\n",
        ])
        let text = "# Notes\n\nThe Frobnitz and zorblax run on Kubernetes clusters, but the wrold is teh same.\n\n`teh` in code, HTTP all caps, CamelCase, don't.\n"
        #expect(try lint(root, text) == [
            "3:62:Vale.Spelling:Did you really mean 'wrold'?",
            "3:71:Vale.Spelling:Did you really mean 'teh'?",
        ])
    }

    @Test func spellingRuleWithDicpathDictionariesFiltersAndIgnore() throws {
        let root = try project(ini: "StylesPath = styles\n\n[*.md]\nBasedOnStyles = House\n", files: [
            "styles/House/Typos.yml": """
                extends: spelling
                message: "'%s' is a typo!"
                level: warning
                custom: true
                dicpath: dicts
                dictionaries:
                  - medical
                filters:
                  - '[pP]y.*\\b'
                ignore: House/words.txt
                """,
            "styles/House/words.txt": "HTTPie\n",
            "styles/dicts/medical.dic": "3\nhello\nworld\nstethoscope\n",
            "styles/dicts/medical.aff": "SET UTF-8\n",
        ])
        // Only the named dictionary (not en_US): 'the' is a typo here; `custom` drops the default
        // filters (so hyphenated words are checked whole); the rule's filter skips 'Python'.
        #expect(try lint(root, "Hello stethoscope the HTTPie Python human-friendly.\n") == [
            "1:19:House.Typos:'the' is a typo!",
            "1:37:House.Typos:'human-friendly' is a typo!",
        ])
    }

    @Test func unresolvedDicpathIsAProblemNotAFailure() throws {
        let root = try project(ini: "StylesPath = styles\n\n[*.md]\nBasedOnStyles = House\n", files: [
            "styles/House/Typos.yml": "extends: spelling\nmessage: \"'%s'\"\ndicpath: nowhere\ndictionaries:\n  - x\n",
        ])
        let e = ValeEngine(configuration: try ValeConfiguration.load(path: root + "/.vale.ini"), root: root)
        #expect(e.problems.contains { $0.contains("Typos") && $0.contains("dicpath") })
        #expect(try lint(root, "Teh.\n").isEmpty)
    }
}
