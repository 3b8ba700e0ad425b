import Foundation
import GRDB
import Testing
@testable import TKCore
@testable import TKSearch

/// Queries that read their rows through GRDB records, checked against what was written (the
/// journey, history, usage and document queries no other test reads).
@Suite struct RecordQueryTests {
    func doc(_ path: String, body: String, problem: String? = nil) -> IndexedDocument {
        IndexedDocument(
            relativePath: PathBytes(path),
            stat: FileStat(kind: .regular, size: Int64(body.utf8.count), mtimeNs: 5, ctimeNs: 6, inode: 7, device: 1),
            sha256: SHA256Digest.hex(Array(body.utf8)), words: 2, title: "T \(path)", headings: [], tags: [], body: body,
            problem: problem)
    }

    @Test func documentsAndProjects() throws {
        let db = try AppDatabase.inMemory()
        let p = try db.projectID(for: PathBytes("/p"), now: Date(timeIntervalSince1970: 0))
        #expect(try db.projectID(for: PathBytes("/p")) == p)
        let q = try db.projectID(for: PathBytes("/q"))
        try db.apply(projectID: p, upserts: [doc("b.md", body: "bee bee\n", problem: "broken front matter"), doc("a.md", body: "ay ay\n")],
                     now: Date(timeIntervalSince1970: 60))
        #expect(try db.projects().map(\.id) == [p, q])
        #expect(try db.projects().map(\.root) == [PathBytes("/p"), PathBytes("/q")])
        let counts = try db.counts()
        #expect(counts.documents == 2 && counts.projects == 2)
        #expect(counts.perProject == [PathBytes("/p"): 2, PathBytes("/q"): 0])
        #expect(try db.documentProblems(projectID: p) == [PathBytes("b.md"): "broken front matter"])
        let summaries = try db.documentSummaries()
        #expect(summaries.map(\.path) == ["a.md", "b.md"])
        #expect(summaries[0].project == "/p" && summaries[0].words == 2 && summaries[0].title == "T a.md")
        #expect(summaries[0].indexedAt == "1970-01-01T00:01:00Z")
        let fp = Fingerprint(size: 8, mtimeNs: 5, ctimeNs: 6, inode: 7, sha256: SHA256Digest.hex(Array("bee bee\n".utf8)))
        #expect(try db.fingerprints(projectID: p, exact: PathBytes("b.md")) == fp)
        #expect(try db.fingerprints(projectID: p)[PathBytes("b.md")] == fp)
        #expect(try db.fingerprints(projectID: p, exact: PathBytes("c.md")) == nil)
        #expect(try db.document(projectID: p, path: PathBytes("b.md"))?.problem == "broken front matter")
        // A deletion takes the document out of the full-text index too.
        try db.apply(projectID: p, upserts: [], deletions: [PathBytes("b.md")])
        #expect(try db.search(SearchQuery("bee"), options: SearchOptions(), queryText: "").results.isEmpty)
        try db.removeProject(PathBytes("/p"))
        #expect(try db.search(SearchQuery("ay"), options: SearchOptions(), queryText: "").results.isEmpty)
        #expect(try db.projects().map(\.root) == [PathBytes("/q")])
    }

