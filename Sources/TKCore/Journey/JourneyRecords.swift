import Foundation
import GRDB

// The journey tables as GRDB records (`AppDatabase.registerJourneyMigrations`, `registerStateMigrations`).

/// `journey_state`: one document's sidecar as last written, its stage and pending count, and the
/// bytes it describes.
struct JourneyStateRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "journey_state"
    /// The document (`document.id`).
    var documentId: Int64
    /// The sidecar as compact JSON.
    var sidecar: Data
    var stage: String
    var pending: Int
    /// NULL when too large to keep, or when nothing pending needs it.
    var content: Data?
    var contentSha256: String?
    var updatedAt: String
    /// `DocumentStateStore.Entry.derivedFrom`.
    var derivedFrom: String?
    /// The checksum of the sidecar file as written (`SidecarStore.checksum(ofWritten:)`): a file that
    /// says another one lags the database or was written by an older version.
    var sidecarChecksum: String?

    enum CodingKeys: String, CodingKey {
        case sidecar, stage, pending, content
        case documentId = "document_id", contentSha256 = "content_sha256", updatedAt = "updated_at", derivedFrom = "derived_from"
        case sidecarChecksum = "sidecar_checksum"
    }

    enum Columns {
        static let documentId = Column(CodingKeys.documentId)
        /// `document.path`, joined (`DocumentStateStore.joined`).
        static let path = Column("path")
        static let sidecar = Column(CodingKeys.sidecar)
        static let stage = Column(CodingKeys.stage)
        static let pending = Column(CodingKeys.pending)
        static let content = Column(CodingKeys.content)
        static let contentSha256 = Column(CodingKeys.contentSha256)
        static let updatedAt = Column(CodingKeys.updatedAt)
        static let derivedFrom = Column(CodingKeys.derivedFrom)
        static let sidecarChecksum = Column(CodingKeys.sidecarChecksum)
    }

    /// `sidecar, content, content_sha256`: what `DocumentStateStore.load` returns (the sidecar read
    /// as optional, as it always was).
    struct Copy: Decodable, FetchableRecord {
        var sidecar: Data?
        var content: Data?
        var contentSha256: String?
        enum CodingKeys: String, CodingKey { case sidecar, content, contentSha256 = "content_sha256" }
    }

    /// `path, sidecar_checksum` (joined).
    struct Checksum: Decodable, FetchableRecord {
        var path: Data
        var sidecarChecksum: String
        enum CodingKeys: String, CodingKey { case path, sidecarChecksum = "sidecar_checksum" }
    }

    /// `content, content_sha256`: the bytes recorded last.
    struct Content: Decodable, FetchableRecord {
        var content: Data?
        var contentSha256: String?
        enum CodingKeys: String, CodingKey { case content, contentSha256 = "content_sha256" }
    }

    /// `project, path` (joined): where a recorded document is.
    struct Location: Decodable, FetchableRecord {
        var project: Data
        var path: Data
    }

    /// `path` (joined), `derived_from`. Read for every document of a project when the agent starts, so by hand
    /// (a `Decodable` row took twice as long).
    struct Derivation: FetchableRecord {
        var path: Data
        var derivedFrom: String?

        init(row: Row) throws {
            path = try row.decode(forColumn: Columns.path)
            derivedFrom = try row.decode(forColumn: Columns.derivedFrom)
        }
    }

    /// `project, path` (joined), `stage, pending`: a document's journey facts.
    struct Facts: Decodable, FetchableRecord {
        var project: Data
        var path: Data
        var stage: String
        var pending: Int
    }
}

/// A project's documents of one stage and their pending suggestions (`AppDatabase.journeySummary`).
struct JourneyStageCount: Decodable, FetchableRecord {
    var root: Data
    var stage: String
    var n: Int
    var pending: Int
}
