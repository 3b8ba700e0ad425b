import Foundation
import Testing
@testable import TKCore
@testable import TKSearch

/// Marks `[[word]]` as FTS5's highlight() would with the marker bytes.
private func marked(_ s: String) -> [UInt8] {
    Array(s.replacingOccurrences(of: "[[", with: "\u{1}").replacingOccurrences(of: "]]", with: "\u{2}").utf8)
}

@Suite struct SnippetTests {
    @Test func picksTheLineWithMostDistinctMatches() {
        let body = marked("intro\n\none [[fox]] and [[fox]]\nthe [[quick]] brown [[fox]]\n")
        let best = Snippet.best(inHighlighted: body)
        #expect(best.line == 4)
        #expect(best.text == "the quick brown fox")
        #expect(best.highlights == [[4, 9], [16, 19]])
    }

    @Test func firstLineWinsATie() {
        let best = Snippet.best(inHighlighted: marked("a [[b]]\nc [[b]]\n"))
        #expect(best.line == 1)
    }

    @Test func noMatchInTheBodyShowsTheFirstTextLine() {
        // The title matched, not the body: the first line of text is shown, front matter fences skipped.
        let best = Snippet.best(inHighlighted: marked("---\n\n  \nFirst words here\nmore\n"))
        #expect(best.line == 4)
        #expect(best.text == "First words here")
        #expect(best.highlights.isEmpty)
        #expect(Snippet.best(inHighlighted: []).text == "")
    }

    @Test func highlightsAreUnicodeScalarOffsets() {
        let best = Snippet.best(inHighlighted: marked("Der Kaffee im [[Café]] war kalt — [[café]]!"))
        #expect(best.text == "Der Kaffee im Café war kalt — café!")
        let scalars = Array(best.text.unicodeScalars)
        #expect(best.highlights.count == 2)
        for r in best.highlights {
            #expect(String(String.UnicodeScalarView(scalars[r[0]..<r[1]])).lowercased() == "café")
        }
    }

    @Test func aPhraseRunningOverALineBreakIsHighlightedOnBothLines() {
        let best = Snippet.best(inHighlighted: marked("x\nsome [[error\nhandling]] here\n"))
        #expect(best.line == 2)
        #expect(best.highlights == [[5, 10]])
        let second = Snippet.strip(ArraySlice(marked("handling]] here")), startsInMatch: true)
        #expect(second.1 == [[0, 8]])
    }

    @Test func longLinesAreClippedAroundTheFirstMatch() {
        let before = String(repeating: "word ", count: 60)
        let after = String(repeating: " tail", count: 60)
        let best = Snippet.best(inHighlighted: marked(before + "[[needle]]" + after))
        #expect(best.text.hasPrefix("…"))
        #expect(best.text.hasSuffix("…"))
        #expect(best.text.unicodeScalars.count <= Snippet.width + 2)
        let scalars = Array(best.text.unicodeScalars)
        let r = try! #require(best.highlights.first)
        #expect(String(String.UnicodeScalarView(scalars[r[0]..<r[1]])) == "needle")
    }

    @Test func invalidUTF8NeverCrashes() {
        let best = Snippet.best(inHighlighted: [0x66, 0xFF, 0x01, 0x6F, 0xC3, 0x02, 0x0A])
        #expect(best.line == 1)
        #expect(best.highlights.count == 1)
    }
}

@Suite struct SearchOutputTests {
    func foundationLayout(_ r: SearchResults) -> String {
        JSON.string(r).replacingOccurrences(of: #"\[\n\n *\]"#, with: "[]", options: .regularExpression)
    }

    @Test func jsonRoundTripsThroughFoundation() throws {
        let results = SearchResults(query: "\"quoted\" \\ / \u{1}", tookMs: 3.25, results: [
            SearchHit(project: "/p/é", path: "a\tb.md", title: "Line\nbreak", line: 7, snippet: "…snip 🦊",
                      highlights: [[0, 2], [5, 9]], score: 1.2345),
            SearchHit(project: "/p", path: "b.md", title: "", line: 1, snippet: "", highlights: [], score: 0),
        ])
        let text = SearchOutput.json(results)
        let decoded = try JSONDecoder().decode(SearchResults.self, from: Data(text.utf8))
        #expect(decoded == results)
        // The layout of the CLI's other JSON (Foundation's pretty printing, sorted keys), except
        // that an empty array is `[]` rather than Foundation's blank line between brackets.
        #expect(text == foundationLayout(results))
    }

    @Test func emptyResults() throws {
        let r = SearchResults(query: "x", tookMs: 0, results: [])
        #expect(SearchOutput.json(r) == foundationLayout(r))
        #expect(SearchOutput.json(r).contains("\"results\" : []"))
    }

    @Test func textHighlightsInColourOnly() {
        let r = SearchResults(query: "fox", tookMs: 1.04, results: [
            SearchHit(project: "/p", path: "a.md", title: "T", line: 3, snippet: "a fox", highlights: [[2, 5]], score: 1),
        ])
        #expect(SearchOutput.text(r, color: false) == "T  /p/a.md:3\n    a fox\n")
        #expect(SearchOutput.text(r, color: true).contains("\u{1B}[1;33mfox\u{1B}[0m"))
        #expect(SearchOutput.summary(r) == "1 result in 1.0 ms")
    }

    @Test("scores keep five significant digits", arguments: [
        (2.07009389e-06, 2.0701e-06), (12.3456789, 12.346), (0.0, 0.0), (1.0, 1.0),
    ])
    func significant(value: Double, expected: Double) {
        #expect(abs(SearchEngine.significant(value) - expected) <= abs(expected) * 1e-9)
    }
}

@Suite struct QuickSearchArgumentTests {
    @Test func parsesTermsAndOptionsInAnyOrder() {
        let a = QuickSearch.parse(["--limit", "5", "fox", "--json", "--project=/x", "den", "--path", "notes/*"])
        #expect(a == QuickSearch.Arguments(terms: ["fox", "den"], project: "/x", path: "notes/*", limit: 5, json: true))
        #expect(QuickSearch.parse(["--", "-dash", "--json"])?.terms == ["-dash", "--json"])
        #expect(QuickSearch.parse(["--limit=3", "x"])?.limit == 3)
    }

