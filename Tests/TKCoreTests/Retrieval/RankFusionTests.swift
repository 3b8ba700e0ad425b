import Foundation
import GRDB
import Testing
@testable import TKCore

/// The fusion puts each side's scores on one scale by their own spread: a passage is not lifted over
/// the keyword side's best one merely for being in both lists, and a passage far ahead on the vector
/// side is not buried by a weak keyword list.
@Suite struct RankFusionTests {
    func vector(_ weights: [Int: Float], dim: Int = 16) -> QuantizedVector {
        QuantizedVector((0..<dim).map { weights[$0] ?? 0.05 })
    }

    /// One document, four passages: A has every word of the question, B and C one each, D none; the
    /// vectors point B, C, D, A from nearest to farthest from the question's.
    func fourPassages() throws -> (AppDatabase, Int64, [String: Int64]) {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: PathBytes("/p"))
        try db.apply(projectID: pid, upserts: [.parsed("a.md", """
            # One

            the lighthouse keeper lit the lighthouse lamp

            # Two

            the keeper walked and the keeper slept

            # Three

            a lamp glowed in the window

            # Four

            the sea was calm all night
            """)])
        let rows = try db.reader.read { db in
            try Row.fetchAll(db, sql: "SELECT id, digest FROM passage ORDER BY ordinal").map { ($0[0] as Int64, $0[1] as Int64) }
        }
        try #require(rows.count == 4)
        let names = ["A", "B", "C", "D"]
        let vectors = [vector([5: 1]), vector([0: 1]), vector([0: 1, 1: 0.5]), vector([0: 1, 2: 0.9])]
        try db.storeVectors(model: "m", rows.indices.map { (rows[$0].1, vectors[$0]) })
        return (db, pid, Dictionary(uniqueKeysWithValues: rows.indices.map { (names[$0], rows[$0].0) }))
    }

    @Test func theKeywordSidesBestPassageIsNotPushedDownByPassagesInBothLists() throws {
        let (db, pid, id) = try fourPassages()
        var r = HybridRetriever(database: db)
        r.candidates = 3   // the vector side's three: B, C, D; A is only on the keyword side's list
        let scope = RetrievalScope(projectIDs: [pid])
        let keywordOnly = try r.retrieve("lighthouse keeper lamp", scope: scope, limit: 4)
        #expect(keywordOnly.first?.passage.id == id["A"])
        let hits = try r.retrieve("lighthouse keeper lamp", scope: scope, limit: 4, query: vector([0: 1]), model: "m")
        // With the vector list's own ranks only, A (keyword 1st, no vector rank) came third after
        // B and C, which are in both lists.
        #expect(hits.prefix(2).map(\.passage.id).contains(id["A"]))
        let a = try #require(hits.first { $0.passage.id == id["A"] })
        #expect(a.keywordRank == 1)
        #expect(a.vectorRank == nil)
    }

    /// A note only meaning finds (no word of the question in it, its vector the question's) comes
    /// first, though every other passage matches a word of the question. Ranked on both sides by
    /// reciprocal rank, it came below the keyword side's first few (each scored on both sides).
    @Test func aStrongVectorHitIsNotBuriedByAWeakKeywordList() throws {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: PathBytes("/p"))
        let scenes = (0..<12).map { i in
            "# Scene \(i)\n\nThe harbour wall \(i) stood grey while gull\(i) and boat\(i) passed the pier \(i).\n"
        }
        try db.apply(projectID: pid, upserts: scenes.enumerated().map { .parsed("s\($0.offset).md", $0.element) }
                     + [.parsed("note.md", "# Note\n\nLydia dreads deep lakes since the boating accident.\n")])
        let rows = try db.reader.read { db in
            try Row.fetchAll(db, sql: """
                SELECT p.id, p.digest, d.path FROM passage p JOIN document d ON d.id = p.document_id ORDER BY p.id
                """).map { ($0[0] as Int64, $0[1] as Int64, String(decoding: $0[2] as Data, as: UTF8.self)) }
        }
        var g = SplitMix(seed: 7)
        let note = try #require(rows.first { $0.2 == "note.md" })
        try db.storeVectors(model: "m", rows.map { row in
            (row.1, row.2 == "note.md" ? vector([0: 1]) : QuantizedVector((0..<16).map { _ in Float(g.next() % 1000) / 1000 }))
        })
        let hits = try HybridRetriever(database: db).retrieve("which sister fears the harbour water", scope: RetrievalScope(projectIDs: [pid]),
                                                              limit: 5, query: vector([0: 1]), model: "m")
        #expect(hits.first?.passage.id == note.0)
    }

    /// Every keyword hit shares one common word with a question worded otherwise; the best of them
    /// is also close in meaning, though less than a note that has none of the question's words. The
    /// keyword list is weighed by how much of the question it holds, so the note comes first.
    @Test func aKeywordListHoldingLittleOfTheQuestionDoesNotOutweighMeaning() throws {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: PathBytes("/p"))
        let scenes = (0..<12).map { i in
            "# Scene \(i)\n\nThe harbour " + String(repeating: "stone and rope and tide \(i) ", count: i + 1) + ".\n"
        }
        try db.apply(projectID: pid, upserts: scenes.enumerated().map { .parsed("s\($0.offset).md", $0.element) }
                     + [.parsed("note.md", "# Note\n\nLydia dreads deep lakes since the boating accident.\n")])
        let rows = try db.reader.read { db in
            try Row.fetchAll(db, sql: """
                SELECT p.id, p.digest, d.path FROM passage p JOIN document d ON d.id = p.document_id ORDER BY p.id
                """).map { ($0[0] as Int64, $0[1] as Int64, String(decoding: $0[2] as Data, as: UTF8.self)) }
        }
        let note = try #require(rows.first { $0.2 == "note.md" })
        // The shortest scene is the best keyword hit, and near the question in meaning too.
        try db.storeVectors(model: "m", rows.map { row in
            switch row.2 {
            case "note.md": (row.1, vector([0: 1, 1: 0.3]))
            case "s0.md": (row.1, vector([0: 1, 1: 0.5]))
            default: (row.1, vector([2 + Int(row.0 % 10): 1]))
            }
        })
        var r = HybridRetriever(database: db)
        r.candidates = 20
        let hits = try r.retrieve("which sister fears the harbour water", scope: RetrievalScope(projectIDs: [pid]),
                                  limit: 3, query: vector([0: 1]), model: "m")
        #expect(hits.first?.passage.id == note.0, "\(hits.map(\.passage.id)), note \(note.0)")
        // Keyword-only answers keep BM25's order: the shortest scene first.
        let kw = try r.retrieve("which sister fears the harbour water", scope: RetrievalScope(projectIDs: [pid]), limit: 3)
        #expect(kw.first?.passage.id == rows.first { $0.2 == "s0.md" }?.0)
    }

    /// `ask` finds the keyword side while the question's embedding is on its way and hands it in:
    /// the fusion uses it as found (the same answer as finding it there), and one weighed otherwise
    /// than the fusion needs is not used.
    @Test func aKeywordSideFoundAheadIsUsedOnlyWhenWeighedAsTheFusionNeeds() throws {
        let (db, pid, id) = try fourPassages()
        var r = HybridRetriever(database: db)
        r.candidates = 3
        let scope = RetrievalScope(projectIDs: [pid])
        let q = "lighthouse keeper lamp"
        func ranks(_ hits: [RetrievedPassage]) -> [String] {
            hits.map { "\($0.passage.id):\($0.keywordRank.map(String.init) ?? "-"):\($0.vectorRank.map(String.init) ?? "-")" }
        }
        let found = try r.retrieve(q, scope: scope, limit: 4, query: vector([0: 1]), model: "m")
        let ahead = try r.retrieve(q, scope: scope, limit: 4, query: vector([0: 1]), model: "m",
                                   keywordList: r.keywordList(q, scope: scope, weighed: true))
        #expect(ranks(ahead) == ranks(found))
        // A list handed in is what the fusion reads: an empty one leaves A (keyword side only) out.
        let empty = try r.retrieve(q, scope: scope, limit: 4, query: vector([0: 1]), model: "m",
                                   keywordList: HybridRetriever.KeywordList(candidates: [], weighed: true))
        #expect(!empty.contains { $0.passage.id == id["A"] })
        #expect(empty.allSatisfy { $0.keywordRank == nil })
        // One not weighed (a keyword-only answer's) is found again for a fusion.
        let unweighed = try r.retrieve(q, scope: scope, limit: 4, query: vector([0: 1]), model: "m",
                                       keywordList: HybridRetriever.KeywordList(candidates: [], weighed: false))
        #expect(ranks(unweighed) == ranks(found))
    }

    @Test func aPassageWithoutAVectorKeepsItsKeywordRankOnly() throws {
        let (db, pid, id) = try fourPassages()
        // A's vector is gone (e.g. not embedded yet): it is ranked by the keyword side alone.
        try db.writer.write { db in
            try db.execute(sql: "DELETE FROM passage_vector WHERE digest = (SELECT digest FROM passage WHERE id = ?)",
                           arguments: [id["A"]])
        }
        var r = HybridRetriever(database: db)
        r.candidates = 3
        let hits = try r.retrieve("lighthouse keeper lamp", scope: RetrievalScope(projectIDs: [pid]), limit: 4,
                                  query: vector([0: 1]), model: "m")
        let a = try #require(hits.first { $0.passage.id == id["A"] })
        #expect(a.vectorRank == nil)
        #expect(a.keywordRank == 1)
    }
}
