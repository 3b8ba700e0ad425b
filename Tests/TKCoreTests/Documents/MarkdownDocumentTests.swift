import Foundation
import Testing
@testable import TKCore

private func doc(_ s: String, name: String = "note.md") -> MarkdownDocument {
    MarkdownDocument(bytes: Array(s.utf8), fileName: name)
}

/// The prose of every block joined, masks replaced by one space.
private func prose(_ d: MarkdownDocument) -> [String] {
    d.proseBlocks.map { $0.plainText(in: d.bytes) }
}

@Suite struct LineIndexTests {
    /// The cursor gives what `position(ofByte:)` gives, for offsets in any order (it restarts the
    /// line when an offset goes back), multi-byte characters and CRLF included.
    @Test func cursorMatchesPositionLookups() {
        let text = "ab\u{E9}c d\r\n\u{65E5}\u{672C} x\n\nlast line \u{1F600} end"
        let index = LineIndex(Array(text.utf8))
        var cursor = index.cursor()
        var offsets = Array(0...text.utf8.count)
        offsets += [3, 1, 9, 9, 40, 0, 17]
        for o in offsets {
            let a = cursor.position(ofByte: o), b = index.position(ofByte: o)
            #expect(a.line == b.line && a.column == b.column, "offset \(o)")
        }
    }

    @Test func positions() {
        let bytes = Array("ab\ncé d\n\nx".utf8)
        let li = LineIndex(bytes)
        #expect(li.position(ofByte: 0) == (1, 1))
        #expect(li.position(ofByte: 2) == (1, 3))
        #expect(li.position(ofByte: 3) == (2, 1))
        // "cé d": é is two bytes, so byte 6 ("space") is the 3rd scalar.
        #expect(li.position(ofByte: 6) == (2, 3))
        #expect(li.position(ofByte: 7) == (2, 4))
        #expect(li.position(ofByte: 10) == (4, 1))
        #expect(li.position(ofByte: 999) == (4, 2))
        #expect(li.endOfLine(2) == 8)
    }

    @Test func crlf() {
        let li = LineIndex(Array("a\r\nb".utf8))
        #expect(li.endOfLine(1) == 1)
        #expect(li.position(ofByte: 3) == (2, 1))
    }
}

@Suite struct FrontMatterTests {
    @Test func parsesTitleTagsAndTK() {
        let text = """
        ---
        title: My Post
        tags: [a, b]
        tk:
          story_type: blog_personal
          advisors: [creative_writer, editor]
          draft_stage: middle
          review: false
        ---
        # Heading

        Body text here.
        """
        let d = doc(text)
        #expect(d.frontMatterProblem == nil)
        #expect(d.frontMatter.title == "My Post")
        #expect(d.frontMatter.tags == ["a", "b"])
        #expect(d.frontMatter.tk == TKBlock(storyType: "blog_personal", advisors: ["creative_writer", "editor"],
                                            draftStage: "middle", review: false))
        #expect(d.title == "My Post")
        let fmEnd = text.utf8.count - "# Heading\n\nBody text here.".utf8.count
        #expect(d.frontMatter.range == 0..<fmEnd)
        #expect(d.headings == ["Heading"])
        #expect(d.wordCount == 4)
        // searchBody keeps line structure but blanks the YAML.
        #expect(d.searchBody.utf8.count == text.utf8.count)
        #expect(!d.searchBody.contains("blog_personal"))
        #expect(d.searchBody.split(separator: "\n", omittingEmptySubsequences: false).count
            == text.split(separator: "\n", omittingEmptySubsequences: false).count)
    }

    @Test func dotsCloseAndCommaLists() {
        let d = doc("---\ntags: x, y\ntk:\n  advisors: editor, general\n...\nText.\n")
        #expect(d.frontMatter.tags == ["x", "y"])
        #expect(d.frontMatter.tk.advisors == ["editor", "general"])
        #expect(prose(d) == ["Text."])
    }

    @Test func brokenYAMLIsOneLineProblem() {
        let d = doc("---\ntitle: [unclosed\n---\nHello world.\n")
        let problem = d.frontMatterProblem ?? ""
        #expect(!problem.isEmpty)
        #expect(!problem.contains("\n"))
        #expect(problem.contains("line"))
        #expect(d.frontMatter.range == 0..<25)
        #expect(prose(d) == ["Hello world."])
        #expect(d.title == "note")
    }

    @Test func unclosedFenceIsNotFrontMatter() {
        let d = doc("---\ntitle: x\n\nBody.\n")
        #expect(d.frontMatter.range == 0..<0)
        #expect(d.frontMatterProblem == nil)
    }

    @Test func notAMapping() {
        let d = doc("---\n- a\n- b\n---\nx\n")
        #expect(d.frontMatterProblem != nil)
    }
}

