import Foundation
import GRDB

extension AppDatabase {
    /// The id of a project root, inserting it when new.
    public func projectID(for root: PathBytes, now: Date = Date()) throws -> Int64 {
        try writer.write { db in
            if let id = try Int64.fetchOne(db, sql: "SELECT id FROM project WHERE path = ?", arguments: [Data(root.bytes)]) {
                return id
            }
            var project = ProjectRecord(id: nil, path: Data(root.bytes), addedAt: RFC3339.string(now))
            try project.insert(db)
            return db.lastInsertedRowID
        }
    }

    /// Every project root known to the index, with its id: those with a document in the index, and
    /// those added with none yet (a new or empty project). A project known only through a document
    /// out of the index (a command's record of a file in a folder nobody indexed) is left out.
    public func projects() throws -> [(id: Int64, root: PathBytes)] {
        try writer.read { db in
            try ProjectRecord.Root.fetchAll(db, sql: """
                SELECT id, path FROM project p
                WHERE EXISTS (SELECT 1 FROM document d WHERE d.project_id = p.id AND d.in_index = 1)
                   OR NOT EXISTS (SELECT 1 FROM document d WHERE d.project_id = p.id)
                ORDER BY path
                """).map { row in
                (id: row.id, root: PathBytes(Array(row.path)))
            }
        }
    }

