import Foundation
import GRDB

// The retrieval tables as GRDB records (`AppDatabase.registerRetrievalMigrations`,
// `registerVectorBlockMigrations`). The index writer and `ask` read passages by the thousand, so the
// records read here read their columns by hand (`init(row:)`) rather than through `Decodable`;
// their writes stay cached statements (see `AppDatabase.syncPassages`).

/// `passage`: one passage of a document, its text compressed (`PassageText`).
struct PassageRecord: Codable, Sendable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "passage"
    var id: Int64?
    var documentId: Int64
    var ordinal: Int
    var startLine: Int
    var endLine: Int
    var words: Int
    /// The first 64 bits of the SHA-256 of the heading path and text (`PassageChunk.key`).
    var digest: Int64
    var heading: String
    /// `PassageText.pack` of the text.
    var body: Data
    /// The text's size unpacked.
    var size: Int

    enum CodingKeys: String, CodingKey {
        case id, ordinal, words, digest, heading, body, size
        case documentId = "document_id", startLine = "start_line", endLine = "end_line"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let documentId = Column(CodingKeys.documentId)
        static let ordinal = Column(CodingKeys.ordinal)
        static let startLine = Column(CodingKeys.startLine)
        static let endLine = Column(CodingKeys.endLine)
        static let words = Column(CodingKeys.words)
        static let digest = Column(CodingKeys.digest)
        static let heading = Column(CodingKeys.heading)
        static let body = Column(CodingKeys.body)
        static let size = Column(CodingKeys.size)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// `id, ordinal, start_line, end_line, digest`: where a stored passage is in its document.
    struct Position: FetchableRecord {
        var id: Int64
        var ordinal: Int
        var startLine: Int
        var endLine: Int
        var digest: Int64

        init(row: Row) throws {
            id = try row.decode(forColumn: Columns.id)
            ordinal = try row.decode(forColumn: Columns.ordinal)
            startLine = try row.decode(forColumn: Columns.startLine)
            endLine = try row.decode(forColumn: Columns.endLine)
            digest = try row.decode(forColumn: Columns.digest)
        }
    }

    /// A packed text as read: a NULL body is taken as empty (which does not unpack), as it always was.
    static func packedBody(_ row: Row, _ column: Column) throws -> Data {
        try row.decode(Data?.self, forColumn: column) ?? Data()
    }
}

/// `passage_gone`: a deleted passage whose text is still to be removed from `passage_fts`.
struct PassageGoneRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "passage_gone"
    var id: Int64
    var heading: String
    var body: Data
    var size: Int

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let heading = Column(CodingKeys.heading)
        static let body = Column(CodingKeys.body)
        static let size = Column(CodingKeys.size)
    }

    init(row: Row) throws {
        id = try row.decode(forColumn: Columns.id)
        heading = try row.decode(forColumn: Columns.heading)
        body = try PassageRecord.packedBody(row, Columns.body)
        size = try row.decode(forColumn: Columns.size)
    }
}

/// A stored passage with its document and project (`p.id, p.document_id, d.project_id, pr.path AS
/// root, d.path, p.start_line, p.end_line, p.heading, p.body, p.size`), as retrieval reads it.
struct StoredPassageRow: FetchableRecord {
    var id: Int64
    var documentId: Int64
    var projectId: Int64
    var root: Data
    var path: Data
    var startLine: Int
    var endLine: Int
    var heading: String
    var body: Data
    var size: Int

    init(row: Row) throws {
        id = try row.decode(forColumn: PassageRecord.Columns.id)
        documentId = try row.decode(forColumn: PassageRecord.Columns.documentId)
        projectId = try row.decode(forColumn: DocumentRecord.Columns.projectId)
        root = try row.decode(forColumn: "root")
        path = try row.decode(forColumn: DocumentRecord.Columns.path)
        startLine = try row.decode(forColumn: PassageRecord.Columns.startLine)
        endLine = try row.decode(forColumn: PassageRecord.Columns.endLine)
        heading = try row.decode(forColumn: PassageRecord.Columns.heading)
        body = try PassageRecord.packedBody(row, PassageRecord.Columns.body)
        size = try row.decode(forColumn: PassageRecord.Columns.size)
    }

    /// The passage, or nil when its text cannot be unpacked (a damaged row).
    var passage: StoredPassage? {
        guard let text = PassageText.unpack(Array(body), size: size) else { return nil }
        return StoredPassage(id: id, documentID: documentId, projectID: projectId, project: PathBytes(Array(root)),
                             path: PathBytes(Array(path)), startLine: startLine, endLine: endLine, heading: heading, text: text)
    }
}

/// A document whose passages are to be written (`d.project_id, p.path AS root, d.path, d.sha256`).
struct UnwrittenDocumentRow: FetchableRecord {
    var projectId: Int64
    var root: Data
    var path: Data
    var sha256: String

    init(row: Row) throws {
        projectId = try row.decode(forColumn: DocumentRecord.Columns.projectId)
        root = try row.decode(forColumn: "root")
        path = try row.decode(forColumn: DocumentRecord.Columns.path)
        sha256 = try row.decode(forColumn: DocumentRecord.Columns.sha256)
    }
}

/// `document_retrieval`: a document's reading order, privacy, and the bytes its passages were made from.
struct DocumentRetrievalRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "document_retrieval"
    var documentId: Int64
    var readingOrder: Double?
    var isPrivate: Bool
    var sha256: String

    enum CodingKeys: String, CodingKey {
        case sha256
        case documentId = "document_id", readingOrder = "reading_order", isPrivate = "private"
    }

    enum Columns {
        static let documentId = Column(CodingKeys.documentId)
        static let readingOrder = Column(CodingKeys.readingOrder)
        static let isPrivate = Column(CodingKeys.isPrivate)
        static let sha256 = Column(CodingKeys.sha256)
    }
}

/// `passage_pending`: a document whose passages are out of step with its content.
struct PassagePendingRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "passage_pending"
    var documentId: Int64

    enum CodingKeys: String, CodingKey { case documentId = "document_id" }

    enum Columns {
        static let documentId = Column(CodingKeys.documentId)
    }
}

/// `passage_window`: one text a passage is embedded as under a window plan.
struct PassageWindowRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "passage_window"
    /// The passage's digest.
    var digest: Int64
    /// `EmbeddingWindows.plan`.
    var plan: Int64
    var ordinal: Int
    /// What the vector is stored under: the passage's digest when it fits whole, else the window's.
    var key: Int64

    enum Columns {
        static let digest = Column(CodingKeys.digest)
        static let plan = Column(CodingKeys.plan)
        static let ordinal = Column(CodingKeys.ordinal)
        static let key = Column(CodingKeys.key)
    }
}

/// `passage_vector`: an embedding, quantised to int8 (`QuantizedVector`).
struct PassageVectorRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "passage_vector"
    var model: String
    var dim: Int
    /// A `passage_window.key`.
    var digest: Int64
    var scale: Double
    var vector: Data

    enum Columns {
        static let model = Column(CodingKeys.model)
        static let dim = Column(CodingKeys.dim)
        static let digest = Column(CodingKeys.digest)
        static let scale = Column(CodingKeys.scale)
        static let vector = Column(CodingKeys.vector)
    }
}
