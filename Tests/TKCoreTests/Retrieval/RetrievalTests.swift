import Foundation
import Testing
@testable import TKCore

@Suite struct PassageChunkerTests {
    func words(_ n: Int, _ w: String = "word") -> String { Array(repeating: w, count: n).joined(separator: " ") }

    @Test func headingTitlesWithoutMarksAndClosingHashes() {
        func title(_ line: String, _ level: Int) -> String {
            Array(line.utf8).withUnsafeBufferPointer { PassageChunker.headingTitle($0, level: level) }
        }
        #expect(title("## Two words ##  ", 2) == "Two words")
        #expect(title("#\tTabbed\t#\r", 1) == "Tabbed")
        #expect(title("### ", 3) == "")
        #expect(title("#", 1) == "")
        #expect(title("# Caf\u{E9} #", 1) == "Caf\u{E9}")
    }

    @Test func splitsAlongHeadingsWithPathsAndLines() {
        let md = """
        ---
        title: T
        ---
        # Book

        Intro paragraph.

        ## Chapter 1

        First para.

        Second para.

        ## Chapter 2

        Other text.
        """
        let doc = MarkdownDocument(bytes: Array(md.utf8), fileName: "a.md")
        let ps = PassageChunker.split(doc)
        #expect(ps.map(\.heading) == ["Book", "Book > Chapter 1", "Book > Chapter 2"])
        #expect(ps.map(\.startLine) == [4, 8, 14])
        #expect(ps.map(\.endLine) == [6, 12, 16])
        #expect(ps[1].text == "## Chapter 1\n\nFirst para.\n\nSecond para.")
    }

    @Test func neverCrossesAHeadingAndCapsWords() {
        let para = words(150)
        let md = "# A\n\n\(para)\n\n\(para)\n\n\(para)\n\n# B\n\nshort\n"
        let ps = PassageChunker.split(bytes: Array(md.utf8))
        #expect(ps.allSatisfy { $0.words <= PassageChunker.maxWords })
        #expect(ps.filter { $0.heading == "A" }.count == 2)
        #expect(ps.last?.heading == "B")
        #expect(ps.last?.text == "# B\n\nshort")
    }

    @Test func codeBlocksStayWhole() {
        let code = (0..<300).map { "let x\($0) = \($0)" }.joined(separator: "\n\n")
        let md = "# Code\n\nBefore.\n\n```swift\n\(code)\n# not a heading\n```\n\nAfter.\n"
        let ps = PassageChunker.split(bytes: Array(md.utf8))
        let withFence = ps.filter { $0.text.contains("```swift") }
        #expect(withFence.count == 1)
        #expect(withFence[0].text.contains("# not a heading"))
        #expect(withFence[0].text.hasSuffix("```") || withFence[0].text.contains("```\n"))
        #expect(ps.allSatisfy { $0.heading == "Code" })
    }

    @Test func readingOrderFromFrontMatter() {
        let doc = MarkdownDocument(bytes: Array("---\ntk:\n  order: 3\n---\n# X\n".utf8), fileName: "x.md")
        #expect(PassageChunker.readingOrder(doc) == 3)
        let none = MarkdownDocument(bytes: Array("---\ntitle: y\n---\n# X\n".utf8), fileName: "x.md")
        #expect(PassageChunker.readingOrder(none) == nil)
    }
}

@Suite struct ReadingOrderTests {
    @Test func naturalOrder() {
        let paths = ["scene-10.md", "scene-2.md", "scene-1.md", "Scene-3.md", "a/scene-02.md"]
        #expect(paths.sorted(by: ReadingOrder.naturalLess) == ["a/scene-02.md", "scene-1.md", "scene-2.md", "Scene-3.md", "scene-10.md"])
    }

    @Test func frontMatterOrderOverrides() {
        let pos = ReadingOrder.positions([(1, "scene-1.md", nil), (2, "scene-2.md", nil), (3, "scene-10.md", 1.5)])
        #expect(pos[1] == 0 && pos[3] == 1 && pos[2] == 2)
    }

    @Test func untilClipsTheLimitDocument() {
        let scope = RetrievalScope(projectIDs: [1], until: ReadingPoint(documentID: 2, line: 10), positions: [1: 0, 2: 1, 3: 2])
        #expect(scope.clip(documentID: 1, start: 1, end: 50) == 1...50)
        #expect(scope.clip(documentID: 2, start: 5, end: 20) == 5...10)
        #expect(scope.clip(documentID: 2, start: 11, end: 20) == nil)
        #expect(scope.clip(documentID: 3, start: 1, end: 2) == nil)
        let from = RetrievalScope(projectIDs: [1], from: ReadingPoint(documentID: 2, line: 10), positions: [1: 0, 2: 1, 3: 2])
        #expect(from.clip(documentID: 1, start: 1, end: 5) == nil)
        #expect(from.clip(documentID: 2, start: 5, end: 20) == 10...20)
        #expect(from.clip(documentID: 3, start: 1, end: 2) == 1...2)
    }
}

