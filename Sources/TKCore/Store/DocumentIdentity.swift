import Foundation
import GRDB

/// A document's identity: its row in `document`, the only table (with `project`) that holds paths.
/// Every other table names a document by `document.id` (migration v1-identity-documents-by-id).
///
/// A row is made by the index, or by whichever subsystem first records something of a document the
/// index does not hold (a round asked for before the agent indexed it, the history of a file too
/// large to index); such a row is out of the index (`in_index = 0`) until the index takes the file
/// in. A deleted file's row leaves the index but stays, with its history; a rename is one update of
/// `document.path` (`rename`), whoever sees it first — the others find it done.
enum DocumentIdentity {
    /// The tables with many rows per document, kept when two documents merge (`rename`). The others
    /// (`journey_state`, `history_document`, `review_baseline`: one row each) keep the moving one's.
    static let manyPerDocument = ["history_snapshot", "progress_event", "progress_paragraph", "review_round"]

    /// Joins a table's `document_id` (aliased `t`) to its document (`d`) and project (`p`).
    static func joined(_ table: String) -> String {
        "\(table) t JOIN document d ON d.id = t.document_id JOIN project p ON p.id = d.project_id"
    }

    /// The id of a project root, nil when it has no row (reads never create).
    static func projectID(_ db: Database, _ root: PathBytes) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM project WHERE path = ?"), arguments: [Data(root.bytes)])
    }

    /// The id of a project root, adding its row when new.
    static func ensureProject(_ db: Database, _ root: PathBytes, now: Date = Date()) throws -> Int64 {
        if let id = try projectID(db, root) { return id }
        try db.cachedStatement(sql: "INSERT INTO project(path, added_at) VALUES (?, ?)")
            .execute(arguments: [Data(root.bytes), RFC3339.string(now)])
        return db.lastInsertedRowID
    }

    /// The id of the document at `path` of `project` (in the index or not), nil when it has no row.
    static func find(_ db: Database, project: PathBytes, path: PathBytes) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: """
            SELECT d.id FROM document d JOIN project p ON p.id = d.project_id WHERE p.path = ? AND d.path = ?
            """), arguments: [Data(project.bytes), Data(path.bytes)])
    }

    /// The id of the document at `path` of `project`, adding a row out of the index when it has none.
    static func ensure(_ db: Database, project: PathBytes, path: PathBytes, now: Date = Date()) throws -> Int64 {
        if let id = try find(db, project: project, path: path) { return id }
        return try ensure(db, projectID: try ensureProject(db, project, now: now), path: path)
    }

    /// The id of the document at `path` of the project with `projectID`, nil when it has no row.
    static func find(_ db: Database, projectID: Int64, path: PathBytes) throws -> Int64? {
        try Int64.fetchOne(db.cachedStatement(sql: "SELECT id FROM document WHERE project_id = ? AND path = ?"),
                           arguments: [projectID, Data(path.bytes)])
    }

    /// The id of the document at `path` of the project with `projectID`, adding a row out of the
    /// index when it has none.
    static func ensure(_ db: Database, projectID: Int64, path: PathBytes) throws -> Int64 {
        if let id = try find(db, projectID: projectID, path: path) { return id }
        try db.cachedStatement(sql: """
            INSERT INTO document(project_id, path, size, mtime_ns, ctime_ns, inode, sha256, words, title, headings, tags,
                                 body, indexed_at, in_index)
            VALUES (?, ?, 0, 0, 0, 0, '', 0, '', '', '', '', '', 0)
            """).execute(arguments: [projectID, Data(path.bytes)])
        let id = db.lastInsertedRowID
        // Every row has the `document_fts` entry its columns make (empty here), so that the index
        // and its external content stay one (FTS5's integrity-check, a `rebuild`).
        try FullTextIndex(db).add(id: id, title: "", headings: "", tags: "", body: "")
        return id
    }

    /// Moves the document at `from` to `to`, with everything recorded of it. Done once: when `from`
    /// has no row (already moved) nothing changes. A row left at `to` out of the index (a document
    /// deleted there before) is merged into the moving one: its versions, words and rounds stay, its
    /// one-per-document rows give way to the moving document's.
    /// - Returns: whether a row moved.
    @discardableResult
    static func rename(_ db: Database, projectID: Int64, from: PathBytes, to: PathBytes) throws -> Bool {
        guard let movingID = try find(db, projectID: projectID, path: from) else { return false }
        if let thereID = try find(db, projectID: projectID, path: to) {
            if let entry = try DocumentRecord.FullTextEntry.fetchOne(db, sql: """
                SELECT id, title, headings, tags, body FROM document WHERE id = ?
                """, arguments: [thereID]) { try FullTextIndex(db).remove(entry) }
            for table in manyPerDocument {
                try db.execute(sql: "UPDATE \(table) SET document_id = ? WHERE document_id = ?", arguments: [movingID, thereID])
            }
            // The one-per-document rows of `there` (its journey, last version, baseline) and its
            // passages go with its row (ON DELETE CASCADE).
            try db.execute(sql: "DELETE FROM passage_pending WHERE document_id = ?", arguments: [thereID])
            try db.execute(sql: "DELETE FROM document WHERE id = ?", arguments: [thereID])
        }
        try db.cachedStatement(sql: "UPDATE document SET path = ? WHERE id = ?").execute(arguments: [Data(to.bytes), movingID])
        return true
    }
}

extension AppDatabase {
    /// Whether the database has a row for the document (in the index, or kept for its history).
    public func hasDocument(project: PathBytes, path: PathBytes) throws -> Bool {
        try writer.read { db in try DocumentIdentity.find(db, project: project, path: path) != nil }
    }

    /// Moves documents of a project and everything recorded of them to new paths, in one
    /// transaction (`DocumentIdentity.rename`: a move the index made already changes nothing).
    public func renameDocuments(project: PathBytes, _ moves: [(from: PathBytes, to: PathBytes)]) throws {
        guard !moves.isEmpty else { return }
        try write { db in
            guard let projectID = try DocumentIdentity.projectID(db, project) else { return }
            for m in moves { try DocumentIdentity.rename(db, projectID: projectID, from: m.from, to: m.to) }
        }
    }
}
