import Foundation
import GRDB

extension PassageChunk {
    /// The first 64 bits of `digest`, as stored (`passage.digest`, `passage_vector.digest`).
    public var key: Int64 { Self.key(digest) }

    static func key(_ hex: String) -> Int64 {
        Int64(bitPattern: UInt64(hex.prefix(16), radix: 16) ?? 0)
    }
}

/// A stored passage, as retrieval returns it.
public struct StoredPassage: Sendable, Equatable {
    public var id: Int64
    public var documentID: Int64
    public var projectID: Int64
    public var project: PathBytes
    public var path: PathBytes
    public var startLine: Int
    public var endLine: Int
    public var heading: String
    public var text: String
}

/// A text waiting for its embedding: a passage whole, or one window of it.
public struct PendingPassage: Sendable {
    /// What the vector is stored under (`passage_window.key`).
    public var key: Int64
    /// The passage's digest.
    public var passage: Int64
    /// The window's place among the passage's texts (0 for a passage embedded whole).
    public var window: Int
    public var projectID: Int64
    public var path: PathBytes
    public var isPrivate: Bool
}

extension AppDatabase {
    /// Brings a document's passages in line with its new content, inside the indexer's transaction.
    /// A passage whose heading path and text did not change keeps its row (and so its id); only its
    /// position is updated.
    static func syncPassages(_ db: Database, documentID: Int64, sha256: String, set: PassageSet) throws {
        // Passages deleted since the last write leave the index before a new one is added.
        try forgetGonePassages(db)
        var existing: [Int64: [(id: Int64, ordinal: Int, start: Int, end: Int)]] = [:]
        let rows = try PassageRecord.Position.fetchCursor(db.cachedStatement(sql: """
            SELECT id, ordinal, start_line, end_line, digest FROM passage WHERE document_id = ?
            """), arguments: [documentID])
        while let row = try rows.next() {
            existing[row.digest, default: []].append((row.id, row.ordinal, row.startLine, row.endLine))
        }
        let move = try db.cachedStatement(sql: "UPDATE passage SET ordinal = ?, start_line = ?, end_line = ? WHERE id = ?")
        let insert = try db.cachedStatement(sql: """
            INSERT INTO passage(document_id, ordinal, start_line, end_line, words, digest, heading, body, size)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let insertText = try db.cachedStatement(sql: "INSERT INTO passage_fts(rowid, heading, text) VALUES (?, ?, ?)")
        for c in set.chunks {
            let key = c.key
            if var olds = existing[key], !olds.isEmpty {
                let old = olds.removeFirst()
                existing[key] = olds
                if old.ordinal != c.ordinal || old.start != c.startLine || old.end != c.endLine {
                    try move.execute(arguments: [c.ordinal, c.startLine, c.endLine, old.id])
                }
            } else {
                try insert.execute(arguments: [documentID, c.ordinal, c.startLine, c.endLine, c.words, key, c.heading,
                                               Data(c.packed), c.packedSize])
                try insertText.execute(arguments: [db.lastInsertedRowID, c.heading, c.text])
            }
        }
        let delete = try db.cachedStatement(sql: "DELETE FROM passage WHERE id = ?")
        var deleted = false
        for olds in existing.values { for old in olds { try delete.execute(arguments: [old.id]); deleted = true } }
        if deleted { try forgetGonePassages(db) }
        try db.cachedStatement(sql: """
            INSERT INTO document_retrieval(document_id, reading_order, private, sha256) VALUES (?, ?, ?, ?)
            ON CONFLICT(document_id) DO UPDATE SET reading_order = excluded.reading_order,
                private = excluded.private, sha256 = excluded.sha256
            """).execute(arguments: [documentID, set.readingOrder, set.isPrivate, sha256])
        // No longer waiting for its passages when they were made from its current bytes.
        try db.cachedStatement(sql: """
            DELETE FROM passage_pending WHERE document_id = ?1 AND EXISTS (SELECT 1 FROM document WHERE id = ?1 AND sha256 = ?2)
            """).execute(arguments: [documentID, sha256])
    }

    /// Removes deleted passages (`passage_gone`, filled by trigger) from the contentless index, which
    /// must be given the exact text each one was indexed with. Until then a gone passage is only
    /// dead weight: every query joins `passage`, and ids are never reused (AUTOINCREMENT).
    static func forgetGonePassages(_ db: Database) throws {
        let rows = try PassageGoneRecord.fetchCursor(db.cachedStatement(sql: "SELECT id, heading, body, size FROM passage_gone"))
        let forget = try db.cachedStatement(sql: """
            INSERT INTO passage_fts(passage_fts, rowid, heading, text) VALUES ('delete', ?, ?, ?)
            """)
        var any = false
        while let row = try rows.next() {
            any = true
            // A text that cannot be unpacked (a damaged database) cannot be removed from the index;
            // its rowid is never used again and matches nothing in `passage`, so it is dropped.
            guard let text = PassageText.unpack(Array(row.body), size: row.size) else { continue }
            try forget.execute(arguments: [row.id, row.heading, text])
        }
        if any { try db.execute(sql: "DELETE FROM passage_gone") }
    }

    /// Takes deleted documents' passages out of the full-text index (also done before every write).
    public func forgetGonePassages() throws {
        // Asked first without the write lock: nearly always there is nothing to do (every question
        // calls this, and waiting for the agent's write lock would hold the answer back).
        guard try writer.read({ try Bool.fetchOne($0, sql: "SELECT EXISTS (SELECT 1 FROM passage_gone)") ?? false }) else { return }
        try writer.write { db in try Self.forgetGonePassages(db) }
    }

    /// Writes passages for documents indexed before passages existed (or by an older version).
    public func writePassages(projectID: Int64, path: PathBytes, sha256: String, set: PassageSet) throws {
        try writer.write { db in
            guard let id = try Int64.fetchOne(db, sql: """
                SELECT id FROM document WHERE project_id = ? AND path = ? AND sha256 = ?
                """, arguments: [projectID, Data(path.bytes), sha256]) else { return }
            try Self.syncPassages(db, documentID: id, sha256: sha256, set: set)
        }
    }

    /// Documents whose passages were never written (indexed before this version): (project root, path, sha).
    public func documentsWithoutPassages(limit: Int = 1000) throws -> [(projectID: Int64, root: PathBytes, path: PathBytes, sha256: String)] {
        try writer.read { db in
            // The ids from `passage_pending` (kept by the document writes), then those few rows.
            try UnwrittenDocumentRow.fetchAll(db, sql: """
                SELECT d.project_id, p.path AS root, d.path, d.sha256 FROM document d JOIN project p ON p.id = d.project_id
                WHERE d.id IN (SELECT q.document_id FROM passage_pending q JOIN document c ON c.id = q.document_id
                               ORDER BY q.document_id LIMIT ?)
                ORDER BY d.id
                """, arguments: [limit]).map { row in
                (row.projectId, PathBytes(Array(row.root)), PathBytes(Array(row.path)), row.sha256)
            }
        }
    }

    /// How many passages documents will get when their passages are written (indexed in bulk, or
    /// changed since): at least one a document, about one per `wordsPerPassage` words.
    public func unwrittenPassages(wordsPerPassage: Int = 200) throws -> Int {
        try writer.read { db in
            try Int.fetchOne(db, sql: """
                SELECT COALESCE(SUM(MAX(1, c.words / ?)), 0) FROM passage_pending q JOIN document c ON c.id = q.document_id
                """, arguments: [max(1, wordsPerPassage)]) ?? 0
        }
    }

    /// The passages of one document, in order.
    public func passages(documentID: Int64) throws -> [StoredPassage] {
        try storedPassages(where: "p.document_id = ?", [documentID], order: "p.ordinal")
    }

    /// Passages by id (any order; missing ids are skipped).
    public func passages(ids: [Int64]) throws -> [Int64: StoredPassage] {
        guard !ids.isEmpty else { return [:] }
        let list = ids.map(String.init).joined(separator: ",")
        var out: [Int64: StoredPassage] = [:]
        for p in try storedPassages(where: "p.id IN (\(list))", []) { out[p.id] = p }
        return out
    }

    func storedPassages(where clause: String, _ args: StatementArguments, order: String = "p.id") throws -> [StoredPassage] {
        try writer.read { db in
            // A passage whose text cannot be unpacked (a damaged row) is left out.
            try StoredPassageRow.fetchAll(db, sql: """
                SELECT p.id, p.document_id, d.project_id, pr.path AS root, d.path, p.start_line, p.end_line,
                       p.heading, p.body, p.size
                FROM passage p JOIN document d ON d.id = p.document_id JOIN project pr ON pr.id = d.project_id
                WHERE \(clause) ORDER BY \(order)
                """, arguments: args).compactMap(\.passage)
        }
    }

    /// Whether any passage has an embedding from `model` (one step on the primary key: `ask` asks
    /// this on every question, where counting every passage cost tens of milliseconds).
    public func hasVectors(model: String) throws -> Bool {
        try writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM passage_vector WHERE model = ?)", arguments: [model]) ?? false
        }
    }

    /// The texts of a plan (`?` 1) with a vector of the model (`?` 2). A key is looked up in the
    /// model's digests listed once (`IN`, an ephemeral index): `passage_vector`'s key is (model,
    /// dim, digest), so a correlated `EXISTS` on model and digest scanned every vector of the
    /// model for every key — on a restart with 20,000 texts, minutes of CPU inside one query
    /// the agent cannot be stopped in (`EmbeddingWindowsTests` checks the plan).
    static let embeddedCountSQL = """
        SELECT COUNT(*) FROM (SELECT DISTINCT key FROM passage_window WHERE plan = ?) w
        WHERE w.key IN (SELECT digest FROM passage_vector WHERE model = ?)
        """

    /// The texts of a plan (`?` 1) without a vector of the model (`?` 2), with their document, in
    /// document order (the model's digests listed once, as in `embeddedCountSQL`).
    static let withoutVectorsSQL = """
        SELECT w.key, w.digest, w.ordinal, d.project_id, d.path, COALESCE(r.private, 0) AS private
        FROM passage_window w JOIN passage p ON p.digest = w.digest JOIN document d ON d.id = p.document_id
        LEFT JOIN document_retrieval r ON r.document_id = d.id
        WHERE w.plan = ? AND w.key NOT IN (SELECT digest FROM passage_vector WHERE model = ?)
        ORDER BY p.id, w.ordinal
        """

    /// How many texts of `plan` (passages, or their windows) have an embedding from `model`, and
    /// how many there are (planned so far).
    public func embeddingProgress(model: String, plan: Int64) throws -> (embedded: Int, total: Int) {
        try writer.read { db in
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT key) FROM passage_window WHERE plan = ?",
                                         arguments: [plan]) ?? 0
            let done = try Int.fetchOne(db, sql: Self.embeddedCountSQL, arguments: [plan, model]) ?? 0
            return (done, total)
        }
    }

    /// Passages not yet planned under `plan`, one per digest, with the text to embed (heading
    /// path, then text): at most `limit`, in passage order after the passage `after` (a caller
    /// planning them all goes on from the last `id` it got, instead of reading the planned ones
    /// again on every call).
    public func unplannedPassages(plan: Int64, after: Int64 = 0, limit: Int = 512) throws
        -> [(id: Int64, digest: Int64, heading: String, text: String)] {
        try writer.read { db in
            var out: [(Int64, Int64, String, String)] = []
            var seen = Set<Int64>()
            let rows = try Row.fetchCursor(db, sql: """
                SELECT p.id, p.digest, p.heading, p.body, p.size FROM passage p
                WHERE p.id > ? AND NOT EXISTS (SELECT 1 FROM passage_window w WHERE w.digest = p.digest AND w.plan = ?)
                ORDER BY p.id LIMIT ?
                """, arguments: [after, plan, limit * 2])
            while let row = try rows.next(), out.count < limit {
                let digest: Int64 = row[1]
                guard seen.insert(digest).inserted else { continue }
                // A text that cannot be unpacked (a damaged row) is planned as it is named: its
                // digest alone, never sent (`embeddingTexts` finds no text for it).
                let text = PassageText.unpack(Array(row[3] as Data? ?? Data()), size: row[4]) ?? ""
                out.append((row[0], digest, row[2], text))
            }
            return out
        }
    }

    /// Records the texts a passage is embedded as under `plan`: its own digest when it fits
    /// whole (`keys == [digest]`), else one key per window.
    public func storeWindows(plan: Int64, _ items: [(digest: Int64, keys: [Int64])]) throws {
        guard !items.isEmpty else { return }
        try writer.write { db in
            let st = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO passage_window(digest, plan, ordinal, key) VALUES (?, ?, ?, ?)
                """)
            for (digest, keys) in items {
                for (i, key) in keys.enumerated() { try st.execute(arguments: [digest, plan, i, key]) }
            }
        }
    }

    /// Texts of `plan` with no embedding from `model` yet, one per key, in document order (no text).
    public func passagesWithoutVectors(model: String, plan: Int64) throws -> [PendingPassage] {
        try writer.read { db in
            var out: [PendingPassage] = []
            let rows = try Row.fetchCursor(db, sql: Self.withoutVectorsSQL, arguments: [plan, model])
            var seen = Set<Int64>()
            while let row = try rows.next() {
                let key: Int64 = row[0]
                guard seen.insert(key).inserted else { continue }
                out.append(PendingPassage(key: key, passage: row[1], window: row[2], projectID: row[3],
                                          path: PathBytes(Array(row[4] as Data)), isPrivate: (row[5] as Int) != 0))
            }
            return out
        }
    }

    /// The texts to embed for pending items under windows of `budget` tokens, by key (an item whose
    /// passage is gone or unreadable is left out).
    public func embeddingTexts(_ pending: [PendingPassage], budget: Int) throws -> [Int64: String] {
        let passages = try passageTexts(digests: Array(Set(pending.map(\.passage))))
        var windows: [Int64: [String]] = [:]
        var out: [Int64: String] = [:]
        for p in pending {
            guard let stored = passages[p.passage] else { continue }
            if windows[p.passage] == nil {
                windows[p.passage] = EmbeddingWindows.texts(heading: stored.heading, text: stored.text, budget: budget)
            }
            if let w = windows[p.passage], p.window >= 0, p.window < w.count { out[p.key] = w[p.window] }
        }
        return out
    }

    /// Heading path and text of passages by digest.
    func passageTexts(digests: [Int64]) throws -> [Int64: (heading: String, text: String)] {
        guard !digests.isEmpty else { return [:] }
        return try writer.read { db in
            var out: [Int64: (heading: String, text: String)] = [:]
            let rows = try Row.fetchCursor(db, sql: """
                SELECT p.digest, p.heading, p.body, p.size FROM passage p
                WHERE p.digest IN (\(digests.map(String.init).joined(separator: ",")))
                """)
            while let row = try rows.next() {
                guard let text = PassageText.unpack(Array(row[2] as Data? ?? Data()), size: row[3]) else { continue }
                out[row[0]] = (row[1], text)
            }
            return out
        }
    }

    /// Stores embeddings (quantised to int8, see `QuantizedVector`).
    public func storeVectors(model: String, _ items: [(key: Int64, vector: QuantizedVector)]) throws {
        guard !items.isEmpty else { return }
        try writer.write { db in
            let st = try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO passage_vector(model, dim, digest, scale, vector) VALUES (?, ?, ?, ?, ?)
                """)
            for (key, v) in items {
                try st.execute(arguments: [model, v.values.count, key, Double(v.scale), Data(v.values.map { UInt8(bitPattern: $0) })])
            }
        }
    }

    /// Drops window plans of passages that are gone, then embeddings no passage or window uses.
    public func pruneVectors() throws {
        try writer.write { db in
            try db.execute(sql: """
                DELETE FROM passage_window WHERE digest NOT IN (SELECT digest FROM passage);
                DELETE FROM passage_vector WHERE digest NOT IN (SELECT digest FROM passage)
                    AND digest NOT IN (SELECT key FROM passage_window);
                """)
        }
    }
}
