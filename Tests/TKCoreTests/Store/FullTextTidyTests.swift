import Foundation
import GRDB
import Testing
@testable import TKCore

/// `tidyFullText`: an index left in many segments is merged into one, with the same answers; one
/// within the limit is left alone; a stop is seen between steps.
@Suite struct FullTextTidyTests {
    /// A passage index of `segments` segments (one a transaction, merging off as in a bulk load).
    static func fragmented(segments: Int) throws -> AppDatabase {
        let db = try AppDatabase.inMemory()
        try db.writer.write { try $0.execute(sql: "INSERT INTO passage_fts(passage_fts, rank) VALUES('automerge', 0)") }
        for s in 0..<segments {
            try db.writer.write { db in
                for i in 0..<40 {
                    let id = s * 40 + i + 1
                    try db.execute(sql: "INSERT INTO passage_fts(rowid, heading, text) VALUES (?, ?, ?)",
                                   arguments: [id, "Part \(s)", "window class \(i % 7 == 0 ? "register" : "other") words \(id)"])
                }
            }
        }
        try db.writer.write { try $0.execute(sql: "INSERT INTO passage_fts(passage_fts, rank) VALUES('automerge', 4)") }
        return db
    }

    static func matches(_ db: AppDatabase, _ q: String) throws -> [Int64] {
        try db.writer.read { try Int64.fetchAll($0, sql: "SELECT rowid FROM passage_fts WHERE passage_fts MATCH ? ORDER BY rank, rowid", arguments: [q]) }
    }

    @Test func manySegmentsAreMergedIntoOneWithTheSameAnswers() throws {
        let db = try Self.fragmented(segments: 12)
        #expect(try db.fullTextSegments()["passage_fts"] == 12)
        let before = try Self.matches(db, "register"), all = try Self.matches(db, "window OR words")
        #expect(try db.tidyFullText() == ["passage_fts"])
        #expect(try db.fullTextSegments()["passage_fts"] == 1)
        #expect(try Self.matches(db, "register") == before)
        #expect(try Self.matches(db, "window OR words") == all)
        try db.writer.write { try $0.execute(sql: "INSERT INTO passage_fts(passage_fts) VALUES('integrity-check')") }
        #expect(try db.tidyFullText().isEmpty)
    }

    @Test func fewSegmentsAreLeftAlone() throws {
        let db = try Self.fragmented(segments: AppDatabase.maxFullTextSegments)
        #expect(try db.tidyFullText().isEmpty)
        #expect(try db.fullTextSegments()["passage_fts"] == AppDatabase.maxFullTextSegments)
    }

    @Test func aStopIsSeenBeforeTheFirstStep() throws {
        let db = try Self.fragmented(segments: 12)
        let stop = StopFlag()
        stop.set()
        #expect(try db.tidyFullText(stop: stop).isEmpty)
        #expect(try db.fullTextSegments()["passage_fts"] == 12)
    }
}
