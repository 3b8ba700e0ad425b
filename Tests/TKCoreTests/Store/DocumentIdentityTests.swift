import Foundation
import GRDB
import Testing
@testable import TKCore
@testable import TKSearch

/// Documents keyed by id: only `project` and `document` hold paths; a rename is one update; a
/// deleted document keeps its history; the migration from path keys keeps every row.
@Suite struct DocumentIdentityTests {
    let root = PathBytes("/p")

    func doc(_ path: String, _ body: String) -> IndexedDocument {
        IndexedDocument(
            relativePath: PathBytes(path),
            stat: FileStat(kind: .regular, size: Int64(body.utf8.count), mtimeNs: 1, ctimeNs: 1, inode: 1, device: 1),
            sha256: SHA256Digest.hex(Array(body.utf8)), words: body.split(separator: " ").count,
            title: path, headings: [], tags: [], body: body)
    }

    /// Everything recorded of `a.md`: journey, last version and a snapshot, words written, a round
    /// and its baseline.
    func record(_ db: AppDatabase, _ path: String) throws {
        let rel = PathBytes(path)
        try DocumentStateStore(database: db).record(
            project: root, document: rel, sidecar: ReviewSidecar(document: path, sha256: "s", updatedAt: "t", words: 3))
        let history = HistoryService(database: db, now: .system)
        try history.observe(project: root, events: [.saved(path: rel, bytes: Array("one two three\n".utf8), created: true)],
                            progress: Configuration.defaults.progress, history: Configuration.defaults.history)
        try history.snapshot(project: root, path: rel, bytes: Array("one two three four\n".utf8), reason: "manual")
        let reviews = ReviewStore(database: db)
        _ = try reviews.enqueue(project: root, document: rel, manual: true, skipQuiet: false, advisors: nil)
        try reviews.setBaseline(project: root, document: rel, contentSha: "x", words: [1, 2])
    }

    func recorded(_ db: AppDatabase, _ path: String) throws -> (journey: Bool, versions: Int, written: Int, rounds: Int, baseline: Int) {
        let rel = PathBytes(path)
        let history = HistoryService(database: db, now: .system)
        let written = try history.documents(project: root, day: ProgressCalendar.day(of: Date(), dayStarts: Configuration.defaults.progress.dayStarts))
            .filter { $0.path == path }.map(\.count.written).reduce(0, +)
        let journey = DocumentStateStore(database: db).load(project: root, document: rel) != nil
        let versions = try history.list(project: root, path: rel).count
        let rounds = try ReviewStore(database: db).rounds(project: root, document: rel).count
        let baseline = try ReviewStore(database: db).baseline(project: root, document: rel).count
        return (journey, versions, written, rounds, baseline)
    }

    func id(_ db: AppDatabase, _ path: String) throws -> Int64? {
        try db.writer.read { try DocumentIdentity.find($0, project: root, path: PathBytes(path)) }
    }

