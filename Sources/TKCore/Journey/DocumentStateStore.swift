import Foundation
import GRDB

/// The journey facts of one document, for `documents` and `status`.
public struct JourneyFact: Sendable, Equatable {
    public var stage: JourneyStage
    public var pendingSuggestions: Int

    /// The facts a document's sidecar states (when the database has none, e.g. before the agent ran).
    public static func fromSidecar(project: PathBytes, document rel: PathBytes) -> JourneyFact? {
        guard case .ok(let s, _) = SidecarStore().read(project: project, document: rel) else { return nil }
        return JourneyFact(stage: s.journey.stage, pendingSuggestions: s.suggestions.filter { $0.status == .pending }.count)
    }
}

/// The database copy of every document's journey: the sidecar as last written and the document bytes
/// it describes. The sidecars stay the source of truth; this copy rebuilds a sidecar broken or edited by
/// hand, and gives the previous bytes of a document at its next save.
public struct DocumentStateStore: Sendable {
    public let database: AppDatabase
    /// Documents larger than this keep no copy of their bytes (passages are then found again by search).
    public var maxContentBytes: Int

    public init(database: AppDatabase, maxContentBytes: Int = 4 << 20) {
        self.database = database
        self.maxContentBytes = maxContentBytes
    }

    /// What the database holds for one document.
    public struct Record: Sendable {
        public var sidecar: ReviewSidecar?
        public var content: [UInt8]?
        public var contentSha256: String?
    }

    /// One document's state to record.
    public struct Entry: Sendable {
        public var document: PathBytes
        public var sidecar: ReviewSidecar
        /// The bytes the sidecar describes; nil keeps the bytes recorded before.
        public var content: [UInt8]?
        /// The SHA-256 of `content` when the caller has it already.
        public var contentSha256: String?
        /// Forget the recorded bytes: nothing pending needs following through the next edit.
        public var dropContent: Bool
        /// What the sidecar's quick findings and journey settings were derived from
        /// (`DocumentOwner.derivation`); nil keeps the value recorded before.
        public var derivedFrom: String?
        /// `sidecar` as the database keeps it (compact JSON), when the caller encoded it already (the
        /// agent does, on the threads that derive, so the one writer does not).
        public var sidecarJSON: [UInt8]?
        /// The checksum of the sidecar file as written (nil: not known).
        public var sidecarChecksum: String?
        public init(document: PathBytes, sidecar: ReviewSidecar, content: [UInt8]? = nil, contentSha256: String? = nil,
                    dropContent: Bool = false, derivedFrom: String? = nil, sidecarJSON: [UInt8]? = nil,
                    sidecarChecksum: String? = nil) {
            self.document = document; self.sidecar = sidecar; self.content = content; self.contentSha256 = contentSha256
            self.dropContent = dropContent; self.derivedFrom = derivedFrom; self.sidecarJSON = sidecarJSON
            self.sidecarChecksum = sidecarChecksum
        }

        /// The entry for a sidecar file's bytes (as written, or as the file already says them).
        public init(document: PathBytes, sidecar: ReviewSidecar, fileBytes: [UInt8]?, content: [UInt8]? = nil,
                    contentSha256: String? = nil, dropContent: Bool = false, derivedFrom: String? = nil) {
            self.init(document: document, sidecar: sidecar, content: content, contentSha256: contentSha256, dropContent: dropContent,
                      derivedFrom: derivedFrom, sidecarJSON: fileBytes.flatMap(SidecarStore.compactJSON(ofWritten:)),
                      sidecarChecksum: fileBytes.flatMap(SidecarStore.checksum(ofWritten:)))
        }

        /// The compact JSON the database keeps for `sidecar`.
        public static func json(_ sidecar: ReviewSidecar) throws -> [UInt8] { try JSON.encode(sidecar, pretty: false) }
    }

    /// Records a document's sidecar (as written) and, when given, the bytes it describes.
    public func record(project: PathBytes, document rel: PathBytes, sidecar: ReviewSidecar, content: [UInt8]? = nil,
                       now: Date = Date()) throws {
        try record(project: project, [Entry(document: rel, sidecar: sidecar, content: content)], now: now)
    }

