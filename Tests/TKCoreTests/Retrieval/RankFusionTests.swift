import Foundation
import GRDB
import Testing
@testable import TKCore

/// Reciprocal-rank fusion ranks every candidate on both sides, so a passage is not lifted over the
/// keyword side's best one merely for being in both lists.
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
        #expect(a.vectorRank == 4)
        #expect(hits.first?.passage.id == id["B"])
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
