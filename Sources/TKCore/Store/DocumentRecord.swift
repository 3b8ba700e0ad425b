import Foundation
import GRDB

/// A document row: identity, file fingerprint and the indexed text.
public struct DocumentRecord: Codable, Sendable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "document"
    public var id: Int64?
    public var projectId: Int64
    public var path: Data
    public var size: Int64
    public var mtimeNs: Int64
    public var ctimeNs: Int64
    public var inode: Int64
    public var sha256: String
    public var words: Int
    public var title: String
    public var headings: String
    public var tags: String
    public var body: String
    public var indexedAt: String
    /// A problem found when the document was last read (broken front matter), shown by `status`.
    public var problem: String?
    /// In the index now (false: a document known only to its history, journey or rounds — deleted,
    /// too large, or not indexed yet; see `DocumentIdentity`).
    public var inIndex: Bool

    enum CodingKeys: String, CodingKey {
        case id, path, size, inode, sha256, words, title, headings, tags, body, problem
        case projectId = "project_id", mtimeNs = "mtime_ns", ctimeNs = "ctime_ns", indexedAt = "indexed_at"
        case inIndex = "in_index"
    }

    public enum Columns {
        static let id = Column(CodingKeys.id)
        static let projectId = Column(CodingKeys.projectId)
        static let path = Column(CodingKeys.path)
        static let size = Column(CodingKeys.size)
        static let mtimeNs = Column(CodingKeys.mtimeNs)
        static let ctimeNs = Column(CodingKeys.ctimeNs)
        static let inode = Column(CodingKeys.inode)
        static let sha256 = Column(CodingKeys.sha256)
        static let words = Column(CodingKeys.words)
        static let title = Column(CodingKeys.title)
        static let headings = Column(CodingKeys.headings)
        static let tags = Column(CodingKeys.tags)
        static let body = Column(CodingKeys.body)
        static let indexedAt = Column(CodingKeys.indexedAt)
        static let problem = Column(CodingKeys.problem)
        static let inIndex = Column(CodingKeys.inIndex)
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    public var pathBytes: PathBytes { PathBytes(Array(path)) }
}

// Parts of `document` rows. The index writer and the scans read these for every document (17,000
// on the large corpus), so they read their columns by hand rather than through `Decodable`.

extension DocumentRecord {
    /// `id, title, headings, tags, body`: a document's entry in `document_fts`, as stored (an entry
    /// is removed with exactly the values it was added with).
    struct FullTextEntry: FetchableRecord {
        var id: Int64
        var title: String
        var headings: String
        var tags: String
        var body: String
        /// `in_index` when selected (an entry read without it is in the index).
        var inIndex: Bool

        init(row: Row) throws {
            id = try row.decode(forColumn: Columns.id)
            title = try row.decode(forColumn: Columns.title)
            headings = try row.decode(forColumn: Columns.headings)
            tags = try row.decode(forColumn: Columns.tags)
            body = try row.decode(forColumn: Columns.body)
            inIndex = row.hasColumn("in_index") ? try row.decode(Bool.self, forColumn: Columns.inIndex) : true
        }
    }

    /// `size, mtime_ns, ctime_ns, inode, sha256`: a document's fingerprint.
    struct Stat: FetchableRecord {
        var fingerprint: Fingerprint

        init(row: Row) throws {
            fingerprint = Fingerprint(
                size: try row.decode(forColumn: Columns.size), mtimeNs: try row.decode(forColumn: Columns.mtimeNs),
                ctimeNs: try row.decode(forColumn: Columns.ctimeNs), inode: try row.decode(forColumn: Columns.inode),
                sha256: try row.decode(forColumn: Columns.sha256))
        }
    }

    /// `path` and the fingerprint columns.
    struct PathStat: FetchableRecord {
        var path: Data
        var fingerprint: Fingerprint

        init(row: Row) throws {
            path = try row.decode(forColumn: Columns.path)
            fingerprint = try Stat(row: row).fingerprint
        }
    }

    /// `path, problem`.
    struct Problem: Decodable, FetchableRecord {
        var path: Data
        var problem: String?
    }
}

/// A document with its project's root, as `documents --json` lists it.
struct DocumentSummaryRow: Decodable, FetchableRecord {
    var root: Data
    var path: Data
    var sha256: String
    var words: Int
    var title: String
    var indexedAt: String

    enum CodingKeys: String, CodingKey {
        case root, path, sha256, words, title
        case indexedAt = "indexed_at"
    }
}

/// A project's root and how many documents it has (`n`).
struct ProjectDocumentCount: Decodable, FetchableRecord {
    var root: Data
    var n: Int
}

/// `project`: a project root known to the index.
struct ProjectRecord: Codable, Sendable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "project"
    var id: Int64?
    var path: Data
    var addedAt: String

    enum CodingKeys: String, CodingKey {
        case id, path
        case addedAt = "added_at"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let path = Column(CodingKeys.path)
        static let addedAt = Column(CodingKeys.addedAt)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

    /// `id, path`.
    struct Root: Decodable, FetchableRecord {
        var id: Int64
        var path: Data
    }
}

/// What is needed to tell whether a file changed since it was indexed.
public struct Fingerprint: Sendable, Equatable {
    public var size: Int64
    public var mtimeNs: Int64
    public var ctimeNs: Int64
    public var inode: Int64
    public var sha256: String

    public init(size: Int64, mtimeNs: Int64, ctimeNs: Int64, inode: Int64, sha256: String) {
        self.size = size; self.mtimeNs = mtimeNs; self.ctimeNs = ctimeNs; self.inode = inode; self.sha256 = sha256
    }

    /// Whether the stat fields are all equal (mtime can go backwards, so only equality is trusted).
    public func sameStat(_ st: FileStat) -> Bool {
        size == st.size && mtimeNs == st.mtimeNs && ctimeNs == st.ctimeNs && inode == Int64(bitPattern: st.inode)
    }
}

/// A parsed document ready to be written to the index.
public struct IndexedDocument: Sendable {
    public var relativePath: PathBytes
    public var stat: FileStat
    public var sha256: String
    public var words: Int
    public var title: String
    public var headings: [String]
    public var tags: [String]
    public var body: String
    /// A problem to show in `status` while the document stays as it is (e.g. broken front matter).
    public var problem: String?
    /// The document's passages for retrieval (nil: leave them as they are).
    public var passages: PassageSet?

    public init(relativePath: PathBytes, stat: FileStat, sha256: String, words: Int, title: String,
                headings: [String], tags: [String], body: String, problem: String? = nil, passages: PassageSet? = nil) {
        self.relativePath = relativePath; self.stat = stat; self.sha256 = sha256; self.words = words
        self.title = title; self.headings = headings; self.tags = tags; self.body = body; self.problem = problem
        self.passages = passages
    }
}

/// One row of `documents --json`.
public struct DocumentSummary: Codable, Sendable {
    public var project: String
    public var path: String
    public var sha256: String
    public var words: Int
    public var title: String
    public var stage: String?
    public var pendingSuggestions: Int
    public var indexedAt: String

    enum CodingKeys: String, CodingKey {
        case project, path, sha256, words, title, stage
        case pendingSuggestions = "pending_suggestions", indexedAt = "indexed_at"
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(project, forKey: .project); try c.encode(path, forKey: .path); try c.encode(sha256, forKey: .sha256)
        try c.encode(words, forKey: .words); try c.encode(title, forKey: .title); try c.encode(stage, forKey: .stage)
        try c.encode(pendingSuggestions, forKey: .pendingSuggestions); try c.encode(indexedAt, forKey: .indexedAt)
    }
}
