import Foundation
import GRDB
import Testing
@testable import TKCore

/// The review tables' records: what is written is read back as it was, in the columns' stored forms.
@Suite struct ReviewRecordTests {
    @Test func aRoundsFieldsSurviveTheDatabase() throws {
        let db = try AppDatabase.inMemory()
        let store = ReviewStore(database: db)
        let (queued, created) = try store.enqueue(project: PathBytes("/p"), document: PathBytes("a.md"), manual: false,
                                                  skipQuiet: false, advisors: nil, now: Date(timeIntervalSince1970: 0))
        #expect(created)
        #expect(try store.round(id: queued.id) == queued)
        var r = queued
        r.status = .done; r.manual = true; r.skipQuiet = true; r.reason = "why"; r.advisors = ["editor", "critic"]
        r.contentSha = "c"; r.promptHash = "h"; r.provider = "pr"; r.model = "m"; r.inputTokens = 10; r.outputTokens = 20
        r.costUsd = 0.25; r.attempts = 2; r.tries = 3; r.suggestions = 4; r.unanchored = 1; r.truncated = false
        r.ownerPid = 4242; r.notBefore = "n"; r.startedAt = "s"; r.finishedAt = "f"; r.error = "e"
        try store.update(r)
        #expect(try store.round(id: r.id) == r)
        r.truncated = true; r.advisors = []
        try store.update(r)
        #expect(try store.round(id: r.id) == r)
        let stored = try db.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT advisors, truncated, manual, status, owner_pid FROM review_round WHERE id = ?",
                             arguments: [r.id])
        }
        #expect(stored == ["advisors": "[]", "truncated": 1, "manual": 1, "status": "done", "owner_pid": 4242])
        // A round gone from the table is not brought back (nor is its update an error).
        var gone = r
        gone.id = "gone"
        try store.update(gone)
        #expect(try store.round(id: "gone") == nil)
    }

    @Test func anUnknownStatusAndUnreadableAdvisorsReadAsBefore() throws {
        let db = try AppDatabase.inMemory()
        let store = ReviewStore(database: db)
        let (r, _) = try store.enqueue(project: PathBytes("/p"), document: PathBytes("a.md"), manual: true, skipQuiet: false,
                                       advisors: ["editor"])
        try db.writer.write { db in
            try db.execute(sql: "UPDATE review_round SET status = 'later', advisors = 'not json' WHERE id = ?", arguments: [r.id])
        }
        let read = try #require(try store.round(id: r.id))
        #expect(read.status == .failed)
        #expect(read.advisors == nil)
    }

    @Test func aBaselineIsReplacedWhole() throws {
        let db = try AppDatabase.inMemory()
        let store = ReviewStore(database: db)
        try store.setBaseline(project: PathBytes("/p"), document: PathBytes("a.md"), contentSha: "x", words: [1, 2, 3],
                              now: Date(timeIntervalSince1970: 0))
        try store.setBaseline(project: PathBytes("/p"), document: PathBytes("a.md"), contentSha: "y", words: [4],
                              now: Date(timeIntervalSince1970: 60))
        #expect(try store.baseline(project: PathBytes("/p"), document: PathBytes("a.md")) == [4])
        let rows = try db.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT content_sha, updated_at FROM review_baseline")
        }
        #expect(rows == [["content_sha": "y", "updated_at": "1970-01-01T00:01:00Z"]])
    }
}
