import Foundation
import GRDB
import Logging
import Synchronization
import Testing
@testable import TKCore

/// One commit (issue 20): a batch's index rows, journey rows, progress and history are one
/// transaction, and its sidecars are written from what was committed.
@Suite struct BatchCommitTests {
    func tempProject() throws -> (URL, PathBytes) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-commit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (dir, PathBytes(dir.path))
    }

    /// Records each committed transaction's tables, and whether the batch's sidecars existed when it
    /// was committed.
    final class CommitLog: TransactionObserver, @unchecked Sendable {
        // `@unchecked Sendable`: GRDB calls the observer on the writer's queue only, one call at a
        // time; the test reads `commits` after the writes are done.
        var tables = Set<String>()
        var commits: [(tables: Set<String>, sidecarsBefore: Int)] = []
        let sidecars: () -> Int
        init(sidecars: @escaping () -> Int) { self.sidecars = sidecars }
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
        func databaseDidChange(with event: DatabaseEvent) { tables.insert(event.tableName) }
        func databaseDidCommit(_ db: Database) {
            commits.append((tables, sidecars()))
            tables = []
        }
        func databaseDidRollback(_ db: Database) { tables = [] }
    }

    /// An owner on a new in-memory database, with one change of `a.md` recorded (`words` 1).
    func ownerWithOneChange(_ root: PathBytes) throws -> (AppDatabase, DocumentOwner) {
        let db = try AppDatabase.inMemory()
        let owner = DocumentOwner(sidecars: SidecarStore(), database: db)
        try change(owner, root) { $0.words = 1 }
        return (db, owner)
    }

    /// A change of `a.md` through the owner (as `accept` makes one).
    func change(_ owner: DocumentOwner, _ root: PathBytes, _ body: (inout ReviewSidecar) -> Void) throws {
        try owner.change(project: root, document: PathBytes("a.md"), cause: .other("test"),
                         fresh: { ReviewSidecar(document: "a.md", sha256: "x", updatedAt: "", words: 1) }) { body(&$0) }
    }

    func sidecarCount(_ root: PathBytes) -> Int {
        JourneyActions.sidecarFiles(under: root.appending(".tk")).count
    }

    /// A scan of three new documents through the agent's path (`Indexer.sync(commit:)` with
    /// `DocumentPipeline.commit`): one transaction holds the index rows, the journey rows and history,
    /// no sidecar exists when it commits, and every sidecar exists after.
    @Test func aBatchIsOneTransactionAndItsSidecarsFollowIt() throws {
        let (dir, root) = try tempProject()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try AppDatabase.inMemory()
        for name in ["a.md", "b.md", "c.md"] {
            try FileSystem.writeAtomically(Array("# \(name)\n\nThe report was written by the team.\n".utf8), to: root.appending(name))
        }
        let projectID = try db.projectID(for: root)
        let paths = Paths.resolve(environment: ["TK_DATA_DIR": dir.path + "/data"])
        let pipeline = DocumentPipeline(database: db, logger: Logger(label: "test"), sidecars: SidecarStore(), catalog: .builtIn,
                                        resolver: DocumentResolver(paths: paths, catalog: .builtIn))
        let log = CommitLog(sidecars: { sidecarCount(root) })
        db.writer.add(transactionObserver: log, extent: .observerLifetime)
        let project = pipeline.projectInputs(root: root, config: .defaults)
        let indexer = Indexer(database: db, logger: Logger(label: "test"))
        _ = try indexer.sync(root: root, projectID: projectID, scopes: [.folder(PathBytes([]))], filter: PathFilter(ignore: []),
                             maxFileBytes: 1 << 20, commit: { batch in
            _ = try pipeline.commit(batch.changes, index: batch, project: project, history: .init(paths: paths), lanes: 2)
        })
        let batchCommits = log.commits.filter { $0.tables.contains("document") || $0.tables.contains("journey_state") }
        #expect(batchCommits.count == 1)
        if let commit = batchCommits.first {
            #expect(commit.tables.isSuperset(of: ["document", "passage", "journey_state", "history_document", "history_snapshot"]))
            #expect(commit.tables.contains { $0.hasPrefix("document_fts") })
            #expect(commit.sidecarsBefore == 0)
        }
        #expect(sidecarCount(root) == 3)
        // What was committed is what the sidecar says.
        let checksums = try DocumentStateStore(database: db).sidecarChecksums(project: root)
        for name in ["a.md", "b.md", "c.md"] {
            let bytes = try FileSystem.read(ReviewSidecar.path(project: root, document: PathBytes(name)), limit: 1 << 20)
            #expect(checksums[PathBytes(name)] == SidecarStore.checksum(ofWritten: bytes))
        }
    }

    /// A batch whose transaction fails leaves nothing: no index row, no journey row, no sidecar.
    @Test func aFailedTransactionLeavesNoSidecar() throws {
        struct Refused: Error {}
        let (dir, root) = try tempProject()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try AppDatabase.inMemory()
        try FileSystem.writeAtomically(Array("# A\n\nText.\n".utf8), to: root.appending("a.md"))
        let projectID = try db.projectID(for: root)
        let pipeline = DocumentPipeline(database: db, logger: Logger(label: "test"), sidecars: SidecarStore(), catalog: .builtIn)
        let project = pipeline.projectInputs(root: root, config: .defaults)
        // A trigger that refuses every journey row stands for a disk that fills mid-transaction.
        try db.writer.write { db in
            try db.execute(sql: "CREATE TRIGGER refuse BEFORE INSERT ON journey_state BEGIN SELECT RAISE(ABORT, 'refused'); END")
        }
        let indexer = Indexer(database: db, logger: Logger(label: "test"))
        #expect(throws: (any Error).self) {
            _ = try indexer.sync(root: root, projectID: projectID, scopes: [.folder(PathBytes([]))], filter: PathFilter(ignore: []),
                                 maxFileBytes: 1 << 20, commit: { batch in
                _ = try pipeline.commit(batch.changes, index: batch, project: project, history: nil, lanes: 1)
            })
        }
        #expect(try db.fingerprints(projectID: projectID).isEmpty)
        #expect(sidecarCount(root) == 0)
    }

    /// A kill between a batch's commit and its sidecars leaves a sidecar that lags the database: the
    /// whole scan's check rewrites it from the database copy. A sidecar newer than its copy stays.
    @Test func aSidecarThatLagsTheDatabaseIsRewrittenFromIt() throws {
        let (dir, root) = try tempProject()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try AppDatabase.inMemory()
        let rel = PathBytes("a.md")
        let clock = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        let sidecars = SidecarStore(now: Now { clock.withLock { $0 } })
        let pipeline = DocumentPipeline(database: db, logger: Logger(label: "test"), sidecars: sidecars, catalog: .builtIn)
        func save(_ text: String, previous: String?) throws -> String {
            let bytes = Array(text.utf8)
            try FileSystem.writeAtomically(bytes, to: root.appending(rel))
            let sha = SHA256Digest.hex(bytes)
            let problems = pipeline.apply([.updated(relative: rel, document: MarkdownDocument(bytes: bytes, fileName: "a.md"),
                                                    sha256: sha, previousSha256: previous)], root: root, config: .defaults)
            #expect(problems[rel] == .some(nil))
            return sha
        }
        let first = try save("# A\n\nShort.\n", previous: nil)
        let path = ReviewSidecar.path(project: root, document: rel)
        let old = try FileSystem.read(path, limit: 1 << 20)
        clock.withLock { $0 += 5 }
        _ = try save("# A\n\nThe report was written by the team. It was very good.\n", previous: first)
        let committed = try FileSystem.read(path, limit: 1 << 20)
        #expect(committed != old)
        // The kill: the database holds the second state, the file still says the first.
        try FileSystem.writeAtomically(old, to: path)
        let problems = pipeline.verifySidecars(root: root)
        #expect(problems[rel] == .some(nil))
        #expect(try FileSystem.read(path, limit: 1 << 20) == committed)

        // A file newer than the database copy (written by a tk-agent without a database) stays.
        var newer = try JSON.decode(ReviewSidecar.self, from: committed)
        newer.updatedAt = RFC3339.string(clock.withLock { $0 } + 60)
        newer.quick = []
        let newerBytes = try SidecarStore.encode(newer)
        try FileSystem.writeAtomically(newerBytes, to: path)
        _ = pipeline.verifySidecars(root: root)
        #expect(try FileSystem.read(path, limit: 1 << 20) == newerBytes)
    }

    /// A prepared sidecar is written only if the file still says what was read: one another process
    /// changed in between is left as it is (the pipeline derives it again under the lock).
    @Test func aPreparedSidecarIsNotWrittenOverAChangeMadeMeanwhile() throws {
        let (dir, root) = try tempProject()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = SidecarStore()
        let rel = PathBytes("a.md")
        try store.write(project: root, document: rel, ReviewSidecar(document: "a.md", sha256: "x", updatedAt: "", words: 1))
        let prepared = try store.prepare(project: root, document: rel, rebuild: {
            ReviewSidecar(document: "a.md", sha256: "", updatedAt: "", words: 0)
        }) { $0.words = 2 }
        // Meanwhile, an `accept` from the CLI.
        try store.write(project: root, document: rel, ReviewSidecar(document: "a.md", sha256: "x", updatedAt: "", words: 3))
        let outcome = store.write(project: root, prepared: [prepared])
        guard case .changedMeanwhile = outcome.first else {
            Issue.record("expected changedMeanwhile, got \(outcome)")
            return
        }
        guard case .ok(let s, _) = store.read(project: root, document: rel) else {
            Issue.record("sidecar unreadable")
            return
        }
        #expect(s.words == 3)

        // Prepared again, nothing in between: written.
        let again = try store.prepare(project: root, document: rel, rebuild: {
            ReviewSidecar(document: "a.md", sha256: "", updatedAt: "", words: 0)
        }) { $0.words = 4 }
        guard case .done(wrote: true, _) = store.write(project: root, prepared: [again]).first else {
            Issue.record("expected a write")
            return
        }
        guard case .ok(let s2, _) = store.read(project: root, document: rel) else { return }
        #expect(s2.words == 4)
    }

    /// A single change (`DocumentOwner.change`, as `accept` makes) records the database copy before
    /// the file: when the database refuses it, the sidecar is not written.
    @Test func aChangeTheDatabaseRefusesLeavesTheSidecarAsItWas() throws {
        let (dir, root) = try tempProject()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rel = PathBytes("a.md")
        let (db, owner) = try ownerWithOneChange(root)
        let before = try FileSystem.read(ReviewSidecar.path(project: root, document: rel), limit: 1 << 20)
        try db.writer.write { db in
            try db.execute(sql: "CREATE TRIGGER refuse BEFORE UPDATE ON journey_state BEGIN SELECT RAISE(ABORT, 'refused'); END")
        }
        #expect(throws: DocumentStateError.self) { try change(owner, root) { $0.words = 2 } }
        #expect(try FileSystem.read(ReviewSidecar.path(project: root, document: rel), limit: 1 << 20) == before)
    }

    /// When the database's disk is full, a change (a round's suggestions, an accept) is still kept
    /// in the sidecar, and the error says so; once there is room, the next change records it.
    @Test func aFullDatabaseStillKeepsTheChangeInTheSidecar() throws {
        let (dir, root) = try tempProject()
        defer { try? FileManager.default.removeItem(at: dir) }
        let rel = PathBytes("a.md")
        let (db, owner) = try ownerWithOneChange(root)
        // The database cannot grow: the next record is SQLITE_FULL.
        try db.writer.write { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 1
            try db.execute(sql: "PRAGMA max_page_count = \(pages)")
        }
        let big = String(repeating: "x", count: 64 << 10)
        #expect(throws: DocumentStateError.self) {
            try change(owner, root) {
                $0.words = 2
                $0.document = big
            }
        }
        guard case .ok(let s, _) = SidecarStore().read(project: root, document: rel) else {
            Issue.record("sidecar unreadable")
            return
        }
        #expect(s.words == 2)
        // Room again: the next change starts from the file, and the database takes both in.
        try db.writer.write { db in try db.execute(sql: "PRAGMA max_page_count = 1073741823") }
        try change(owner, root) { $0.words += 1 }
        let copy = DocumentStateStore(database: db).load(project: root, document: rel)?.sidecar
        #expect(copy?.words == 3)
        #expect(copy?.document == big)
    }

    /// An `accept` between a batch's derivation and its sidecar write: the batch does not write over
    /// it; the document is derived again from the accepted sidecar, and the database records that.
    @Test func aBatchDerivesAgainADocumentChangedMeanwhile() throws {
        let (dir, root) = try tempProject()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try AppDatabase.inMemory()
        let rel = PathBytes("a.md")
        let pipeline = DocumentPipeline(database: db, logger: Logger(label: "test"), sidecars: SidecarStore(), catalog: .builtIn)
        let project = pipeline.projectInputs(root: root, config: .defaults)
        func changeOf(_ text: String, previous: String?) throws -> (DocumentChange, String) {
            let bytes = Array(text.utf8)
            try FileSystem.writeAtomically(bytes, to: root.appending(rel))
            let sha = SHA256Digest.hex(bytes)
            return (.updated(relative: rel, document: MarkdownDocument(bytes: bytes, fileName: "a.md"), sha256: sha,
                             previousSha256: previous), sha)
        }
        let (first, firstSha) = try changeOf("# A\n\nShort.\n", previous: nil)
        _ = pipeline.apply([first], project: project)
        let (second, secondSha) = try changeOf("# A\n\nThe report was written by the team.\n", previous: firstSha)
        let derived = pipeline.derive([second], project: project, lanes: 1)
        // Meanwhile, from the CLI: a decision the batch did not see.
        try pipeline.owner.change(project: root, document: rel, cause: .journeySet,
                                  fresh: { ReviewSidecar(document: "a.md", sha256: "", updatedAt: "", words: 0) }) {
            $0.journey.overrides = JourneyOverrides(storyType: "email_memo")
        }
        var faults = Set<FaultRecovery.DiskFault>()
        let committed = try pipeline.commit([second], index: nil, derived: derived, project: project, diskFaults: &faults)
        #expect(committed.problems[rel] == .some(nil))
        guard case .ok(let s, let bytes) = pipeline.sidecars.read(project: root, document: rel) else {
            Issue.record("sidecar unreadable")
            return
        }
        #expect(s.journey.overrides?.storyType == "email_memo")
        #expect(s.sha256 == secondSha)
        #expect(s.quick.contains { $0.rule == "passive" })
        let recorded = try pipeline.states.sidecarChecksums(project: root)[rel]
        #expect(recorded == SidecarStore.checksum(ofWritten: bytes))
    }
}
