import Foundation
import Testing
@testable import TKCore

/// `sequence` rules: the Treebank word split, the tagger, and Vale's matching around an anchor.
@Suite struct ValeSequenceTests {
    private func lint(_ rules: [String: String], _ text: String) throws -> [String] {
        let root = TestScratch.path("vale-seq")
        try FileManager.default.createDirectory(atPath: root + "/styles/House", withIntermediateDirectories: true)
        try "StylesPath = styles\nMinAlertLevel = suggestion\n\n[*.md]\nBasedOnStyles = House\n"
            .write(toFile: root + "/.vale.ini", atomically: true, encoding: .utf8)
        for (name, body) in rules {
            try body.write(toFile: root + "/styles/House/\(name).yml", atomically: true, encoding: .utf8)
        }
        let engine = ValeEngine(configuration: try ValeConfiguration.load(path: root + "/.vale.ini"), root: root)
        #expect(engine.styles.skipped.isEmpty)
        return engine.findings(bytes: Array(text.utf8), relativePath: "test.md").map { "\($0.line):\($0.column):\($0.rule):\($0.message)" }
    }

    @Test func treebankWordsSplitCliticsQuotesAndPunctuation() {
        #expect(ValeNLP.treebankWords("The plugin's are loaded.") == ["The", "plugin", "'s", "are", "loaded", "."])
        #expect(ValeNLP.treebankWords("We don't know, and you cannot (yet).") ==
                ["We", "do", "n't", "know", ",", "and", "you", "can", "not", "(", "yet", ")", "."])
        #expect(ValeNLP.treebankWords("She said \"hello there\" twice") == ["She", "said", "``", "hello", "there", "''", "twice"])
    }

    @Test func tagsTellNounsFromVerbsByTheirPlace() {
        func tags(_ s: String) -> [String] { ValeNLP.tokens(s).map(\.tag) }
        #expect(tags("They should be happy stay here.") == ["PRP", "MD", "VB", "JJ", "VB", "RB", "."])
        #expect(tags("The tallest tower was built quickly.") == ["DT", "JJS", "NN", "VBD", "VBN", "RB", "."])
        #expect(tags("Our team runs the reports.") == ["PRP$", "NN", "VBZ", "DT", "NNS", "."])
        #expect(tags("Ask Maria about the plan.") == ["VB", "NNP", "IN", "DT", "NN", "."])
        #expect(tags("The file's size is large.") == ["DT", "NN", "POS", "NN", "VBZ", "JJ", "."])
    }

    @Test func aSequenceIsFoundAroundItsAnchorAndNumberedArgumentsFillTheMessage() throws {
        let out = try lint(["ModalBe": """
            extends: sequence
            message: "Add 'to' before '%[4]s': '%[2]s %[3]s to %[4]s'."
            level: warning
            tokens:
              - tag: MD
              - pattern: be
              - tag: JJ
              - tag: VB|VBN
            """], "# Notes\n\nThey should be happy stay here.\n\nThey should be happy to stay here.\n")
        #expect(out == ["3:6:House.ModalBe:Add 'to' before 'stay': 'be happy to stay'."])
    }

    @Test func skipLetsWordsComeBetweenAndAWordThatDoesNotDecidesNothing() throws {
        let rules = ["Superlative": """
            extends: sequence
            message: "Say 'of all time'."
            tokens:
              - tag: JJS
                skip: 2
              - pattern: of
              - pattern: all
              - pattern: times
            """, "Plural": """
            extends: sequence
            message: "'%[1]s' takes a plural verb."
            level: error
            ignorecase: true
            tokens:
              - tag: NN
                pattern: criteria
              - tag: VBZ
                skip: 3
            """]
        let text = "The tallest tower of all times.\n\nThe tallest old stone tower of all times.\n\nCriteria for this choice is odd.\n\nCriteria for this one odd choice is odd.\n"
        #expect(try lint(rules, text) == [
            "1:5:House.Superlative:Say 'of all time'.",
            "5:1:House.Plural:'Criteria' takes a plural verb.",
        ])
    }

    @Test func wordsThatDoNotOccurJoinedInTheSentenceAreNotReported() throws {
        // Vale joins the matched words with spaces and looks for them in the sentence: across a
        // comma they are not found, and Vale reports nothing.
        let out = try lint(["Ambiguous": """
            extends: sequence
            message: "Ambiguous pronoun."
            ignorecase: true
            tokens:
              - tag: NN|NNS
                skip: 3
              - tag: PRP
                pattern: he|she|they
            """], "In the report, she wrote it.\n\nThe report she wrote is long.\n")
        #expect(out == ["3:5:House.Ambiguous:Ambiguous pronoun."])
    }

    @Test func messagesAreFormattedAsGoFormatsThem() {
        #expect(ValeFileLinter.format("Use '%[2]s' for '%[1]s', then %s.", ["a", "b", "c"]) == "Use 'b' for 'a', then b.")
        #expect(ValeFileLinter.format("Only '%s'.", ["x", "unused"]) == "Only 'x'.")
        #expect(ValeFileLinter.format("'%s' and '%s'", ["x"]) == "'x' and ''")
        #expect(ValeFileLinter.format("100%% sure", []) == "100% sure")
        #expect(ValeFileLinter.format("Bad %[9]s", ["x"]) == "Bad %!s(BADINDEX)")
    }
}