    /// Records several documents of a project in one transaction.
    ///
    /// The bytes are kept only while they are needed: a save follows pending suggestions through
    /// the edit with a diff against them. A document with nothing pending keeps no copy, so a
    /// first scan does not store every document a second time.
    public func record(project: PathBytes, _ entries: [Entry], now: Date = Date()) throws {
        if entries.isEmpty { return }
        let stamp = RFC3339.string(now)
        let rows = try entries.map { e in
            (e, try e.sidecarJSON ?? Entry.json(e.sidecar), e.sidecar.suggestions.filter { $0.status == .pending }.count)
        }
        try database.write { db in
            let projectID = try DocumentIdentity.ensureProject(db, project, now: now)
            let withContent = try db.cachedStatement(sql: """
                INSERT INTO journey_state(document_id, sidecar, stage, pending, derived_from, sidecar_checksum, content, content_sha256, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(document_id) DO UPDATE SET sidecar = excluded.sidecar, stage = excluded.stage,
                    pending = excluded.pending, content = excluded.content, sidecar_checksum = excluded.sidecar_checksum,
                    derived_from = COALESCE(excluded.derived_from, journey_state.derived_from),
                    content_sha256 = excluded.content_sha256, updated_at = excluded.updated_at
                """)
            let withoutContent = try db.cachedStatement(sql: """
                INSERT INTO journey_state(document_id, sidecar, stage, pending, derived_from, sidecar_checksum, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(document_id) DO UPDATE SET sidecar = excluded.sidecar, stage = excluded.stage,
                    pending = excluded.pending, updated_at = excluded.updated_at, sidecar_checksum = excluded.sidecar_checksum,
                    derived_from = COALESCE(excluded.derived_from, journey_state.derived_from)
                """)
            for (e, json, pending) in rows {
                let key: [any DatabaseValueConvertible] = [
                    try DocumentIdentity.ensure(db, projectID: projectID, path: e.document), Data(json),
                    e.sidecar.journey.stage.rawValue, pending,
                    e.derivedFrom, e.sidecarChecksum,
                ]
                if let content = e.content {
                    let keep = content.count <= maxContentBytes ? Data(content) : nil
                    try withContent.execute(arguments: StatementArguments(key + [keep, e.contentSha256 ?? SHA256Digest.hex(content), stamp]))
                } else if e.dropContent {
                    try withContent.execute(arguments: StatementArguments(key + [nil as Data?, nil as String?, stamp]))
                } else {
                    try withoutContent.execute(arguments: StatementArguments(key + [stamp]))
                }
            }
        }
    }

    /// The checksum of each document's sidecar as last written (`Entry.sidecarChecksum`), for a
    /// project; documents without one are absent. Read from its index alone.
    public func sidecarChecksums(project: PathBytes) throws -> [PathBytes: String] {
        try database.read { db in
            guard let projectID = try DocumentIdentity.projectID(db, project) else { return [:] }
            var out: [PathBytes: String] = [:]
            let rows = try JourneyStateRecord.Checksum.fetchCursor(db, sql: """
                SELECT d.path, t.sidecar_checksum FROM journey_state t INDEXED BY journey_state_checksum
                JOIN document d ON d.id = t.document_id
                WHERE d.project_id = ? AND t.sidecar_checksum IS NOT NULL
                """, arguments: [projectID])
            while let row = try rows.next() { out[PathBytes(Array(row.path))] = row.sidecarChecksum }
            return out
        }
    }

    /// `journey_state` joined to its document (`d`) and project (`p`).
    static let joined = DocumentIdentity.joined("journey_state")

    /// The database copy of one document's state, if any.
    public func load(project: PathBytes, document rel: PathBytes) -> Record? {
        let row = try? database.read { db in
            try JourneyStateRecord.Copy.fetchOne(
                db.cachedStatement(sql: "SELECT t.sidecar, t.content, t.content_sha256 FROM \(Self.joined) WHERE p.path = ? AND d.path = ?"),
                arguments: [Data(project.bytes), Data(rel.bytes)])
        }
        guard let row else { return nil }
        return Record(sidecar: row.sidecar.flatMap { try? JSON.decode(ReviewSidecar.self, from: Array($0)) },
                      content: row.content.map { Array($0) }, contentSha256: row.contentSha256)
    }

    /// The document bytes recorded last (and their SHA-256), without decoding the recorded sidecar.
    public func previousContent(project: PathBytes, document rel: PathBytes) -> (content: [UInt8], sha256: String)? {
        let row = try? database.read { db in
            try JourneyStateRecord.Content.fetchOne(
                db.cachedStatement(sql: "SELECT t.content, t.content_sha256 FROM \(Self.joined) WHERE p.path = ? AND d.path = ?"),
                arguments: [Data(project.bytes), Data(rel.bytes)])
        }
        guard let row, let content = row.content, let sha = row.contentSha256 else { return nil }
        return (Array(content), sha)
    }

    /// The state to rebuild a sidecar from: the database copy, else what the file on disk still says
    /// (without its checksum), else a fresh sidecar.
    public func rebuild(project: PathBytes, document rel: PathBytes, fresh: () -> ReviewSidecar) -> ReviewSidecar {
        if let s = load(project: project, document: rel)?.sidecar { return s }
        let path = ReviewSidecar.path(project: project, document: rel)
        if let bytes = try? FileSystem.read(path, limit: 64 << 20), let s = try? JSON.decode(ReviewSidecar.self, from: bytes),
           s.schema == ReviewSidecar.schemaID {
            return s
        }
        return fresh()
    }

