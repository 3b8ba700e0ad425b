import Foundation
import GRDB
import Testing
@testable import TKCore

/// The passage index keeps no copy of the text (contentless FTS5, text once and compressed in
/// `passage`), still forgets deleted passages, and v1 databases are migrated without re-embedding.
@Suite struct PassageLayoutTests {
    func indexed(_ path: String, _ body: String) -> IndexedDocument { .parsed(path, body) }

    func matches(_ db: AppDatabase, _ term: String) throws -> Int {
        try db.reader.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM passage_fts WHERE passage_fts MATCH ?", arguments: [term]) ?? 0 }
    }

    func count(_ db: AppDatabase, _ sql: String) throws -> Int {
        try db.reader.read { try Int.fetchOne($0, sql: sql) ?? 0 }
    }

    @Test func packRoundTrips() {
        for text in ["", "a", String(repeating: "The lighthouse keeper’s log. ", count: 200), "é\n\n```\ncode\n```"] {
            let (bytes, size) = PassageText.pack(text)
            #expect(PassageText.unpack(bytes, size: size) == text)
        }
        let long = String(repeating: "words that repeat compress well ", count: 100)
        #expect(PassageText.pack(long).bytes.count < long.utf8.count / 4)
        #expect(PassageText.unpack([1, 2, 3], size: 10) == nil)
    }

    @Test func theIndexKeepsNoCopyOfTheText() throws {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: PathBytes("/p"))
        try db.apply(projectID: pid, upserts: [indexed("x.md", "# Harbour\n\nThe lighthouse stands on the rock.\n")])
        #expect(try count(db, "SELECT count(*) FROM sqlite_master WHERE name = 'passage_fts_content'") == 0)
        // Contentless: the index gives back no text.
        let stored = try db.reader.read { try String.fetchOne($0, sql: "SELECT text FROM passage_fts LIMIT 1") }
        #expect(stored == nil)
        #expect(try matches(db, "lighthouse") == 1)
        let doc = try #require(try db.document(projectID: pid, path: PathBytes("x.md")))
        let texts = try db.passages(documentID: doc.id ?? 0).map(\.text)
        #expect(texts.count == 1 && texts[0].hasSuffix("The lighthouse stands on the rock."))
    }

    @Test func editedAndDeletedPassagesLeaveTheIndex() throws {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: PathBytes("/p"))
        try db.apply(projectID: pid, upserts: [indexed("x.md", "# A\n\nalpha lighthouse\n\n# B\n\nbeta harbour\n"),
                                               indexed("y.md", "# C\n\ngamma quay\n")])
        #expect(try matches(db, "lighthouse") == 1)
        try db.apply(projectID: pid, upserts: [indexed("x.md", "# A\n\nalpha beacon\n\n# B\n\nbeta harbour\n")])
        #expect(try matches(db, "lighthouse") == 0)
        #expect(try matches(db, "beacon") == 1)
        // A deleted document's passages go by the cascade; the index is told before the next write
        // (or by `forgetGonePassages`, which `ask` and the agent's embedding pass call).
        try db.apply(projectID: pid, upserts: [], deletions: [PathBytes("y.md")])
        try db.forgetGonePassages()
        #expect(try matches(db, "quay") == 0)
        #expect(try matches(db, "harbour") == 1)
        // Whole-index check: FTS5's integrity check against the tokens it was given.
        #expect(try count(db, "SELECT count(*) FROM passage_gone") == 0)
        try db.writer.write { db in
            try db.execute(sql: "INSERT INTO passage_fts(passage_fts, rank) VALUES('integrity-check', 0)")
        }
        // Ids are never reused (a gone passage's index entry could otherwise mask a new one).
        let maxBefore = try db.reader.read { try Int64.fetchOne($0, sql: "SELECT max(id) FROM passage") ?? 0 }
        try db.apply(projectID: pid, upserts: [], deletions: [PathBytes("x.md")])
        try db.apply(projectID: pid, upserts: [indexed("z.md", "# D\n\ndelta lighthouse\n")])
        let newID = try db.reader.read { try Int64.fetchOne($0, sql: "SELECT min(id) FROM passage") ?? 0 }
        #expect(newID > maxBefore)
        #expect(try matches(db, "lighthouse") == 1)
        #expect(try matches(db, "harbour") == 0)
    }

    @Test func version1DatabasesAreMigratedKeepingIdsAndEmbeddings() throws {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue, upTo: "v1-retrieval")
        let text = "The keeper climbs the stairs of the lighthouse at dusk."
        let digest: Int64 = 0x1234_5678
        try queue.write { db in
            try db.execute(sql: "INSERT INTO project(id, path, added_at) VALUES (1, x'2f70', '2026-01-01T00:00:00Z')")
            try db.execute(sql: """
                INSERT INTO document(id, project_id, path, size, mtime_ns, ctime_ns, inode, sha256, words, title, headings, tags, body, indexed_at)
                VALUES (7, 1, x'782e6d64', 1, 1, 1, 1, 'abc', 9, 'x', '', '', 'keeper', '2026-01-01T00:00:00Z')
                """)
            try db.execute(sql: "INSERT INTO document_fts(rowid, title, headings, tags, body) VALUES (7, 'x', '', '', 'keeper')")
            try db.execute(sql: "INSERT INTO passage(id, document_id, ordinal, start_line, end_line, words, digest) VALUES (42, 7, 0, 3, 3, 9, ?)",
                           arguments: [digest])
            try db.execute(sql: "INSERT INTO passage_fts(rowid, heading, text) VALUES (42, 'Tower', ?)", arguments: [text])
            try db.execute(sql: "INSERT INTO passage_vector(model, dim, digest, scale, vector) VALUES ('m', 2, ?, 1.0, x'0102')",
                           arguments: [digest])
        }
        let db = try AppDatabase(queue)
        let p = try #require(try db.passages(ids: [42])[42])
        #expect(p.text == text)
        #expect(p.heading == "Tower")
        #expect(try matches(db, "lighthouse") == 1)
        let pending = PendingPassage(key: digest, passage: digest, window: 0, projectID: 1, path: PathBytes("a.md"), isPrivate: false)
        #expect(try db.embeddingTexts([pending], budget: 512)[digest] == "Tower\n\n" + text)
        #expect(try count(db, "SELECT count(*) FROM passage_vector") == 1)
        #expect(try count(db, "SELECT count(*) FROM sqlite_master WHERE name = 'passage_fts_content'") == 0)
        let hits = try HybridRetriever(database: db).retrieve("lighthouse keeper", scope: RetrievalScope(projectIDs: [1]), limit: 5)
        #expect(hits.map(\.passage.id) == [42])
        // The migrated passage leaves the index with its document.
        try db.apply(projectID: 1, upserts: [], deletions: [PathBytes("x.md")])
        try db.forgetGonePassages()
        #expect(try matches(db, "lighthouse") == 0)
    }
}

