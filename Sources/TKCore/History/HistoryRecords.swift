import Foundation
import GRDB

// The history and progress tables as GRDB records (`AppDatabase.registerProgressMigrations`).

/// `history_document`: the last version seen of a document, and its journey stage as last seen here.
struct HistoryDocumentRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "history_document"
    /// The document (`document.id`).
    var documentId: Int64
    var sha256: String
    var words: Int
    var seenAt: String
    /// NULL until `HistoryService.stageSeen` first sees the document.
    var stage: String?

    enum CodingKeys: String, CodingKey {
        case sha256, words, stage
        case documentId = "document_id", seenAt = "seen_at"
    }

    enum Columns {
        static let documentId = Column(CodingKeys.documentId)
        static let sha256 = Column(CodingKeys.sha256)
        static let words = Column(CodingKeys.words)
        static let seenAt = Column(CodingKeys.seenAt)
        static let stage = Column(CodingKeys.stage)
    }

    /// `stage` alone (a row with a NULL stage is not a missing row).
    struct Stage: Decodable, FetchableRecord {
        var stage: String?
    }
}

/// `history_project`: when history first saw a project.
struct HistoryProjectRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "history_project"
    /// The project (`project.id`).
    var projectId: Int64
    var seenAt: String

    enum CodingKeys: String, CodingKey {
        case projectId = "project_id", seenAt = "seen_at"
    }

    enum Columns {
        static let projectId = Column(CodingKeys.projectId)
        static let seenAt = Column(CodingKeys.seenAt)
    }
}

/// `history_object`: the compressed bytes of a version, by their SHA-256.
struct HistoryObjectRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "history_object"
    var sha256: String
    /// The size of the bytes uncompressed.
    var size: Int
    var data: Data

    enum Columns {
        static let sha256 = Column(CodingKeys.sha256)
        static let size = Column(CodingKeys.size)
        static let data = Column(CodingKeys.data)
    }

    /// `size, data`: an object as `ObjectStore.get` reads it (the size read as optional, as it
    /// always was: without it, the bytes are decompressed without knowing their size).
    struct Stored: Decodable, FetchableRecord {
        var size: Int?
        var data: Data
    }
}

/// `history_snapshot`: one version kept of a document.
struct HistorySnapshotRecord: Codable, Sendable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "history_snapshot"
    var id: Int64?
    /// The document (`document.id`).
    var documentId: Int64
    /// `document.path`, when read joined to it (`HistoryService.snapshots`); not a column of the table.
    var path: Data?
    var sha256: String
    var size: Int
    var time: String
    var reason: String
    var note: String?
    var words: Int
    var added: Int
    var removed: Int

    enum CodingKeys: String, CodingKey {
        case id, path, sha256, size, time, reason, note, words, added, removed
        case documentId = "document_id"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let documentId = Column(CodingKeys.documentId)
        static let sha256 = Column(CodingKeys.sha256)
        static let size = Column(CodingKeys.size)
        static let time = Column(CodingKeys.time)
        static let reason = Column(CodingKeys.reason)
        static let note = Column(CodingKeys.note)
        static let words = Column(CodingKeys.words)
        static let added = Column(CodingKeys.added)
        static let removed = Column(CodingKeys.removed)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// Every column but the joined `path`.
    func encode(to container: inout PersistenceContainer) throws {
        container[Columns.id] = id
        container[Columns.documentId] = documentId
        container[Columns.sha256] = sha256
        container[Columns.size] = size
        container[Columns.time] = time
        container[Columns.reason] = reason
        container[Columns.note] = note
        container[Columns.words] = words
        container[Columns.added] = added
        container[Columns.removed] = removed
    }

    /// The version as `history` shows it (not numbered).
    var snapshot: SnapshotRecord {
        // A row read from the table always has its id.
        SnapshotRecord(rev: id ?? 0, path: PathBytes(Array(path ?? Data())).display, sha256: sha256, time: time, reason: reason,
                       note: note, words: words, added: added, removed: removed)
    }
}