    /// The documents whose recorded sidecar mentions suggestion `id` (to be confirmed against the sidecar).
    public func documents(mentioning id: String) -> [DocumentLocation] {
        let needle = Data(#""id":"\#(id)""#.utf8)
        let rows = (try? database.read { db in
            try JourneyStateRecord.Location.fetchAll(
                db, sql: "SELECT p.path AS project, d.path FROM \(Self.joined) WHERE instr(t.sidecar, ?) > 0", arguments: [needle])
        }) ?? []
        return rows.map { DocumentLocation(project: PathBytes(Array($0.project)), relative: PathBytes(Array($0.path))) }
    }

    /// What each document's recorded state was derived from (`Entry.derivedFrom`), for the given paths
    /// of a project, or all of them when `paths` is nil. Documents without a record are absent.
    public func derivations(project: PathBytes, paths: [PathBytes]?) throws -> [PathBytes: String] {
        try database.read { db in
            var out: [PathBytes: String] = [:]
            if let paths {
                let statement = try db.cachedStatement(
                    sql: "SELECT t.derived_from FROM \(Self.joined) WHERE p.path = ? AND d.path = ?")
                for rel in paths {
                    if let d = try String.fetchOne(statement, arguments: [Data(project.bytes), Data(rel.bytes)]) { out[rel] = d }
                }
            } else {
                let rows = try JourneyStateRecord.Derivation.fetchCursor(
                    db, sql: "SELECT d.path, t.derived_from FROM \(Self.joined) WHERE p.path = ? AND t.derived_from IS NOT NULL",
                    arguments: [Data(project.bytes)])
                while let row = try rows.next() { out[PathBytes(Array(row.path))] = row.derivedFrom }
            }
            return out
        }
    }

    /// A document was renamed: its state follows it (with everything recorded of it, by its id: a
    /// no-op when the index moved it already).
    public func moved(project: PathBytes, from old: PathBytes, to new: PathBytes) throws {
        try database.renameDocuments(project: project, [(from: old, to: new)])
    }

    /// A document is gone: so is its state.
    public func removed(project: PathBytes, document rel: PathBytes) throws {
        try database.write { db in
            guard let id = try DocumentIdentity.find(db, project: project, path: rel) else { return }
            try db.execute(sql: "DELETE FROM journey_state WHERE document_id = ?", arguments: [id])
        }
    }
}

extension AppDatabase {
    /// Stage and pending suggestions per document of a project (relative path → fact), or of every
    /// project when `project` is nil (keyed by the absolute path).
    public func journeyFacts(project: PathBytes? = nil) throws -> [PathBytes: JourneyFact] {
        try writer.read { db in
            var sql = "SELECT p.path AS project, d.path, t.stage, t.pending FROM \(DocumentStateStore.joined)"
            var args: StatementArguments = []
            if let project { sql += " WHERE p.path = ?"; args += [Data(project.bytes)] }
            var out: [PathBytes: JourneyFact] = [:]
            for row in try JourneyStateRecord.Facts.fetchAll(db, sql: sql, arguments: args) {
                let root = PathBytes(Array(row.project))
                let rel = PathBytes(Array(row.path))
                let fact = JourneyFact(stage: JourneyStage(rawValue: row.stage) ?? .canvas, pendingSuggestions: row.pending)
                out[project == nil ? root.appending(rel) : rel] = fact
            }
            return out
        }
    }

    /// Each project's indexed documents by stage, from two covering indexes (no row of `journey_state`
    /// or `document` is read: their sidecars and texts make them long).
    static let stageCountSQL = """
        SELECT p.path AS root, t.stage, COUNT(*) AS n, SUM(t.pending) AS pending
        FROM journey_state t INDEXED BY journey_state_stage
        JOIN document d INDEXED BY document_project_in_index ON d.id = t.document_id
        JOIN project p ON p.id = d.project_id
        WHERE d.in_index = 1
        GROUP BY p.id, t.stage
        """

    /// Per project: documents by stage and pending suggestions (for `status`).
    public func journeySummary() throws -> [PathBytes: JourneySummary] {
        try writer.read { db in
            var out: [PathBytes: JourneySummary] = [:]
            for row in try JourneyStageCount.fetchAll(db, sql: Self.stageCountSQL) {
                let root = PathBytes(Array(row.root))
                var s = out[root] ?? JourneySummary()
                s.stages[row.stage, default: 0] += row.n
                s.pendingSuggestions += row.pending
                out[root] = s
            }
            return out
        }
    }
}

/// A project's documents by stage and its pending suggestions.
public struct JourneySummary: Codable, Sendable, Equatable {
    public var stages: [String: Int] = [:]
    public var pendingSuggestions = 0
    enum CodingKeys: String, CodingKey { case stages, pendingSuggestions = "pending_suggestions" }
    public init() {}

    /// "2 draft, 1 revise; 5 suggestions pending".
    public var text: String {
        let order = JourneyStage.allCases.map(\.rawValue)
        let parts = order.compactMap { st in stages[st].map { "\($0) \(st)" } }
        var t = parts.joined(separator: ", ")
        if pendingSuggestions > 0 { t += (t.isEmpty ? "" : "; ") + "\(pendingSuggestions) suggestion\(pendingSuggestions == 1 ? "" : "s") pending" }
        return t
    }
}