    @Test func journeyStateAndSummary() throws {
        let db = try AppDatabase.inMemory()
        let root = PathBytes("/p")
        let pid = try db.projectID(for: root)
        try db.apply(projectID: pid, upserts: [doc("a.md", body: "ay\n"), doc("b.md", body: "bee\n")])
        let store = DocumentStateStore(database: db)
        var sidecar = ReviewSidecar(document: "a.md", sha256: "s", updatedAt: "u", words: 1)
        sidecar.journey.stage = .draft
        try store.record(project: root, [
            DocumentStateStore.Entry(document: PathBytes("a.md"), sidecar: sidecar, content: Array("ay\n".utf8), derivedFrom: "d1"),
            DocumentStateStore.Entry(document: PathBytes("b.md"), sidecar: sidecar),
        ])
        let loaded = try #require(store.load(project: root, document: PathBytes("a.md")))
        #expect(loaded.sidecar == sidecar)
        #expect(loaded.content == Array("ay\n".utf8))
        #expect(loaded.contentSha256 == SHA256Digest.hex(Array("ay\n".utf8)))
        #expect(store.previousContent(project: root, document: PathBytes("a.md"))?.content == Array("ay\n".utf8))
        #expect(store.previousContent(project: root, document: PathBytes("b.md")) == nil)
        #expect(store.load(project: root, document: PathBytes("c.md")) == nil)
        #expect(try store.derivations(project: root, paths: nil) == [PathBytes("a.md"): "d1"])
        let facts = try db.journeyFacts(project: root)
        #expect(facts[PathBytes("a.md")] == JourneyFact(stage: .draft, pendingSuggestions: 0))
        #expect(try db.journeyFacts()[PathBytes("/p/b.md")]?.stage == .draft)
        let summary = try #require(try db.journeySummary()[root])
        #expect(summary.stages == ["draft": 2])
        #expect(summary.pendingSuggestions == 0)
        // The count reads two covering indexes, never a row (a journey row holds its sidecar first).
        let plan = try db.writer.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + AppDatabase.stageCountSQL).map { $0["detail"] as String }
        }
        #expect(plan.contains { $0.contains("COVERING INDEX journey_state_stage") }, "\(plan)")
        #expect(plan.contains { $0.contains("COVERING INDEX document_project_in_index") }, "\(plan)")
        // A deleted document's journey (kept with its history) is not counted.
        try db.apply(projectID: pid, upserts: [], deletions: [PathBytes("b.md")])
        #expect(try db.journeySummary()[root]?.stages == ["draft": 1])
    }

    @Test func historyFiguresStagesAndScopes() throws {
        let db = try AppDatabase.inMemory()
        let service = HistoryService(database: db, now: Now { Date(timeIntervalSince1970: 1_795_600_000) })
        let root = PathBytes("/p"), a = PathBytes("a.md")
        let first = try service.projectFirstSeen(root)
        #expect(try service.projectFirstSeen(root) == first)
        let progress = Configuration.defaults.progress, history = Configuration.defaults.history
        let reached = try service.observe(project: root, events: [.saved(path: a, bytes: Array("One two.\n".utf8), created: true)],
                                          progress: progress, history: history, goal: 2)
        #expect(reached.goalReached == 2)
        // The goal is announced once a day.
        let again = try service.observe(project: root, events: [.saved(path: PathBytes("b.md"), bytes: Array("Three.\n".utf8), created: true)],
                                        progress: progress, history: history, goal: 2)
        #expect(again.goalReached == nil && again.count.written == 1)
        let day = ProgressCalendar.day(of: Date(timeIntervalSince1970: 1_795_600_000), dayStarts: progress.dayStarts)
        #expect(try service.writtenByDay(project: root) == [day: 3])
        #expect(try service.writtenByDay(project: nil) == [day: 3])
        let perDocument = try service.documents(project: root, day: day)
        #expect(perDocument.map(\.path) == ["a.md", "b.md"])
        #expect(perDocument.first?.count == WordsWritten.Count(written: 2, imported: 0, deleted: 0))
        // The first stage seen is only remembered; a change keeps a version.
        #expect(try !service.stageSeen(project: root, path: a, stage: "draft", bytes: Array("One two.\n".utf8), history: history))
        #expect(try service.stageSeen(project: root, path: a, stage: "revise", bytes: Array("One two.\n".utf8), history: history))
        #expect(try !service.stageSeen(project: root, path: PathBytes("none.md"), stage: "draft", bytes: [], history: history))
        let versions = try service.list(project: root, path: a)
        #expect(versions.map(\.reason) == ["stage", "first"])
        #expect(versions.map(\.number) == [2, 1])
        let noted = try service.snapshot(project: root, path: a, bytes: Array("One two three.\n".utf8), reason: "manual", note: "n")
        #expect(noted.note == "n" && noted.number == 3 && noted.added == 1 && noted.path == "a.md")
        #expect(try service.snapshot(project: root, path: a, rev: noted.rev) == SnapshotRecord(
            rev: noted.rev, path: "a.md", sha256: noted.sha256, time: noted.time, reason: "manual", note: "n", words: 3,
            added: 1, removed: 0))
        try service.setRoundScope("r1", "all")
        try service.setRoundScope("r1", "changed")
        #expect(service.roundScope("r1") == "changed")
        #expect(service.roundScope("r2") == nil)
    }

    @Test func usageReportAndWaitingRounds() throws {
        let db = try AppDatabase.inMemory()
        let ledger = UsageLedger(database: db)
        let at = Date(timeIntervalSince1970: 1_795_600_000)
        #expect(try ledger.costPerInputToken(provider: "a", model: "m") == nil)
        try ledger.record(provider: "a", model: "m", usage: LLMUsage(inputTokens: 100, outputTokens: 10), costUsd: 0.5,
                          kind: .round, at: at)
        try ledger.record(provider: "b", model: "n", usage: LLMUsage(inputTokens: 50, outputTokens: 5), costUsd: 0, kind: .cli,
                          local: true, at: at)
        #expect(try ledger.costPerInputToken(provider: "a", model: "m") == 0.005)
        #expect(try ledger.costPerInputToken(provider: "b", model: "n") == nil)
        let totals = try ledger.totals(now: at)
        #expect(totals.today == UsageLedger.Totals(calls: 2, inputTokens: 150, outputTokens: 15, costUsd: 0.5))
        #expect(try ledger.totals(now: at.addingTimeInterval(-86_400 * 40)).month == UsageLedger.Totals())
        let report = try ledger.report()
        #expect(report.days == [UsageLedger.Line(key: UsageLedger.day(at), provider: nil, totals: totals.today)])
        #expect(report.months.map(\.key) == [UsageLedger.month(at)])
        #expect(report.models.map(\.key) == ["m", "n"])
        #expect(report.models.map(\.provider) == ["a", "b"])
        let local = try db.writer.read { db in try Bool.fetchOne(db, sql: "SELECT local FROM usage_ledger WHERE provider = 'b'") }
        #expect(local == true)

        let store = ReviewStore(database: db)
        var (r, _) = try store.enqueue(project: PathBytes("/p"), document: PathBytes("a.md"), manual: true, skipQuiet: false,
                                       advisors: nil)
        r.status = .waiting
        try store.update(r)
        var (s, _) = try store.enqueue(project: PathBytes("/p"), document: PathBytes("b.md"), manual: true, skipQuiet: false,
                                       advisors: nil)
        s.status = .waiting; s.reason = "budget reached"
        try store.update(s)
        #expect(try store.waitingReasons().sorted() == [
            "review of a.md waiting: no reason recorded", "review of b.md waiting: budget reached",
        ])
        #expect(try store.counts().waiting == 2)
    }
}