/// `progress_event`: what one save wrote (negative rows correct a same-day move found later).
struct ProgressEventRecord: Codable, Sendable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "progress_event"
    var id: Int64?
    /// The document (`document.id`).
    var documentId: Int64
    var day: String
    var time: String
    var written: Int
    var imported: Int
    var deleted: Int

    enum CodingKeys: String, CodingKey {
        case id, day, time, written, imported, deleted
        case documentId = "document_id"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let documentId = Column(CodingKeys.documentId)
        static let day = Column(CodingKeys.day)
        static let time = Column(CodingKeys.time)
        static let written = Column(CodingKeys.written)
        static let imported = Column(CodingKeys.imported)
        static let deleted = Column(CodingKeys.deleted)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// Sums over `progress_event` (`w`, `i`, `d`: written, imported, deleted); a negative sum (moves
/// corrected later) counts as none.
protocol ProgressSums {
    var w: Int { get }
    var i: Int { get }
    var d: Int { get }
}

extension ProgressSums {
    var count: WordsWritten.Count { WordsWritten.Count(written: max(0, w), imported: max(0, i), deleted: max(0, d)) }
}

/// `progress_event` summed by day.
struct ProgressDayTotals: Decodable, FetchableRecord, ProgressSums {
    var day: String
    var w: Int
    var i: Int
    var d: Int
}

/// `progress_event` summed by document.
struct ProgressPathTotals: Decodable, FetchableRecord, ProgressSums {
    var path: Data
    var w: Int
    var i: Int
    var d: Int
}

/// The words written of a day (`w`).
struct ProgressDayWritten: Decodable, FetchableRecord {
    var day: String
    var w: Int
}

/// `progress_paragraph`: a paragraph that recently left a document (kind `removed`) or arrived whole
/// in one (kind `added`).
struct ProgressParagraphRecord: Codable, Sendable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "progress_paragraph"
    var id: Int64?
    /// The document (`document.id`).
    var documentId: Int64
    var kind: String
    var key: String
    var words: Int
    var day: String

    enum CodingKeys: String, CodingKey {
        case id, kind, key, words, day
        case documentId = "document_id"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let documentId = Column(CodingKeys.documentId)
        static let kind = Column(CodingKeys.kind)
        static let key = Column(CodingKeys.key)
        static let words = Column(CodingKeys.words)
        static let day = Column(CodingKeys.day)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// `key, path` (joined): a paragraph of the day's pool.
    struct Pooled: Decodable, FetchableRecord {
        var key: String
        var path: Data
    }

    /// `id, document_id`: the paragraph a move matched.
    struct Match: Decodable, FetchableRecord {
        var id: Int64
        var documentId: Int64
        enum CodingKeys: String, CodingKey { case id, documentId = "document_id" }
    }

    /// `id, document_id, words`: the paragraph a move matched, with its words.
    struct WordsMatch: Decodable, FetchableRecord {
        var id: Int64
        var documentId: Int64
        var words: Int
        enum CodingKeys: String, CodingKey { case id, words, documentId = "document_id" }
    }
}

/// `progress_goal_notice`: a day whose goal-reached notification was shown.
struct ProgressGoalNoticeRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "progress_goal_notice"
    /// The project (`project.id`).
    var projectId: Int64
    var day: String

    enum CodingKeys: String, CodingKey { case day, projectId = "project_id" }

    enum Columns {
        static let projectId = Column(CodingKeys.projectId)
        static let day = Column(CodingKeys.day)
    }
}

/// `review_round_scope`: the scope a round was asked for (`review --scope`).
struct ReviewRoundScopeRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "review_round_scope"
    var roundId: String
    var scope: String

    enum CodingKeys: String, CodingKey {
        case scope
        case roundId = "round_id"
    }

    enum Columns {
        static let roundId = Column(CodingKeys.roundId)
        static let scope = Column(CodingKeys.scope)
    }
}