@Suite struct MarkdownDocumentTests {
    @Test func titleFallbacks() {
        #expect(doc("Some text.\n\n## Second\n", name: "dir/my.notes.md").title == "Second")
        #expect(doc("Some text.\n", name: "dir/my.notes.md").title == "my.notes")
        #expect(doc("", name: "x.markdown").title == "x")
    }

    @Test func codeHTMLAndTablesAreNotProse() {
        let text = """
        Intro paragraph.

        ```swift
        let very = 1
        ```

            indented code

        <div>
        html block
        </div>

        | a | b |
        |---|---|
        | c | d |

        - item one
        - item two

        > quoted line
        > second line
        """
        let d = doc(text)
        #expect(prose(d) == ["Intro paragraph.", "item one", "item two", "quoted line\n second line"])
        #expect(d.proseBlocks.map(\.inListItem) == [false, true, true, false])
        #expect(d.proseBlocks.map(\.inBlockQuote) == [false, false, false, true])
        #expect(d.wordCount == 10)
    }

    @Test func inlineMasks() {
        let d = doc("Use `code here` and [a link](http://x.y/z \"t\") or <https://a.b> see https://example.com/p. <b>bold</b> [ref][r] <!-- note -->\n")
        #expect(prose(d) == ["Use   and [a link]  or   see  .  bold  [ref]   "])
        let kinds = d.proseBlocks[0].masks.map(\.kind)
        #expect(kinds == [.code, .link, .url, .url, .html, .html, .link, .html])
        #expect(d.htmlComments.count == 1)
    }

    @Test func bareURLsOfEverySchemeAndNotWordsStartingLikeThem() {
        let d = doc("When HTTP://A.B/c, www.example.org, ftp://f.g/h and mailto:me@x.y came, my wheel wasn't http or www. fine.\n")
        #expect(d.proseBlocks[0].masks.map(\.kind) == [.url, .url, .url, .url])
        #expect(prose(d) == ["When  ,  ,   and   came, my wheel wasn't http or www. fine."])
    }

    @Test func headingMarkers() {
        let d = doc("## Title here ##\n\nSetext head\n===\n")
        #expect(prose(d) == [" Title here", "Setext head "])
        #expect(d.headings == ["Title here", "Setext head"])
        #expect(d.proseBlocks.map(\.headingLevel) == [2, 1])
    }

    @Test func blockRangesAreOriginalOffsets() {
        let text = "---\ntitle: é\n---\n\nCafé au lait.\n\n- Ünïcode item\n"
        let d = doc(text)
        let b = d.proseBlocks.map { d.text($0.range) }
        #expect(b == ["Café au lait.", "Ünïcode item"])
        #expect(d.proseBlocks[0].line == 5)
        #expect(d.proseBlocks[1].line == 7)
    }

    @Test func htmlBlockComments() {
        let d = doc("<!-- tk-ignore -->\nText.\n<!-- tk-end-ignore -->\n\nMore.\n")
        #expect(d.htmlComments.map { d.text($0) } == ["<!-- tk-ignore -->", "<!-- tk-end-ignore -->"])
    }

    static let oddInputs: [[UInt8]] = {
        var inputs: [[UInt8]] = [[], [0], [0xFF, 0xFE, 10, 35, 32, 0xC3]]
        let texts: [String] = ["---", "---\n", "\r\r\n\r`", "- [ ]", "# \n==\n", "<!--", "[x]: ", "a](",
                               "> \n>\n> ```\n", "---\n---\n", "\u{FEFF}hi", "`a", "<a href='x", "http://"]
        for t in texts { inputs.append(Array(t.utf8)) }
        return inputs
    }()

