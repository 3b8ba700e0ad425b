import Foundation
import GRDB
import Logging
import Synchronization
import Testing
@testable import TKCore
import TKSearch

#if canImport(Glibc)
import Glibc
#endif

fileprivate final class TempProject {
    let url: URL
    var root: PathBytes { PathBytes(url.path) }
    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tk-index-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
    func write(_ rel: String, _ text: String) throws {
        let u = url.appendingPathComponent(rel)
        try FileManager.default.createDirectory(at: u.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: u)
    }
    func remove(_ rel: String) throws { try FileManager.default.removeItem(at: url.appendingPathComponent(rel)) }
    /// A project of 20 short notes, `n00.md` … `n19.md`.
    static func twentyNotes() throws -> TempProject {
        let p = try TempProject()
        for i in 0..<20 { try p.write(String(format: "n%02d.md", i), "# Note \(i)\n\nword\(i)\n") }
        return p
    }
    func mkdir(_ rel: String) throws {
        try FileManager.default.createDirectory(at: url.appendingPathComponent(rel), withIntermediateDirectories: true)
    }
}

@Suite struct IndexerTests {
    let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    fileprivate func sync(_ indexer: Indexer, _ p: TempProject, _ id: Int64, _ scopes: [Indexer.Scope], maxFileBytes: Int = 1 << 20)
        throws -> (IndexReport, [DocumentChange])
    {
        var changes: [DocumentChange] = []
        let report = try indexer.sync(root: p.root, projectID: id, scopes: scopes, filter: .standard,
                                      maxFileBytes: maxFileBytes, progress: nil, commit: { batch in
            try batch.commit(to: indexer.database)
            changes.append(contentsOf: batch.changes)
        })
        return (report, changes)
    }

    func paths(_ db: AppDatabase, _ id: Int64) throws -> [String] {
        try db.fingerprints(projectID: id).keys.map(\.display).sorted()
    }

    @Test func readNeverBlocksOnAFIFOAndDoesNotFollowLinks() throws {
        let p = try TempProject()
        try p.write("real.md", "hello")
        #expect(mkfifo(p.root.appending("pipe.md").display, 0o644) == 0)
        #expect(symlink(p.root.appending("real.md").display, p.root.appending("link.md").display) == 0)
        if case .bytes(let b, let st) = Indexer.readRegularFile(p.root.appending("real.md"), limit: 100) {
            #expect(b == Array("hello".utf8))
            #expect(st.size == 5 && st.kind == .regular)
        } else {
            Issue.record("regular file not read")
        }
        if case .bytes(let b, _) = Indexer.readRegularFile(p.root.appending("real.md"), limit: 3) {
            #expect(b == Array("hel".utf8))
        }
        guard case .vanished = Indexer.readRegularFile(p.root.appending("pipe.md"), limit: 100) else {
            Issue.record("a FIFO must not be read")
            return
        }
        guard case .vanished = Indexer.readRegularFile(p.root.appending("link.md"), limit: 100) else {
            Issue.record("a link must not be followed")
            return
        }
        guard case .vanished = Indexer.readRegularFile(p.root.appending("missing.md"), limit: 100) else {
            Issue.record("a missing file is gone")
            return
        }
    }

    /// Many small batches: the next batch is parsed while the last is written, FTS5 merging is off
    /// during the load and on again after it, and the index is one merged segment that matches
    /// `document` exactly, changes reported batch by batch in order.
    @Test func bulkLoadInBatches() throws {
        let db = try AppDatabase.inMemory()
        let id = try db.projectID(for: PathBytes("/p"))
        let p = try TempProject()
        var indexer = Indexer(database: db, logger: logger)
        indexer.batchSize = 7
        for i in 0..<100 { try p.write("d\(i / 10)/n\(i).md", "# Note \(i)\n\nword\(i) shared text\n") }
        let (report, changes) = try sync(indexer, p, id, [.folder(PathBytes([]))])
        #expect(report.updated == 100 && changes.count == 100)
        #expect(try paths(db, id).count == 100)
        try p.write("d3/n30.md", "# Note 30\n\nrewritten\n")
        try p.remove("d4/n41.md")
        _ = try sync(indexer, p, id, [.folder(PathBytes([]))])
        let hits = try db.search(SearchQuery("shared"), options: SearchOptions(limit: 500), queryText: "")
        #expect(hits.results.count == 98)
        #expect(try db.search(SearchQuery("word30"), options: SearchOptions(), queryText: "").results.isEmpty)
        #expect(try db.search(SearchQuery("rewritten"), options: SearchOptions(), queryText: "").results.map(\.path) == ["d3/n30.md"])
        try db.writer.write { db in
            try db.execute(sql: "INSERT INTO document_fts(document_fts) VALUES('integrity-check')")
            #expect(try String.fetchOne(db, sql: "SELECT v FROM document_fts_config WHERE k = 'automerge'") == "4")
            try db.execute(sql: "INSERT INTO passage_fts(passage_fts) VALUES('integrity-check')")
            #expect(try String.fetchOne(db, sql: "SELECT v FROM passage_fts_config WHERE k = 'automerge'") == "4")
        }
    }