/// The vector side reads each stored vector once and looks passages up by digest, best first; the
/// fusion keeps each side's order.
@Suite struct FusionTests {
    @Test func bestFirstIsASortedPrefix() {
        var g = SystemRandomNumberGenerator()
        let scores = (0..<5000).map { _ in Float(Int.random(in: 0..<300, using: &g)) / 7 }
        let full = scores.indices.sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
        for m in [0, 1, 7, 64, 400, 4999, 5000, 9000] {
            #expect(VectorMath.bestFirst(scores, first: m) == Array(full.prefix(m)))
        }
    }

    func vector(_ hot: Int, dim: Int = 16) -> QuantizedVector {
        QuantizedVector((0..<dim).map { $0 == hot ? 1 : 0.05 })
    }

    /// A database of two projects: p1's passages all point one way, p2's the other.
    func twoProjects() throws -> (AppDatabase, Int64, Int64) {
        let db = try AppDatabase.inMemory()
        let p1 = try db.projectID(for: PathBytes("/p1")), p2 = try db.projectID(for: PathBytes("/p2"))
        let layout = PassageLayoutTests()
        var many = ""
        for i in 0..<40 { many += "# Part \(i)\n\nharbour note number \(i) about boats\n\n" }
        try db.apply(projectID: p1, upserts: [layout.indexed("a.md", many)])
        try db.apply(projectID: p2, upserts: [layout.indexed("b.md", "# Tower\n\nthe lighthouse keeper\n\n# Rocks\n\nwaves on stone\n")])
        let keys = try db.reader.read { db in
            try Row.fetchAll(db, sql: "SELECT p.digest, d.project_id FROM passage p JOIN document d ON d.id = p.document_id")
                .map { ($0[0] as Int64, $0[1] as Int64) }
        }
        try db.storeVectors(model: "m", keys.map { ($0.0, $0.1 == p1 ? vector(0) : vector(1)) })
        return (db, p1, p2)
    }

