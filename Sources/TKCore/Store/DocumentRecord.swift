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

    enum CodingKeys: String, CodingKey {
        case id, path, size, inode, sha256, words, title, headings, tags, body
        case projectId = "project_id", mtimeNs = "mtime_ns", ctimeNs = "ctime_ns", indexedAt = "indexed_at"
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
    public var pathBytes: PathBytes { PathBytes(Array(path)) }
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
