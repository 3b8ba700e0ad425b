import Foundation
import Testing
@testable import TKCore
@testable import TKSearch

@Suite struct SearchQueryTests {
    @Test("user input becomes a safe MATCH expression", arguments: [
        ("C++", #""C++""#),
        ("don't", #""don't""#),
        ("AND", #""AND""#),
        ("NOT x", #""NOT" "x""#),
        ("title: plan", #""title:" "plan""#),
        (#""unbalanced"#, #""unbalanced""#),
        (#"say "hello world" now"#, #""say" "hello world" "now""#),
        ("conf*", #""conf"*"#),
        (#""error hand"*"#, #""error hand"*"#),
        (#"a"b"#, #""a" "b""#),
        ("(plan", #""(plan""#),
        ("\u{201C}curly phrase\u{201D}", #""curly phrase""#),
    ])
    func quoting(input: String, expected: String) {
        #expect(SearchQuery(input).matchExpression == expected)
    }

    @Test("nothing searchable gives no query", arguments: ["", "   ", "*", "\"\"", "--", "***"])
    func empty(input: String) {
        #expect(SearchQuery(input).matchExpression == nil)
    }
}

@Suite struct SearchStoreTests {
    func doc(_ path: String, title: String, body: String, tags: [String] = []) -> IndexedDocument {
        IndexedDocument(
            relativePath: PathBytes(path),
            stat: FileStat(kind: .regular, size: Int64(body.utf8.count), mtimeNs: 1, ctimeNs: 1, inode: 1, device: 1),
            sha256: SHA256Digest.hex(Array(body.utf8)), words: body.split(separator: " ").count,
            title: title, headings: [], tags: tags, body: body)
    }

    @Test func ranksTitleAboveBodyAndFindsLine() throws {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: PathBytes("/p"))
        try db.apply(projectID: pid, upserts: [
            doc("body.md", title: "Other", body: "intro\n\nthe garden is quiet\n"),
            doc("title.md", title: "Garden notes", body: "nothing here\n"),
        ])
        let r = try db.search(SearchQuery("garden"), options: SearchOptions(), queryText: "garden")
        #expect(r.results.map(\.path) == ["title.md", "body.md"])
        #expect(r.results[1].line == 3)
        #expect(r.results[1].snippet == "the garden is quiet")
        #expect(r.results[1].highlights == [[4, 10]])
    }

    @Test func updatesAndDeletesKeepFTSInSync() throws {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: PathBytes("/p"))
        try db.apply(projectID: pid, upserts: [doc("a.md", title: "A", body: "apple\n")])
        try db.apply(projectID: pid, upserts: [doc("a.md", title: "A", body: "banana\n")])
        #expect(try db.search(SearchQuery("apple"), options: SearchOptions(), queryText: "").results.isEmpty)
        #expect(try db.search(SearchQuery("banana"), options: SearchOptions(), queryText: "").results.count == 1)
        try db.apply(projectID: pid, upserts: [], deletions: [PathBytes("a.md")])
        #expect(try db.search(SearchQuery("banana"), options: SearchOptions(), queryText: "").results.isEmpty)
        try db.writer.write { try $0.execute(sql: "INSERT INTO document_fts(document_fts) VALUES('integrity-check')") }
    }

    /// The full-text index is maintained by `apply` and `removeProject` (no triggers): after
    /// inserts, updates, deletions and a removed project it matches `document` exactly (a deleted
    /// document's row stays, out of the index, with an empty entry).
    @Test func indexFollowsEveryKindOfChange() throws {
        let db = try AppDatabase.inMemory()
        let p = try db.projectID(for: PathBytes("/p"))
        let q = try db.projectID(for: PathBytes("/q"))
        try db.apply(projectID: p, upserts: [
            doc("a.md", title: "Alpha", body: "apple orchard\n"), doc("b.md", title: "Beta", body: "banana split\n"),
        ])
        try db.apply(projectID: q, upserts: [doc("c.md", title: "Gamma", body: "cherry apple\n")])
        // Update one (new words in, old words out), delete another, touch a third: one transaction.
        try db.apply(projectID: p, upserts: [doc("a.md", title: "Alpha two", body: "apricot\n")],
                     deletions: [PathBytes("b.md"), PathBytes("missing.md")])
        func paths(_ w: String) throws -> [String] {
            try db.search(SearchQuery(w), options: SearchOptions(), queryText: w).results.map(\.path).sorted()
        }
        #expect(try paths("apple") == ["c.md"])
        #expect(try paths("apricot") == ["a.md"])
        #expect(try paths("two") == ["a.md"])
        #expect(try paths("banana") == [])
        try db.removeProject(PathBytes("/q"))
        #expect(try paths("cherry") == [])
        try db.writer.write { db in
            try db.execute(sql: "INSERT INTO document_fts(document_fts, rank) VALUES('integrity-check', 1)")
            // a.md, and b.md's row kept out of the index (for its history) with an empty entry.
            let entries = try Int.fetchOne(db, sql: "SELECT count(*) FROM document_fts_docsize")
            #expect(entries == 2)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM document") == 2)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM document WHERE in_index = 1") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'document'") == 0)
        }
    }

    @Test func nfcAndNfdPathsAreDistinctRows() throws {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: PathBytes("/p"))
        try db.apply(projectID: pid, upserts: [
            doc("caf\u{e9}.md", title: "one", body: "x\n"), doc("cafe\u{301}.md", title: "two", body: "y\n"),
        ])
        #expect(try db.fingerprints(projectID: pid).count == 2)
    }

    @Test func subtreeFingerprintsUseBytePrefix() throws {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: PathBytes("/p"))
        try db.apply(projectID: pid, upserts: [
            doc("a/x.md", title: "", body: "1\n"), doc("a/b/y.md", title: "", body: "2\n"),
            doc("ab/z.md", title: "", body: "3\n"), doc("a.md", title: "", body: "4\n"),
        ])
        let under = try db.fingerprints(projectID: pid, under: PathBytes("a"))
        #expect(Set(under.keys) == [PathBytes("a/x.md"), PathBytes("a/b/y.md")])
    }
}