    /// Forgets a project, its documents and everything recorded of them (history included).
    public func removeProject(_ root: PathBytes) throws {
        try writer.write { db in
            guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM project WHERE path = ?", arguments: [Data(root.bytes)]) else {
                return
            }
            let fts = FullTextIndex(db)
            let rows = try DocumentRecord.FullTextEntry.fetchCursor(
                db, sql: "SELECT id, title, headings, tags, body FROM document WHERE project_id = ?", arguments: [id])
            while let row = try rows.next() { try fts.remove(row) }
            try db.execute(sql: "DELETE FROM passage_pending WHERE document_id IN (SELECT id FROM document WHERE project_id = ?)",
                           arguments: [id])
            try db.execute(sql: "DELETE FROM project WHERE id = ?", arguments: [id])
        }
    }

    /// The fingerprints of a project's documents, optionally only those under a relative folder.
    public func fingerprints(projectID: Int64, under folder: PathBytes? = nil) throws -> [PathBytes: Fingerprint] {
        try writer.read { db in
            var sql = "SELECT path, size, mtime_ns, ctime_ns, inode, sha256 FROM document WHERE project_id = ? AND in_index = 1"
            var args: StatementArguments = [projectID]
            if let folder, !folder.isEmpty {
                let (lo, hi) = Self.prefixBounds(folder)
                sql += " AND path >= ? AND path < ?"
                args += [Data(lo), Data(hi)]
            }
            var out: [PathBytes: Fingerprint] = [:]
            let rows = try DocumentRecord.PathStat.fetchCursor(db, sql: sql, arguments: args)
            while let row = try rows.next() { out[PathBytes(Array(row.path))] = row.fingerprint }
            return out
        }
    }

    /// The fingerprint of one document, if indexed.
    public func fingerprints(projectID: Int64, exact path: PathBytes) throws -> Fingerprint? {
        try writer.read { db in
            try DocumentRecord.Stat.fetchOne(db, sql: """
                SELECT size, mtime_ns, ctime_ns, inode, sha256 FROM document WHERE project_id = ? AND path = ? AND in_index = 1
                """, arguments: [projectID, Data(path.bytes)])?.fingerprint
        }
    }

    /// The byte bounds `[folder/, folder0)` that select every path below `folder`.
    static func prefixBounds(_ folder: PathBytes) -> ([UInt8], [UInt8]) {
        var lo = folder.bytes
        if lo.last != UInt8(ascii: "/") { lo.append(UInt8(ascii: "/")) }
        var hi = lo
        hi[hi.count - 1] = UInt8(ascii: "/") + 1
        return (lo, hi)
    }

    /// Writes parsed documents (insert or update), moves renamed ones and takes deleted paths out of
    /// the index, in one transaction. Renames come first (`DocumentIdentity.rename`: the row and
    /// everything recorded of it move), so that the new path's upsert updates the moved row. A
    /// deleted document's row stays, out of the index, with its history (`DocumentIdentity`).
    ///
    /// The full-text index is kept in step here, statement by statement (see migration
    /// v4-foundation-fts-without-triggers for why not by triggers).
    public func apply(projectID: Int64, upserts: [IndexedDocument], statOnly: [(PathBytes, FileStat)] = [],
                      renames: [(from: PathBytes, to: PathBytes)] = [], deletions: [PathBytes] = [], now: Date = Date()) throws {
        if upserts.isEmpty && statOnly.isEmpty && deletions.isEmpty && renames.isEmpty { return }
        try write { db in
            try Self.apply(db, projectID: projectID, upserts: upserts, statOnly: statOnly, renames: renames, deletions: deletions, now: now)
        }
    }

    /// `apply` in an open transaction (a batch's, see `DocumentPipeline.commit`).
    static func apply(_ db: Database, projectID: Int64, upserts: [IndexedDocument], statOnly: [(PathBytes, FileStat)],
                      renames: [(from: PathBytes, to: PathBytes)], deletions: [PathBytes], now: Date) throws {
        if upserts.isEmpty && statOnly.isEmpty && deletions.isEmpty && renames.isEmpty { return }
        let stamp = RFC3339.string(now)
        for r in renames { try DocumentIdentity.rename(db, projectID: projectID, from: r.from, to: r.to) }
        let fts = FullTextIndex(db)
        let existing = try db.cachedStatement(sql: """
            SELECT id, title, headings, tags, body, in_index FROM document WHERE project_id = ? AND path = ?
            """)
        let insert = try db.cachedStatement(sql: """
            INSERT INTO document(project_id, path, size, mtime_ns, ctime_ns, inode, sha256, words, title, headings, tags, body, indexed_at, problem)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let retrieved = try db.cachedStatement(sql: "SELECT sha256 FROM document_retrieval WHERE document_id = ?")
        let pending = try db.cachedStatement(sql: "INSERT OR IGNORE INTO passage_pending(document_id) VALUES (?)")
        let update = try db.cachedStatement(sql: """
            UPDATE document SET size = ?, mtime_ns = ?, ctime_ns = ?, inode = ?, sha256 = ?, words = ?,
                title = ?, headings = ?, tags = ?, body = ?, indexed_at = ?, problem = ?, in_index = 1
            WHERE id = ?
            """)
        for d in upserts {
            let headings = d.headings.joined(separator: "\n"), tags = d.tags.joined(separator: " ")
            let path = Data(d.relativePath.bytes)
            let id: Int64
            if let old = try DocumentRecord.FullTextEntry.fetchOne(existing, arguments: [projectID, path]) {
                id = old.id
                try fts.remove(old)
                try update.execute(arguments: [
                    d.stat.size, d.stat.mtimeNs, d.stat.ctimeNs, Int64(bitPattern: d.stat.inode), d.sha256, d.words,
                    d.title, headings, tags, d.body, stamp, d.problem, id,
                ])
            } else {
                try insert.execute(arguments: [
                    projectID, path, d.stat.size, d.stat.mtimeNs, d.stat.ctimeNs, Int64(bitPattern: d.stat.inode),
                    d.sha256, d.words, d.title, headings, tags, d.body, stamp, d.problem,
                ])
                id = db.lastInsertedRowID
            }
            try fts.add(id: id, title: d.title, headings: headings, tags: tags, body: d.body)
            if let passages = d.passages {
                try Self.syncPassages(db, documentID: id, sha256: d.sha256, set: passages)
            } else if try String.fetchOne(retrieved, arguments: [id]) != d.sha256 {
                // Left to the backfill (a bulk load): listed until its passages are written.
                try pending.execute(arguments: [id])
            }
        }
        let touch = try db.cachedStatement(sql: """
            UPDATE document SET size = ?, mtime_ns = ?, ctime_ns = ?, inode = ? WHERE project_id = ? AND path = ? AND in_index = 1
            """)
        for (path, st) in statOnly {
            try touch.execute(arguments: [st.size, st.mtimeNs, st.ctimeNs, Int64(bitPattern: st.inode), projectID, Data(path.bytes)])
        }
        // Out of the index: its text, passages and embeddings go; the row stays for its history,
        // with an empty entry in `document_fts` (every row has the entry its columns make).
        let leave = try db.cachedStatement(sql: """
            UPDATE document SET in_index = 0, sha256 = '', words = 0, title = '', headings = '', tags = '', body = '',
                problem = NULL WHERE id = ?
            """)
        let unlist = try db.cachedStatement(sql: "DELETE FROM passage_pending WHERE document_id = ?")
        let dropPassages = try db.cachedStatement(sql: "DELETE FROM passage WHERE document_id = ?")
        let dropRetrieval = try db.cachedStatement(sql: "DELETE FROM document_retrieval WHERE document_id = ?")
        for path in deletions {
            guard let old = try DocumentRecord.FullTextEntry.fetchOne(existing, arguments: [projectID, Data(path.bytes)]),
                  old.inIndex else { continue }
            try fts.remove(old)
            try unlist.execute(arguments: [old.id])
            try dropPassages.execute(arguments: [old.id])
            try dropRetrieval.execute(arguments: [old.id])
            try leave.execute(arguments: [old.id])
            try fts.add(id: old.id, title: "", headings: "", tags: "", body: "")
        }
    }

    /// The problems stored with a project's documents (relative path → message).
    public func documentProblems(projectID: Int64) throws -> [PathBytes: String] {
        try writer.read { db in
            var out: [PathBytes: String] = [:]
            let rows = try DocumentRecord.Problem.fetchCursor(db, sql: """
                SELECT path, problem FROM document WHERE project_id = ? AND problem IS NOT NULL AND in_index = 1
                """, arguments: [projectID])
            while let row = try rows.next() {
                out[PathBytes(Array(row.path))] = row.problem
            }
            return out
        }
    }

    /// The documents (`documents --json`), optionally of one project, in path order.
    public func documentSummaries(project: PathBytes? = nil) throws -> [DocumentSummary] {
        try writer.read { db in
            var sql = """
                SELECT project.path AS root, document.path, document.sha256, document.words,
                       document.title, document.indexed_at
                FROM document JOIN project ON project.id = document.project_id WHERE document.in_index = 1
                """
            var args: StatementArguments = []
            if let project { sql += " AND project.path = ?"; args += [Data(project.bytes)] }
            sql += " ORDER BY project.path, document.path"
            return try DocumentSummaryRow.fetchAll(db, sql: sql, arguments: args).map { row in
                DocumentSummary(
                    project: PathBytes(Array(row.root)).display, path: PathBytes(Array(row.path)).display,
                    sha256: row.sha256, words: row.words, title: row.title,
                    stage: nil, pendingSuggestions: 0, indexedAt: row.indexedAt)
            }
        }
    }

    /// One indexed document's row by project and relative path.
    public func document(projectID: Int64, path: PathBytes) throws -> DocumentRecord? {
        try writer.read { db in
            try DocumentRecord.fetchOne(db, sql: "SELECT * FROM document WHERE project_id = ? AND path = ? AND in_index = 1",
                                        arguments: [projectID, Data(path.bytes)])
        }
    }

    /// How many documents and projects are indexed (a folder known only through documents out of
    /// the index is not counted; decided once per project, after grouping: `status` asks this
    /// every few seconds while a scan of tens of thousands of documents runs).
    public func counts() throws -> (documents: Int, projects: Int, perProject: [PathBytes: Int]) {
        try writer.read { db in
            var per: [PathBytes: Int] = [:]
            var total = 0
            for row in try ProjectDocumentCount.fetchAll(db, sql: """
                SELECT project.path AS root, COUNT(document.id) AS n FROM project
                LEFT JOIN document ON document.project_id = project.id AND document.in_index = 1
                GROUP BY project.id
                HAVING n > 0 OR NOT EXISTS (SELECT 1 FROM document d WHERE d.project_id = project.id)
                """) {
                per[PathBytes(Array(row.root))] = row.n
                total += row.n
            }
            return (total, per.count, per)
        }
    }

    /// Runs a bulk load with FTS5's incremental merging off, then merges every segment once.
    ///
    /// Each committed batch leaves a new segment; merging them as they come (`automerge`) rewrites
    /// the index several times over a first index, one final `optimize` writes it once. Should the
    /// process die in between, `automerge` stays off until the next bulk load, and FTS5's
    /// `crisismerge` still bounds the number of segments.
    public func bulkLoad<T>(if bulk: Bool = true, _ body: () throws -> T) throws -> T {
        guard bulk else { return try body() }
        // Both full-text tables: the documents' (search) and the passages' (retrieval).
        let tables = ["document_fts", "passage_fts"]
        try writer.write { db in
            for t in tables { try db.execute(sql: "INSERT INTO \(t)(\(t), rank) VALUES('automerge', 0)") }
        }
        // A load cut short by a stop only turns merging back on (the optimize would hold the stop up).
        var optimize = true
        defer {
            try? writer.write { db in
                for t in tables {
                    try db.execute(sql: "INSERT INTO \(t)(\(t), rank) VALUES('automerge', \(Self.defaultAutomerge))")
                    if optimize { try db.execute(sql: "INSERT INTO \(t)(\(t)) VALUES('optimize')") }
                }
            }
        }
        do { return try body() } catch is CancellationError {
            optimize = false
            throw CancellationError()
        }
    }

    /// FTS5's default `automerge`.
    static let defaultAutomerge = 4

    /// The full-text tables `tidyFullText` looks after.
    static let fullTextTables = ["document_fts", "passage_fts"]

    /// How many segments a full-text index may hold before `tidyFullText` merges it.
    public static let maxFullTextSegments = 8

    /// How many segments each full-text index holds (each is a b-tree that every term look-up
    /// searches).
    public func fullTextSegments() throws -> [String: Int] {
        try writer.read { db in
            var out: [String: Int] = [:]
            for t in Self.fullTextTables {
                out[t] = try Int.fetchOne(db, sql: "SELECT count(DISTINCT segid) FROM \(t)_idx") ?? 0
            }
            return out
        }
    }

    /// Merges each full-text index that holds more than `maxSegments` segments into one, in steps
    /// of a few hundred pages (about 50 ms each on the large corpus), each its own transaction, so
    /// that a save is not held up and a stop is seen between steps (a merge cut short is taken up
    /// by the next call).
    ///
    /// Every write leaves a segment and FTS5's `automerge` keeps up to about four per level, so a
    /// month of saves, or passages written batch by batch after a first index, leave ten or
    /// twenty; a term is then looked up in each. With the passages' 16 segments on the large
    /// corpus, the few hundred look-ups of a question (`HybridRetriever.coverage`) took 18 ms,
    /// merged 3 ms.
    /// - Returns: the tables merged.
    @discardableResult
    public func tidyFullText(maxSegments: Int = maxFullTextSegments, stop: StopFlag? = nil) throws -> [String] {
        var merged: [String] = []
        for (table, count) in try fullTextSegments().sorted(by: { $0.key < $1.key }) where count > maxSegments {
            // A merge ends; the bound only guards against a step that keeps reporting work.
            for _ in 0..<100_000 {
                if stop?.isSet == true { break }
                // A negative page count merges every segment, not only full levels; the step did
                // nothing when at most its own bookkeeping row changed.
                let changes = try writer.write { db -> Int in
                    let before = db.totalChangesCount
                    try db.execute(sql: "INSERT INTO \(table)(\(table), rank) VALUES('merge', -500)")
                    return db.totalChangesCount - before
                }
                if changes < 2 { break }
            }
            if stop?.isSet == true { break }
            merged.append(table)
        }
        return merged
    }
}

/// Writes to the external-content FTS5 table `document_fts`, which must be told of every change to
/// `document`'s indexed columns: an entry is removed with exactly the values it was added with.
struct FullTextIndex {
    let db: Database

    init(_ db: Database) { self.db = db }

    func add(id: Int64, title: String, headings: String, tags: String, body: String) throws {
        try db.cachedStatement(sql: "INSERT INTO document_fts(rowid, title, headings, tags, body) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [id, title, headings, tags, body])
    }

    /// Removes a document's entry, given as stored.
    func remove(_ entry: DocumentRecord.FullTextEntry) throws {
        try db.cachedStatement(sql: """
            INSERT INTO document_fts(document_fts, rowid, title, headings, tags, body) VALUES ('delete', ?, ?, ?, ?, ?)
            """).execute(arguments: [entry.id, entry.title, entry.headings, entry.tags, entry.body])
    }
}
