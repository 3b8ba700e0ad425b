import Foundation
import Testing
@testable import TKCore

/// The pure parts of issue 24: error positions in broken JSON, the word diff's hunks, Latin-1
/// documents, history's words and the language server's "Ignore here".
@Suite struct JSONSyntaxTests {
    @Test func validJSONHasNoProblem() {
        #expect(JSONSyntax.firstProblem(Array(#"{"a": [1, 2.5e3, true, null, "x\n\u00e9"], "b": {}}"#.utf8)) == nil)
    }

    @Test func aMissingCommaIsFoundAtItsLineAndColumn() {
        let text = "{\n  \"provider\": \"auto\"\n  \"model\": null\n}\n"
        let p = JSONSyntax.firstProblem(Array(text.utf8))
        #expect(p?.line == 3)
        #expect(p?.column == 3)
        #expect(p?.message.contains("','") == true)
    }

    @Test func columnsCountCharactersNotBytes() {
        let p = JSONSyntax.firstProblem(Array("{\"é\": tru}".utf8))
        #expect(p?.line == 1)
        #expect(p?.column == 7)
    }

    @Test func singleQuotesAndAnEarlyEndAreNamed() {
        #expect(JSONSyntax.firstProblem(Array("[1, 2,]".utf8)) == nil)   // as Foundation's decoder
        #expect(JSONSyntax.firstProblem(Array("[1 2]".utf8))?.column == 4)
        #expect(JSONSyntax.firstProblem(Array("{'a': 1}".utf8))?.message.contains("double quotes") == true)
        #expect(JSONSyntax.firstProblem(Array("{\"a\": 1".utf8))?.message.contains("ends early") == true)
    }

    @Test func theConfigLoaderNamesFileLineAndColumn() throws {
        let dir = PathBytes(TestScratch.path("tk-jsonsyntax"))
        try FileSystem.makeDirectories(dir, mode: 0o700)
        let file = dir.appending("config.json")
        try FileSystem.writeAtomically(Array("{\n  // a comment\n  \"review\": {\"auto\": true \"quiet_seconds\": 5}\n}\n".utf8), to: file, mode: 0o600)
        let (tree, problem) = ConfigurationLoader.readLayer(file)
        #expect(tree == nil)
        #expect(problem?.contains(file.display) == true)
        #expect(problem?.contains("line 3, column 27") == true)
    }
}

@Suite struct WordDiffTests {
    @Test func aTwoWordChangeInALongTextIsOneShortHunk() {
        let para = (1...200).map { "Line \($0) of the long story goes on and on." }
        var changed = para
        changed[120] = "Line 121 of the short story goes on and off."
        let out = WordDiff.render(old: para.joined(separator: "\n"), new: changed.joined(separator: "\n"), color: false)
        let lines = out.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0] == "@@ line 121 @@")
        #expect(lines[1].contains("[-long-]{+short+}"))
        #expect(lines[1].contains("[-on.-]{+off.+}"))
        #expect(out.count < 200)
    }

    @Test func changesFarApartAreTwoHunksAndNearOnesOne() {
        let words = (1...100).map { "w\($0)" }
        var b = words
        b[10] = "X"; b[12] = "Y"; b[80] = "Z"
        let out = WordDiff.render(old: words.joined(separator: " "), new: b.joined(separator: " "), color: false)
        #expect(out.components(separatedBy: "@@ line 1 @@").count - 1 == 2)
        #expect(out.contains("[-w11-]{+X+} w12 [-w13-]{+Y+}"))
        #expect(out.contains("[-w81-]{+Z+}"))
        #expect(!out.contains("w40"))
    }

    @Test func equalTextsGiveNothing() {
        #expect(WordDiff.render(old: "same text", new: "same text", color: false).isEmpty)
    }

    @Test func contextStopsAtABlankLine() {
        let out = WordDiff.render(old: "First paragraph.\n\nSecond one here.", new: "First paragraph.\n\nSecond two here.", color: false)
        #expect(out == "@@ line 3 @@\nSecond [-one-]{+two+} here.\n")
    }
}