    @Test func vectorCandidatesComeFromTheScopeEvenWhenOthersScoreHigher() throws {
        let (db, p1, p2) = try twoProjects()
        let r = HybridRetriever(database: db)
        // The question points like p1's 40 passages; asked of p2, its two passages still come back.
        let hits = try r.retrieve("zzz", scope: RetrievalScope(projectIDs: [p2]), limit: 5, query: vector(0), model: "m")
        #expect(hits.count == 2)
        #expect(hits.allSatisfy { $0.passage.projectID == p2 && $0.vectorRank != nil })
        let mine = try r.retrieve("zzz", scope: RetrievalScope(projectIDs: [p1]), limit: 5, query: vector(0), model: "m")
        #expect(mine.count == 5)
        #expect(mine.allSatisfy { $0.passage.projectID == p1 })
    }

    /// Keyword-only, the passages come in BM25's order all the way down, those below the list's mean
    /// (which the standardised fusion scores as nothing) included.
    @Test func keywordOnlyKeepsBM25OrderBelowTheMean() throws {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: PathBytes("/p"))
        let layout = PassageLayoutTests()
        // Passage i says "tide" i + 1 times in text of the same length: BM25 orders them 9, 8, … 0.
        let text = (0..<10).map { i in
            "# Part \(i)\n\n" + (0..<12).map { $0 <= i ? "tide" : "sand\($0)" }.joined(separator: " ") + "\n"
        }.joined(separator: "\n")
        try db.apply(projectID: pid, upserts: [layout.indexed("a.md", text)])
        let hits = try HybridRetriever(database: db).retrieve("tide", scope: RetrievalScope(projectIDs: [pid]), limit: 10)
        #expect(hits.map { $0.passage.heading } == (0..<10).reversed().map { "Part \($0)" })
    }
}

@Suite struct SelectiveQueryTests {
    @Test func wordsInMostPassagesOfABigIndexAreLeftOut() throws {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: PathBytes("/p"))
        let layout = PassageLayoutTests()
        var docs: [IndexedDocument] = []
        for d in 0..<30 {
            var body = ""
            for i in 0..<80 { body += "# Section \(i)\n\nthe window opens on part \(d) \(i)\n\n" }
            docs.append(layout.indexed("d\(d).md", body))
        }
        docs.append(layout.indexed("rare.md", "# Lighthouse\n\nthe lighthouse window\n"))
        try db.apply(projectID: pid, upserts: docs)
        let r = HybridRetriever(database: db)
        let q = try db.reader.read { try HybridRetriever.selectiveQuery("window lighthouse", table: "passage_fts", rows: "passage", db: $0) }
        #expect(q == "\"lighthouse\"")
        // "window" alone is kept: a question is never left without words.
        let alone = try db.reader.read { try HybridRetriever.selectiveQuery("window", table: "passage_fts", rows: "passage", db: $0) }
        #expect(alone == "\"window\"")
        let hits = try r.keyword("window lighthouse", scope: RetrievalScope(projectIDs: [pid]))
        #expect(hits.count == 1)
        // In a small index every word is kept.
        let small = try AppDatabase.inMemory()
        let sp = try small.projectID(for: PathBytes("/s"))
        try small.apply(projectID: sp, upserts: [layout.indexed("a.md", "# A\n\nthe window\n"), layout.indexed("b.md", "# B\n\nthe lighthouse window\n")])
        let both = try small.reader.read { try HybridRetriever.selectiveQuery("window lighthouse", table: "passage_fts", rows: "passage", db: $0) }
        #expect(both == "\"window\" OR \"lighthouse\"")
    }
}
