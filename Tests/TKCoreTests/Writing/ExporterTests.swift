import Testing
@testable import TKCore

@Suite struct ExporterTests {
    let source = Array("""
        ---
        title: Field Notes
        tk:
          story_type: blog_personal
        ---
        # Morning

        Some **bold** and _soft_ words with `code` and [a link](https://example.com).

        - one
        - two

        | a | b |
        |---|---|
        | 1 | ~~2~~ |

        Visit https://example.org today.

        """.utf8)

    @Test func htmlIsAStandalonePageWithGFMExtensions() {
        let html = String(decoding: Exporter.export(source, fileName: "notes.md", format: .html), as: UTF8.self)
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        #expect(html.contains("<title>Field Notes</title>"))
        #expect(html.contains("<style>"))
        #expect(html.contains("<table>"))
        #expect(html.contains("<del>2</del>"))
        #expect(html.contains("<a href=\"https://example.org\">https://example.org</a>"))
        #expect(html.contains("<strong>bold</strong>"))
        #expect(!html.contains("story_type"))
        #expect(html.hasSuffix("</html>\n"))
    }

    @Test func titleOptionWinsAndIsEscaped() {
        let html = String(decoding: Exporter.export(source, fileName: "notes.md", format: .html, title: "A <b> & c"),
                          as: UTF8.self)
        #expect(html.contains("<title>A &lt;b&gt; &amp; c</title>"))
    }

    @Test func plainTextHasNoMarkdownSyntax() {
        let txt = String(decoding: Exporter.export(source, fileName: "notes.md", format: .txt), as: UTF8.self)
        #expect(txt.hasPrefix("Morning\n\nSome bold and soft words with code and a link.\n"))
        #expect(txt.contains("- one\n- two\n"))
        #expect(txt.contains("a\tb\n1\t2\n"))
        for syntax in ["**", "](", "~~", "---", "title:", "#"] { #expect(!txt.contains(syntax), "\(syntax)") }
    }

    @Test func markdownDropsFrontMatter() {
        let md = String(decoding: Exporter.export(source, fileName: "notes.md", format: .md), as: UTF8.self)
        #expect(md.hasPrefix("# Morning\n"))
        let titled = String(decoding: Exporter.export(source, fileName: "notes.md", format: .md, title: "New"), as: UTF8.self)
        #expect(titled.hasPrefix("# New\n\n# Morning\n"))
    }

    @Test func fallbackTitleIsTheFileName() {
        let html = String(decoding: Exporter.export(Array("plain words\n".utf8), fileName: "my-notes.md", format: .html),
                          as: UTF8.self)
        #expect(html.contains("<title>my-notes</title>"))
    }

    @Test func parallelExportsAreSerialisedSafely() async {
        await withTaskGroup(of: Int.self) { g in
            for _ in 0..<16 { g.addTask { Exporter.export(self.source, fileName: "n.md", format: .html).count } }
            var sizes = Set<Int>()
            for await n in g { sizes.insert(n) }
            #expect(sizes.count == 1)
        }
    }
}