@Suite struct DocumentTextTests {
    @Test func latin1IsConvertedAndUTF8IsLeftAlone() {
        let latin1: [UInt8] = Array("Caf".utf8) + [0xE9] + Array(" na".utf8) + [0xEF] + Array("ve \u{22}".utf8) + [0x93, 0x94]
        let r = DocumentText.utf8(latin1)
        #expect(r.latin1)
        #expect(String(decoding: r.bytes, as: UTF8.self) == "Café naïve \"\u{201C}\u{201D}")
        let utf8 = Array("Café".utf8)
        #expect(DocumentText.utf8(utf8).latin1 == false)
        #expect(DocumentText.utf8(utf8).bytes == utf8)
    }

    @Test func utf8WithAStrayByteAndBinaryStayAsTheyAre() {
        // One valid multi-byte sequence: the file is UTF-8 with a stray byte.
        #expect(DocumentText.latin1(Array("Café ".utf8) + [0xE9]) == nil)
        // Control bytes: not text.
        #expect(DocumentText.latin1([0x01, 0xE9, 0x02]) == nil)
        // An undefined Windows-1252 byte.
        #expect(DocumentText.latin1([0x41, 0x81]) == nil)
    }

    @Test func aMarkdownDocumentSeesTheRealWords() {
        let doc = MarkdownDocument(bytes: Array("# Caf".utf8) + [0xE9] + Array("\n\nA na".utf8) + [0xEF] + Array("ve word.\n".utf8),
                                   fileName: "x.md")
        #expect(doc.readAsLatin1)
        #expect(doc.title == "Café")
        #expect(doc.searchBody.contains("naïve"))
    }

    @Test func mostlyAccentedLatin1IsStillText() {
        let bytes: [UInt8] = Array(repeating: [0xE9, 0xE8, 0x20], count: 20).flatMap { $0 }
        #expect(TextSniffer.problem(bytes) == nil)
    }
}

@Suite struct HistoryWordsTests {
    @Test func storedReasonsReadAsTheContractSays() {
        #expect(["edit", "first", "review", "manual", "stage", "accept", "pipe", "restore"].map(SnapshotRecord.displayReason)
            == ["save", "save", "round", "snapshot", "stage", "accept", "pipe", "restore"])
    }
}

@Suite struct IgnoreHereTests {
    @Test func atTheStartOfABlockTheCommentTakesALineOfItsOwn() {
        let text = Array("# T\n\nThe cake was eaten.\n".utf8)
        let (offset, comment) = LSPServer.ignoreHere(text, at: 10, rule: "passive")
        #expect(offset == 5)
        #expect(comment == "<!-- tk-ignore-next-line passive -->\n")
    }

    @Test func inTheMiddleOfAParagraphItGoesAtTheEndOfTheLineBefore() {
        let text = Array("First line of it\nthe cake was eaten.\n".utf8)
        let (offset, comment) = LSPServer.ignoreHere(text, at: 20, rule: "passive")
        #expect(offset == 16)
        #expect(comment == " <!-- tk-ignore-next-line passive -->")
    }

    @Test func afterAHeadingOrTheFrontMatterItTakesALineOfItsOwn() {
        let heading = Array("# Title\nThe cake was eaten.\n".utf8)
        #expect(LSPServer.ignoreHere(heading, at: 12, rule: "passive").0 == 8)
        let front = Array("---\ntitle: x\n---\nThe cake was eaten.\n".utf8)
        #expect(LSPServer.ignoreHere(front, at: 20, rule: "passive") == (17, "<!-- tk-ignore-next-line passive -->\n"))
    }

    @Test func theCommentSilencesThatLineOnly() {
        let text = "Para one line\nthe cake was eaten.\n\nThe pie was eaten.\n"
        let (offset, comment) = LSPServer.ignoreHere(Array(text.utf8), at: 14, rule: "passive")
        var bytes = Array(text.utf8)
        bytes.insert(contentsOf: Array(comment.utf8), at: offset)
        let doc = MarkdownDocument(bytes: bytes, fileName: "x.md")
        let ignores = IgnoreDirectives(document: doc)
        let first = String(decoding: bytes, as: UTF8.self).utf8.count - "The pie was eaten.\n".utf8.count
        #expect(ignores.silences(offset: offset + comment.utf8.count + 5, rule: "passive", category: "passive"))
        #expect(!ignores.silences(offset: first, rule: "passive", category: "passive"))
    }
}