    @Test("never crashes on odd bytes", arguments: oddInputs)
    func oddBytes(_ bytes: [UInt8]) {
        let d = MarkdownDocument(bytes: bytes, fileName: "x.md")
        for b in d.proseBlocks {
            #expect(b.range.lowerBound >= 0 && b.range.upperBound <= d.bytes.count)
            for m in b.masks { #expect(m.range.lowerBound >= b.range.lowerBound && m.range.upperBound <= b.range.upperBound) }
        }
    }

    @Test func invalidUTF8KeepsOffsets() {
        var bytes = Array("Bad ".utf8)
        bytes.append(0xFF)
        bytes.append(contentsOf: Array(" byte.\n\nNext para.\n".utf8))
        let d = MarkdownDocument(bytes: bytes, fileName: "x.md")
        #expect(d.proseBlocks.count == 2)
        #expect(d.text(d.proseBlocks[1].range) == "Next para.")
    }

    @Test func speed() {
        var text = "---\ntitle: t\n---\n"
        for i in 0..<2000 {
            text += "## Section \(i)\n\nThis is a paragraph with `code`, a [link](http://example.com) and some *emphasis* in it. "
            text += "It goes on for a while so that there is text to parse.\n\n- item\n- item two\n\n```\ncode\n```\n\n"
        }
        let bytes = Array(text.utf8)
        let clock = ContinuousClock()
        let t = clock.measure { _ = MarkdownDocument(bytes: bytes, fileName: "x.md") }
        // ~450 KB; generous bound for debug builds on a shared machine.
        #expect(t < .seconds(2))
    }
}

@Suite struct FrontMatterEdgeCaseTests {
    @Test func crlfFrontMatter() {
        let d = doc("---\r\ntitle: Windows Title\r\ntags: [x]\r\n---\r\nBody text.\r\n")
        #expect(d.frontMatterProblem == nil)
        #expect(d.title == "Windows Title")
        #expect(d.frontMatter.tags == ["x"])
        #expect(prose(d) == ["Body text."])
    }

    @Test func byteOrderMarkBeforeFrontMatter() {
        let d = doc("\u{FEFF}---\ntitle: With BOM\n---\n\nBody text.\n")
        #expect(d.frontMatterProblem == nil)
        #expect(d.title == "With BOM")
        #expect(prose(d) == ["Body text."])
        #expect(d.headings.isEmpty)
    }

    @Test func quotedAndNonStringTitles() {
        #expect(doc("---\ntitle: \"Colons: and # hashes\"\n---\nx\n").title == "Colons: and # hashes")
        #expect(doc("---\ntitle: 'It''s here'\n---\nx\n").title == "It's here")
        #expect(doc("---\ntitle: 2024\n---\nx\n").title == "2024")
        #expect(doc("---\ntitle: Caf\u{E9} \u{65E5}\u{672C} \u{1F600}\n---\nx\n").title == "Caf\u{E9} \u{65E5}\u{672C} \u{1F600}")
    }

    @Test func emptyOrOddTitlesFallBack() {
        #expect(doc("---\ntitle: \"\"\n---\n# Heading Title\n").title == "Heading Title")
        #expect(doc("---\ntitle: ~\n---\n# Heading Title\n").title == "Heading Title")
        #expect(doc("---\ntitle: [a, b]\n---\n# Heading Title\n").title == "Heading Title")
        #expect(doc("---\ntitle:\n  nested: map\n---\nplain\n", name: "file-name.md").title == "file-name")
        #expect(doc("---\n---\n# After Empty\n").title == "After Empty")
    }

    @Test func frontMatterOnlyAndFenceVariants() {
        let only = doc("---\ntitle: Only\n---")
        #expect(only.title == "Only")
        #expect(only.proseBlocks.isEmpty)
        #expect(only.wordCount == 0)
        // A `---` later in the file is a thematic break, not front matter.
        let late = doc("\n---\ntitle: Not Front Matter\n---\n", name: "late.md")
        #expect(late.frontMatter.range == 0..<0)
        #expect(late.frontMatter.title == nil)
        // Trailing spaces on the fences are fine; `----` is not a fence.
        #expect(doc("---  \ntitle: Spaced\n---\t\nx\n").title == "Spaced")
        #expect(doc("----\ntitle: Four\n----\nx\n", name: "four.md").frontMatter.title == nil)
    }

    @Test func yamlInsideFrontMatterIsNeverProse() {
        let d = doc("---\ntitle: Very very passive was written\ndescription: >\n  It is important to note\n---\nBody.\n")
        #expect(prose(d) == ["Body."])
        #expect(!d.searchBody.contains("important"))
        #expect(d.searchBody.contains("Body."))
    }

    @Test func headingTitleDropsMarkup() {
        #expect(doc("# The *big* `day` [out](http://x.y)\n").title == "The big day out")
        #expect(doc("Setext Title\n============\n\ntext\n").title == "Setext Title")
        #expect(doc("#   Spaced   Out   #\n").title == "Spaced Out")
    }

    @Test func firstHeadingOfAnyLevelIsTheTitle() {
        #expect(doc("Intro.\n\n### Third\n\n# First\n").title == "Third")
    }
}