    @Test func onlyProjectAndDocumentHoldPaths() throws {
        let db = try AppDatabase.inMemory()
        try db.writer.read { db in
            let tables = try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE '%fts%'
                AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'
                """)
            #expect(tables.count > 15)
            for t in tables where t != "project" && t != "document" {
                let columns = try db.columns(in: t).map(\.name)
                #expect(!columns.contains("path") && !columns.contains("project") && !columns.contains("document"),
                        "\(t) holds a path: \(columns)")
            }
            // Every per-document table references its document (or project) by a foreign key.
            for t in ["journey_state", "history_document", "history_snapshot", "progress_event", "progress_paragraph",
                      "review_round", "review_baseline"] {
                #expect(try db.foreignKeys(on: t).contains { $0.destinationTable == "document" }, "\(t)")
            }
            for t in ["history_project", "progress_goal_notice"] {
                #expect(try db.foreignKeys(on: t).contains { $0.destinationTable == "project" }, "\(t)")
            }
        }
    }

    @Test func aRenameIsOneUpdateAndEverythingFollows() throws {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: root)
        try db.apply(projectID: pid, upserts: [doc("a.md", "one two three\n")])
        try record(db, "a.md")
        let before = try recorded(db, "a.md")
        #expect(before.journey && before.versions == 2 && before.written == 3 && before.rounds == 1 && before.baseline == 2)
        let idA = try id(db, "a.md")
        try db.apply(projectID: pid, upserts: [doc("b.md", "one two three\n")], renames: [(from: PathBytes("a.md"), to: PathBytes("b.md"))])
        #expect(try id(db, "b.md") == idA)
        #expect(try id(db, "a.md") == nil)
        let after = try recorded(db, "b.md")
        #expect(after.journey && after.versions == 2 && after.written == 3 && after.rounds == 1 && after.baseline == 2)
        // The owner's own "moved" (its state store) finds it done and changes nothing.
        try DocumentStateStore(database: db).moved(project: root, from: PathBytes("a.md"), to: PathBytes("b.md"))
        #expect(try recorded(db, "b.md").versions == 2)
        #expect(try db.search(SearchQuery("three"), options: SearchOptions(), queryText: "").results.map(\.path) == ["b.md"])
        try db.writer.write { db in
            try db.execute(sql: "INSERT INTO document_fts(document_fts, rank) VALUES('integrity-check', 1)")
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
        }
    }

    @Test func aDeletedDocumentKeepsItsHistoryAndComesBackToIt() throws {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: root)
        try db.apply(projectID: pid, upserts: [doc("a.md", "one two three\n"), doc("keep.md", "other words\n")])
        try record(db, "a.md")
        let idA = try id(db, "a.md")
        try db.apply(projectID: pid, upserts: [], deletions: [PathBytes("a.md")])
        // Out of the index: not searched, counted or fingerprinted; its versions stay restorable.
        #expect(try db.search(SearchQuery("three"), options: SearchOptions(), queryText: "").results.isEmpty)
        #expect(try db.counts().documents == 1)
        #expect(try db.fingerprints(projectID: pid)[PathBytes("a.md")] == nil)
        #expect(try db.documentSummaries().map(\.path) == ["keep.md"])
        #expect(try HistoryService(database: db, now: .system).list(project: root, path: PathBytes("a.md")).count == 2)
        #expect(try id(db, "a.md") == idA)
        // Written again (a restore): the same row, back in the index, its history continued.
        try db.apply(projectID: pid, upserts: [doc("a.md", "one two three\n")])
        #expect(try id(db, "a.md") == idA)
        #expect(try db.counts().documents == 2)
        #expect(try db.search(SearchQuery("three"), options: SearchOptions(), queryText: "").results.map(\.path) == ["a.md"])
        #expect(try HistoryService(database: db, now: .system).list(project: root, path: PathBytes("a.md")).count == 2)
        try db.writer.write { db in
            try db.execute(sql: "INSERT INTO document_fts(document_fts, rank) VALUES('integrity-check', 1)")
        }
    }

    /// A rename onto the path of a document deleted before: the deleted one's versions and rounds
    /// join the moving document's; its journey and last version give way.
    @Test func aRenameOntoADeletedDocumentsPathMergesItsHistory() throws {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: root)
        try db.apply(projectID: pid, upserts: [doc("old.md", "gone soon\n"), doc("a.md", "one two three\n")])
        try record(db, "old.md")
        try db.apply(projectID: pid, upserts: [], deletions: [PathBytes("old.md")])
        let idA = try id(db, "a.md")
        try db.apply(projectID: pid, upserts: [doc("old.md", "one two three\n")], renames: [(from: PathBytes("a.md"), to: PathBytes("old.md"))])
        #expect(try id(db, "old.md") == idA)
        let merged = try recorded(db, "old.md")
        #expect(merged.versions == 2 && merged.rounds == 1)
        #expect(!merged.journey)
        try db.writer.write { db in
            try db.execute(sql: "INSERT INTO document_fts(document_fts, rank) VALUES('integrity-check', 1)")
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
        }
    }

    /// A command's record of a file in a folder nobody indexed (a round asked for, a snapshot) gives
    /// that folder a row, but it is not listed or counted as a project of the index.
    @Test func aFolderNobodyIndexedIsNotAProject() throws {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: root)
        try db.apply(projectID: pid, upserts: [doc("a.md", "one two three\n")])
        _ = try db.projectID(for: PathBytes("/empty"))
        _ = try ReviewStore(database: db).enqueue(project: PathBytes("/elsewhere"), document: PathBytes("x.md"), manual: true,
                                                  skipQuiet: false, advisors: nil)
        #expect(try db.projects().map(\.root) == [PathBytes("/empty"), root])
        let counts = try db.counts()
        #expect(counts.projects == 2 && counts.documents == 1)
        #expect(try ReviewStore(database: db).rounds(project: PathBytes("/elsewhere"), document: PathBytes("x.md")).count == 1)
    }

    /// A database made before documents were keyed by id: every row is kept, under its document's
    /// id, and a document only history knew gets a row out of the index.
    @Test func theMigrationKeepsEveryRow() throws {
        var config = GRDB.Configuration()
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA foreign_keys = ON") }
        let queue = try DatabaseQueue(configuration: config)
        try AppDatabase.migrator.migrate(queue, upTo: "v1-passage-pending")
        let p = Data("/p".utf8), a = Data("a.md".utf8), gone = Data("gone.md".utf8)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO project(id, path, added_at) VALUES (1, ?, 't')", arguments: [p])
            try db.execute(sql: """
                INSERT INTO document(id, project_id, path, size, mtime_ns, ctime_ns, inode, sha256, words, title, headings, tags, body, indexed_at)
                VALUES (7, 1, ?, 1, 1, 1, 1, 'sha', 3, 'A', '', '', 'one two three', 't');
                INSERT INTO document_fts(rowid, title, headings, tags, body) VALUES (7, 'A', '', '', 'one two three');
                """, arguments: [a])
            let rows: [(String, StatementArguments)] = [
                ("INSERT INTO journey_state(project, path, sidecar, stage, pending, updated_at, derived_from) VALUES (?, ?, x'7b7d', 'draft', 2, 't', 'k')", [p, a]),
                ("INSERT INTO history_document(project, path, sha256, words, seen_at) VALUES (?, ?, 'sha', 3, 't'), (?, ?, 'old', 5, 't')", [p, a, p, gone]),
                ("INSERT INTO history_project(project, seen_at) VALUES (?, 't')", [p]),
                ("INSERT INTO history_snapshot(project, path, sha256, size, time, reason, words, added, removed) VALUES (?, ?, 'sha', 10, 't', 'first', 3, 3, 0), (?, ?, 'old', 12, 't', 'first', 5, 5, 0)", [p, a, p, gone]),
                ("INSERT INTO progress_event(project, path, day, time, written, imported, deleted) VALUES (?, ?, '2026-11-01', 't', 5, 0, 0)", [p, gone]),
                ("INSERT INTO progress_paragraph(project, path, kind, key, words, day) VALUES (?, ?, 'added', 'k', 3, '2026-11-01')", [p, a]),
                ("INSERT INTO progress_goal_notice(project, day) VALUES (?, '2026-11-01')", [p]),
                ("INSERT INTO review_round(id, project, document, status, queued_at) VALUES ('r1', ?, ?, 'done', 't')", [p, a]),
                ("INSERT INTO review_baseline(project, document, content_sha, words, updated_at) VALUES (?, ?, 'sha', x'01', 't')", [p, a]),
                ("INSERT INTO ask_message(conversation, subject, role_id, question, prompt, answer, created_at) VALUES ('c', '/p/a.md', 'editor', 'q', 'p', 'a', 't'), ('d', 'text:abc', 'editor', 'q', 'p', 'a', 't')", []),
            ]
            for (sql, arguments) in rows { try db.execute(sql: sql, arguments: arguments) }
        }
        let db = try AppDatabase(queue)
        try queue.read { (db: Database) throws in
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
            #expect(try Int.fetchOne(db, sql: "SELECT in_index FROM document WHERE id = 7") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT in_index FROM document WHERE path = ?", arguments: [gone]) == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT document_id FROM journey_state") == 7)
            #expect(try String.fetchOne(db, sql: "SELECT derived_from FROM journey_state") == "k")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM history_document") == 2)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM history_snapshot") == 2)
            #expect(try Int.fetchOne(db, sql: "SELECT document_id FROM review_round WHERE id = 'r1'") == 7)
            #expect(try Int.fetchOne(db, sql: "SELECT project_id FROM progress_goal_notice") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT project_id FROM history_project") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM progress_paragraph WHERE document_id = 7") == 1)
            #expect(try String.fetchAll(db, sql: "SELECT subject FROM ask_message ORDER BY id")
                    == [AskExchange.fileSubject(PathBytes("/p/a.md")), "text:abc"])
        }
        try db.writer.write { db in try db.execute(sql: "INSERT INTO document_fts(document_fts, rank) VALUES('integrity-check', 1)") }
        let history = HistoryService(database: db, now: .system)
        #expect(try history.list(project: PathBytes("/p"), path: PathBytes("gone.md")).count == 1)
        #expect(try history.days(project: PathBytes("/p"), from: "2026-11-01", to: "2026-11-01")["2026-11-01"]?.written == 5)
        #expect(try ReviewStore(database: db).rounds(project: PathBytes("/p"), document: PathBytes("a.md")).map(\.id) == ["r1"])
        #expect(try db.counts().documents == 1)
    }
}