    /// Each batch is committed by the caller's `commit` (its index rows in the caller's transaction),
    /// in batch order, one at a time, all through when `sync` returns. A batch whose commit throws is
    /// not in the index, no batch after it is committed, and `sync` throws the failure.
    @Test func eachBatchIsOneCommitAndAFailedOneStopsTheSync() throws {
        struct Refused: Error {}
        let db = try AppDatabase.inMemory()
        let id = try db.projectID(for: PathBytes("/p"))
        let p = try TempProject.twentyNotes()
        var indexer = Indexer(database: db, logger: logger)
        indexer.batchSize = 5
        var batches: [[String]] = []
        var inside = 0, overlapped = false
        _ = try indexer.sync(root: p.root, projectID: id, scopes: [.folder(PathBytes([]))], filter: .standard,
                             maxFileBytes: 1 << 20, progress: nil, commit: { batch in
            inside += 1
            if inside > 1 { overlapped = true }
            defer { inside -= 1 }
            try db.batchTransaction { tx in try batch.write(tx) }
            batches.append(batch.changes.map { change in
                if case .updated(let rel, _, _, _) = change { return rel.display }
                return "?"
            })
        })
        #expect(!overlapped)
        #expect(batches.count == 4)
        #expect(batches.flatMap { $0 } == (0..<20).map { String(format: "n%02d.md", $0) })

        // A second project: the second batch's commit fails after writing its rows.
        let other = try TempProject.twentyNotes()
        let otherID = try db.projectID(for: other.root)
        var committed = 0
        #expect(throws: Refused.self) {
            _ = try indexer.sync(root: other.root, projectID: otherID, scopes: [.folder(PathBytes([]))], filter: .standard,
                                 maxFileBytes: 1 << 20, progress: nil, commit: { batch in
                try db.batchTransaction { tx in
                    try batch.write(tx)
                    if committed == 1 { throw Refused() }
                }
                committed += 1
            })
        }
        #expect(committed == 1)
        #expect(try db.fingerprints(projectID: otherID).count == 5)
    }

    /// A batch is derived while the one before is committed: the first commit sees the second batch
    /// derived (before, derivation and commit took turns); each commit gets its own batch's
    /// derivation, in order; no two derivations and no two commits overlap.
    @Test func aBatchIsDerivedWhileTheOneBeforeIsCommitted() throws {
        let db = try AppDatabase.inMemory()
        let id = try db.projectID(for: PathBytes("/p"))
        let p = try TempProject.twentyNotes()
        var indexer = Indexer(database: db, logger: logger)
        indexer.batchSize = 5
        let derivedCount = Mutex(0)
        let deriving = Mutex(0)
        let derivesOverlapped = Mutex(false)
        var sawNextDerived = false
        var committed: [String] = []
        var derivedMatches = true
        func first(_ batch: IndexBatch) -> String {
            guard case .updated(let rel, _, _, _)? = batch.changes.first else { return "?" }
            return rel.display
        }
        _ = try indexer.sync(root: p.root, projectID: id, scopes: [.folder(PathBytes([]))], filter: .standard,
                             maxFileBytes: 1 << 20, progress: nil,
                             derive: { batch in
                                 if deriving.withLock({ $0 += 1; return $0 }) > 1 { derivesOverlapped.withLock { $0 = true } }
                                 defer { deriving.withLock { $0 -= 1 } }
                                 derivedCount.withLock { $0 += 1 }
                                 return first(batch)
                             },
                             commit: { batch in
                                 if committed.isEmpty {
                                     let deadline = Date().addingTimeInterval(10)
                                     while Date() < deadline {
                                         if derivedCount.withLock({ $0 }) > 1 { sawNextDerived = true; break }
                                         usleep(5_000)
                                     }
                                 }
                                 if batch.derived as? String != first(batch) { derivedMatches = false }
                                 try batch.commit(to: db)
                                 committed.append(first(batch))
                             })
        #expect(sawNextDerived)
        #expect(derivedMatches)
        #expect(!derivesOverlapped.withLock { $0 })
        #expect(committed == ["n00.md", "n05.md", "n10.md", "n15.md"])
        #expect(try db.fingerprints(projectID: id).count == 20)
    }

    /// The documents in the index without current passages, as every question asked before
    /// `passage_pending` kept them: no retrieval row, or one made from other bytes. (A deleted
    /// document's row stays, out of the index, for its history: it has no passages to write.)
    fileprivate static func withoutPassagesByScan(_ db: AppDatabase) throws -> Set<Int64> {
        try db.writer.read { db in
            Set(try Int64.fetchAll(db, sql: """
                SELECT c.id FROM document c LEFT JOIN document_retrieval r ON r.document_id = c.id
                WHERE c.in_index = 1 AND (r.document_id IS NULL OR r.sha256 != c.sha256)
                """))
        }
    }

    fileprivate static func pending(_ db: AppDatabase) throws -> Set<Int64> {
        try db.writer.read { Set(try Int64.fetchAll($0, sql: "SELECT document_id FROM passage_pending")) }
    }

    /// `passage_pending` (kept by the document writes) lists exactly the documents the old scan
    /// found, through a bulk load, the backfill, a save, a big change left to the backfill, a
    /// deletion and a project's removal; and no trigger is on `document` (see `SearchTests`).
    @Test func pendingPassagesAreTheDocumentsTheScanFound() throws {
        let db = try AppDatabase.inMemory()
        let p = try TempProject()
        let id = try db.projectID(for: p.root)
        var indexer = Indexer(database: db, logger: logger)
        indexer.batchSize = 4
        for i in 0..<12 { try p.write("n\(i).md", "# Note \(i)\n\nword\(i) in a passage\n") }
        func agree(_ count: Int, _ note: Comment) throws {
            let scan = try Self.withoutPassagesByScan(db)
            #expect(try Self.pending(db) == scan, note)
            #expect(scan.count == count, note)
            #expect(try db.documentsWithoutPassages().count == count, note)
        }
        _ = try sync(indexer, p, id, [.folder(PathBytes([]))])
        try agree(12, "after a bulk load")
        #expect(PassageBackfill.run(database: db, batch: 5) == 12)
        try agree(0, "after the backfill")
        try p.write("n1.md", "# Note 1\n\nchanged\n")
        _ = try sync(indexer, p, id, [.file(PathBytes("n1.md"))])
        try agree(0, "after a save")
        for i in 2..<12 { try p.write("n\(i).md", "# Note \(i)\n\nrewritten \(i)\n") }
        _ = try sync(indexer, p, id, [.folder(PathBytes([]))])
        try agree(10, "after a change big enough for a bulk load")
        try p.remove("n2.md")
        _ = try sync(indexer, p, id, [.file(PathBytes("n2.md"))])
        try agree(9, "after a deletion")
        #expect(PassageBackfill.run(database: db) == 9)
        try agree(0, "after the second backfill")
        try p.write("n3.md", "# Note 3\n\nonce more\n")
        for i in 4..<12 { try p.write("n\(i).md", "# Note \(i)\n\nagain \(i)\n") }
        _ = try sync(indexer, p, id, [.folder(PathBytes([]))])
        try agree(9, "after another big change")
        try db.removeProject(p.root)
        try agree(0, "after the project's removal")
        #expect(try Self.pending(db).isEmpty)
    }

    @Test func anExistingDatabaseStartsWithThePendingDocumentsItHas() throws {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue, upTo: "v1-passage-windows")
        try queue.write { db in
            try db.execute(sql: "INSERT INTO project(id, path, added_at) VALUES (1, ?, '')", arguments: [Data("/p".utf8)])
            for (i, sha) in ["a", "b", "c"].enumerated() {
                try db.execute(sql: """
                    INSERT INTO document(id, project_id, path, size, mtime_ns, ctime_ns, inode, sha256, words, title,
                        headings, tags, body, indexed_at) VALUES (?, 1, ?, 1, 1, 1, 1, ?, 1, '', '', '', 'x', '')
                    """,
                               arguments: [i + 1, Data("d\(i).md".utf8), sha])
            }
            try db.execute(sql: "INSERT INTO document_retrieval(document_id, sha256) VALUES (1, 'a'), (2, 'old')")
        }
        let db = try AppDatabase(queue)
        #expect(try Self.pending(db) == [2, 3])
        #expect(try Self.pending(db) == Self.withoutPassagesByScan(db))
    }

    /// A bulk load (a first index) leaves the retrieval passages to the backfill, which writes
    /// them all, batch by batch; a later save of one document writes its passages at once.
    @Test func bulkLoadLeavesPassagesToTheBackfill() throws {
        let db = try AppDatabase.inMemory()
        let p = try TempProject()
        let id = try db.projectID(for: p.root)
        var indexer = Indexer(database: db, logger: logger)
        indexer.batchSize = 5
        for i in 0..<40 { try p.write("n\(i).md", "# Note \(i)\n\nword\(i) in a passage of its own\n") }
        _ = try sync(indexer, p, id, [.folder(PathBytes([]))])
        func passageCount() throws -> Int { try db.writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM passage") ?? 0 } }
        #expect(try passageCount() == 0)
        #expect(try db.documentsWithoutPassages().count == 40)
        #expect(PassageBackfill.run(database: db, batch: 16) == 40)
        #expect(try db.documentsWithoutPassages().isEmpty)
        #expect(try passageCount() == 40)
        try db.writer.write { try $0.execute(sql: "INSERT INTO passage_fts(passage_fts) VALUES('integrity-check')") }
        try p.write("n3.md", "# Note 3\n\nrewritten\n\n## More\n\nsecond passage\n")
        _ = try sync(indexer, p, id, [.file(PathBytes("n3.md"))])
        #expect(try db.documentsWithoutPassages().isEmpty)
        #expect(try passageCount() == 41)
        #expect(PassageBackfill.run(database: db) == 0)
    }

    /// A batch ends at `batchBytes` of files even when it holds fewer than `batchSize` documents
    /// (long documents must not multiply the memory of the batches in flight), and never holds
    /// fewer than one document (a file larger than the limit is a batch of its own).
    @Test func batchesEndAtTheirByteBudget() throws {
        let db = try AppDatabase.inMemory()
        let id = try db.projectID(for: PathBytes("/p"))
        let p = try TempProject()
        var indexer = Indexer(database: db, logger: logger)
        indexer.batchSize = 1000
        indexer.batchBytes = 3000
        let line = String(repeating: "prose word ", count: 90) + "\n"   // ~1 KB
        for i in 0..<12 { try p.write("n\(String(format: "%02d", i)).md", "# Note \(i)\n\n" + line) }
        try p.write("z-long.md", "# Long\n\n" + String(repeating: line, count: 8))
        var batches: [[String]] = []
        let report = try indexer.sync(root: p.root, projectID: id, scopes: [.folder(PathBytes([]))], filter: .standard,
                                      maxFileBytes: 1 << 20, progress: nil, commit: { batch in
            try batch.commit(to: db)
            batches.append(batch.changes.compactMap { change -> String? in
                if case .updated(let rel, _, _, _) = change { return rel.display }
                return nil
            })
        })
        #expect(report.updated == 13)
        #expect(batches.map(\.count) == [3, 3, 3, 3, 1])
        #expect(batches.last == ["z-long.md"])
        #expect(try paths(db, id).count == 13)
    }

    @Test func fileReplacedByFolderAndBack() throws {
        let db = try AppDatabase.inMemory()
        let id = try db.projectID(for: PathBytes("/p"))
        let p = try TempProject()
        let indexer = Indexer(database: db, logger: logger)
        try p.write("fd.md", "# F\n\nfile\n")
        _ = try sync(indexer, p, id, [.folder(PathBytes([]))])
        #expect(try paths(db, id) == ["fd.md"])
        // The file becomes a folder: events give a change of the file and a rescan of the folder.
        try p.remove("fd.md")
        try p.write("fd.md/in.md", "# I\n\ninner\n")
        var (_, changes) = try sync(indexer, p, id, [.file(PathBytes("fd.md")), .folder(PathBytes("fd.md"))])
        #expect(try paths(db, id) == ["fd.md/in.md"])
        #expect(changes.contains { if case .deleted(let r, _) = $0 { return r == PathBytes("fd.md") } else { return false } })
        // And back: the folder removed, a file of that name created.
        try p.remove("fd.md")
        try p.write("fd.md", "# F\n\nagain\n")
        (_, changes) = try sync(indexer, p, id, [.folder(PathBytes("fd.md")), .file(PathBytes("fd.md"))])
        #expect(try paths(db, id) == ["fd.md"])
        // Even when only the folder's rescan is known.
        try p.remove("fd.md")
        try p.write("fd.md/x.md", "# X\n\nx\n")
        _ = try sync(indexer, p, id, [.folder(PathBytes("fd.md"))])
        #expect(try paths(db, id) == ["fd.md/x.md"])
    }

    @Test func tooLargeDropsTheEntryWithoutAChangeAndComesBack() throws {
        let db = try AppDatabase.inMemory()
        let id = try db.projectID(for: PathBytes("/p"))
        let p = try TempProject()
        let indexer = Indexer(database: db, logger: logger)
        try p.write("a.md", "# A\n\nsmall\n")
        _ = try sync(indexer, p, id, [.folder(PathBytes([]))], maxFileBytes: 100)
        try p.write("a.md", "# A\n\n" + String(repeating: "big ", count: 100))
        let (report, changes) = try sync(indexer, p, id, [.file(PathBytes("a.md"))], maxFileBytes: 100)
        #expect(try paths(db, id).isEmpty)
        #expect(changes.isEmpty)  // the sidecar (journey, decisions) is kept
        #expect((report.problems[PathBytes("a.md")] ?? nil)?.contains("max_file_bytes") == true)
        try p.write("a.md", "# A\n\nsmall again\n")
        let (report2, changes2) = try sync(indexer, p, id, [.file(PathBytes("a.md"))], maxFileBytes: 100)
        #expect(try paths(db, id) == ["a.md"])
        #expect(changes2.count == 1)
        #expect(report2.problems[PathBytes("a.md")] == .some(nil))
    }

    @Test func brokenFrontMatterIsAProblemButStillIndexed() throws {
        let db = try AppDatabase.inMemory()
        let id = try db.projectID(for: PathBytes("/p"))
        let p = try TempProject()
        try p.write("b.md", "---\ntitle: [x\n---\nbody\n")
        let (report, _) = try sync(Indexer(database: db, logger: logger), p, id, [.folder(PathBytes([]))])
        #expect(try paths(db, id) == ["b.md"])
        let problem = (report.problems[PathBytes("b.md")] ?? nil) ?? ""
        #expect(problem.hasPrefix("b.md: front matter"))
    }
}

@Suite struct DocumentChangeTests {
    @Test func indexedKeepsPathsAndHashesOnly() {
        let doc = MarkdownDocument(bytes: Array("# T\n\nsome words\n".utf8), fileName: "a.md")
        let changes: [DocumentChange] = [
            .updated(relative: PathBytes("a.md"), document: doc, sha256: "s1", previousSha256: "s0"),
            .moved(from: PathBytes("b.md"), to: PathBytes("c.md"), document: doc, sha256: "s2"),
            .deleted(relative: PathBytes("d.md"), previousSha256: "s3"),
        ]
        #expect(changes.map(\.indexed) == [
            .updated(relative: PathBytes("a.md"), sha256: "s1", previousSha256: "s0"),
            .moved(from: PathBytes("b.md"), to: PathBytes("c.md"), sha256: "s2"),
            .deleted(relative: PathBytes("d.md"), previousSha256: "s3"),
        ])
    }
}