@Suite struct CitationFilterTests {
    @Test func dropsCitationsOfPassagesNotSent() {
        let (text, f) = CitationFilter.filter("Yes [1]. No [7]. Both [2, 9]. Array [x] stays.", count: 3)
        #expect(text == "Yes [1]. No . Both [2]. Array [x] stays.")
        #expect(f.dropped == 2)
        #expect(f.citations.map(\.n) == [1, 7, 2, 9])
    }

    @Test func worksAcrossStreamedPieces() {
        var f = CitationFilter(count: 2)
        var out = ""
        for piece in ["A [", "1", "] b [", "3][2", "] c [[2]"] { out += f.push(piece) }
        out += f.finish()
        #expect(out == "A [1] b [2] c [[2]")
        #expect(f.dropped == 1)
    }
}

@Suite struct VectorTests {
    @Test func quantisedCosineIsClose() {
        let a: [Float] = (0..<256).map { sin(Float($0)) }
        let b: [Float] = (0..<256).map { sin(Float($0) + 0.3) }
        var dot: Float = 0, na: Float = 0, nb: Float = 0
        for i in 0..<256 { dot += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i] }
        let exact = dot / (na.squareRoot() * nb.squareRoot())
        let q = QuantizedVector(a).cosine(QuantizedVector(b))
        #expect(abs(q - exact) < 0.02)
        var m = VectorMatrix(dim: 256)
        let qb = QuantizedVector(b)
        qb.values.withUnsafeBytes { m.append(key: 7, scale: qb.scale, bytes: $0) }
        #expect(abs(m.scores(QuantizedVector(a))[0] - q) < 1e-5)
    }

    @Test func ftsQueryDropsStopWordsAndOrsTheRest() {
        #expect(HybridRetriever.ftsQuery("Where did I first mention the lighthouse?") == "\"mention\" OR \"lighthouse\"")
        #expect(HybridRetriever.ftsQuery("what is it?") == nil)
    }
}

@Suite struct PassageStoreTests {
    func indexed(_ path: String, _ body: String) -> IndexedDocument { .parsed(path, body) }

    @Test func unchangedPassagesKeepTheirIdsAndDeletionsCascade() throws {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: PathBytes("/p"))
        let v1 = "# A\n\nalpha text here\n\n# B\n\nbeta text here\n\n# C\n\ngamma text\n"
        try db.apply(projectID: pid, upserts: [indexed("x.md", v1)])
        let doc = try #require(try db.document(projectID: pid, path: PathBytes("x.md")))
        let before = try db.passages(documentID: doc.id ?? 0)
        #expect(before.map(\.heading) == ["A", "B", "C"])
        let v2 = "# A\n\nalpha text here\n\n# B\n\nbeta text changed\n\n# C\n\ngamma text\n"
        try db.apply(projectID: pid, upserts: [indexed("x.md", v2)])
        let after = try db.passages(documentID: doc.id ?? 0)
        #expect(after[0].id == before[0].id)
        #expect(after[2].id == before[2].id)
        #expect(after[1].id != before[1].id)
        #expect(after[1].text.contains("changed"))
        let retriever = HybridRetriever(database: db)
        #expect(try retriever.retrieve("beta changed", scope: RetrievalScope(projectIDs: [pid]), limit: 5).first?.passage.id == after[1].id)
        try db.apply(projectID: pid, upserts: [], deletions: [PathBytes("x.md")])
        #expect(try retriever.retrieve("beta gamma alpha", scope: RetrievalScope(projectIDs: [pid]), limit: 5).isEmpty)
    }
}

extension IndexedDocument {
    /// A document as the indexer would store it, parsed from `body`, with its passages.
    static func parsed(_ path: String, _ body: String) -> IndexedDocument {
        let doc = MarkdownDocument(bytes: Array(body.utf8), fileName: path)
        return IndexedDocument(
            relativePath: PathBytes(path),
            stat: FileStat(kind: .regular, size: Int64(body.utf8.count), mtimeNs: 1, ctimeNs: 1, inode: 1, device: 1),
            sha256: SHA256Digest.hex(Array(body.utf8)), words: doc.wordCount, title: doc.title, headings: doc.headings,
            tags: [], body: doc.searchBody, passages: PassageSet(document: doc))
    }
}