    @Test("everything else is left to the full parser", arguments: [
        [], ["  "], ["--help"], ["-h", "x"], ["x", "--limit", "0"], ["x", "--limit", "many"], ["x", "--limit"],
        ["x", "--project"], ["x", "--bogus"], ["-"], ["x", "--project", "--json"],
    ])
    func fallsBack(args: [String]) {
        #expect(QuickSearch.parse(args) == nil)
    }

    @Test func dataFolderFollowsTheSameRulesAsPaths() {
        func env(_ d: [String: String]) -> (String) -> String? { { d[$0] } }
        let cwd = FileManager.default.currentDirectoryPath
        #expect(QuickSearch.databasePath(environment: env(["TK_DATA_DIR": "/d/x/../y", "HOME": "/h"])) == "/d/y/index.sqlite")
        #expect(QuickSearch.databasePath(environment: env(["TK_DATA_DIR": "rel", "HOME": "/h"])) == cwd + "/rel/index.sqlite")
        #expect(QuickSearch.databasePath(environment: env(["XDG_DATA_HOME": "/xdg", "HOME": "/h"])) == "/xdg/tk-agent/index.sqlite")
        #expect(QuickSearch.databasePath(environment: env(["HOME": "/h", "TK_DATA_DIR": ""])) == "/h/.local/share/tk-agent/index.sqlite")
        for e in [["TK_DATA_DIR": "/d"], ["XDG_DATA_HOME": "/xdg"], ["HOME": "/h"]] {
            let paths = Paths.resolve(environment: e)
            #expect(QuickSearch.databasePath(environment: env(e)) == paths.database.display)
        }
        #expect(QuickSearch.absolute("a/./b/../c", cwd: "/w", home: nil) == "/w/a/c")
        #expect(QuickSearch.absolute("/../x//y/", cwd: "/w", home: nil) == "/x/y")
        #expect(QuickSearch.absolute("~/n", cwd: "/w", home: "/h") == "/h/n")
        #expect(QuickSearch.absolute("~/n", cwd: "/w", home: nil) == "/w/~/n")
    }
}

@Suite struct SearchEngineSplitTests {
    /// Ranking the rowid range in two halves on two threads gives what one pass gives.
    @Test func twoThreadsRankLikeOne() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tk-split-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: url) }
        let dir = PathBytes(url.path)
        let paths = Paths(userConfig: dir.appending("c.json"), configDirectory: dir,
                          dataDirectory: dir.appending("data"), runtimeDirectory: dir.appending("run"))
        let db = try AppDatabase.open(paths: paths)
        let pid = try db.projectID(for: PathBytes("/p"))
        let words = ["river", "stone", "water", "light", "field", "cloud"]
        var docs: [IndexedDocument] = []
        for i in 0..<Int(SearchEngine.splitThreshold) + 500 {
            var body = ""
            for j in 0..<(5 + i % 17) { body += words[(i * 7 + j * 3) % words.count] + " " }
            body += i % 3 == 0 ? "water water\n" : "\n"
            docs.append(IndexedDocument(
                relativePath: PathBytes("d\(i).md"),
                stat: FileStat(kind: .regular, size: 1, mtimeNs: 1, ctimeNs: 1, inode: UInt64(i), device: 1),
                sha256: "\(i)", words: 3, title: i % 250 == 0 ? "Water \(i)" : "Doc \(i)", headings: [], tags: [], body: body))
        }
        try db.apply(projectID: pid, upserts: docs)
        let file = paths.database.display
        let one = try #require(QuickSearch.open(file))
        let two = try #require(QuickSearch.open(file))
        defer { QuickSearch.close(one); QuickSearch.close(two) }
        for (q, limit) in [("water", 20), ("water", 1000), ("wat*", 50), ("\"stone water\"", 30), ("absentword", 5)] {
            let single = try SearchEngine.search(connection: one, query: SearchQuery(q), options: SearchOptions(limit: limit), queryText: q)
            let split = try SearchEngine.search(connection: one, helper: two, query: SearchQuery(q), options: SearchOptions(limit: limit), queryText: q)
            #expect(single.results == split.results, "\(q)")
            let viaGRDB = try db.search(SearchQuery(q), options: SearchOptions(limit: limit), queryText: q)
            #expect(viaGRDB.results == single.results, "\(q)")
        }
        let top = try SearchEngine.search(connection: one, helper: two, query: SearchQuery("water"), options: SearchOptions(limit: 3), queryText: "")
        #expect(top.results.allSatisfy { $0.title.hasPrefix("Water") })
    }
}
