import Foundation
import GRDB

/// Content-addressed, zlib-compressed blobs in the database of the data folder (`history_object`):
/// the same bytes are stored once whatever the number of snapshots or documents that hold them.
/// In the database rather than one file each: a project's first scan stores thousands of versions
/// in one transaction instead of thousands of file creations.
public struct ObjectStore: Sendable {
    let database: AppDatabase

    public init(database: AppDatabase) { self.database = database }

    /// A blob ready to store: its address and compressed bytes (compress outside a transaction).
    public struct Packed: Sendable {
        public var sha: String
        public var size: Int
        public var data: [UInt8]
    }

    public static func pack(_ bytes: [UInt8], sha: String? = nil) throws(Compression.Failure) -> Packed {
        Packed(sha: sha ?? SHA256Digest.hex(bytes), size: bytes.count, data: try Compression.compress(bytes))
    }

    /// Stores a packed blob in an open transaction (nothing to do when it is already there).
    public static func put(_ db: Database, _ p: Packed) throws {
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO history_object(sha256, size, data) VALUES (?, ?, ?)")
            .execute(arguments: [p.sha, p.size, Data(p.data)])
    }

    /// Stores bytes. - Returns: their SHA-256.
    @discardableResult
    public func put(_ bytes: [UInt8], sha: String? = nil) throws -> String {
        let p = try Self.pack(bytes, sha: sha)
        try database.write { db in try Self.put(db, p) }
        return p.sha
    }

    /// The bytes of an object; checks them against their address.
    public func get(_ sha: String) throws -> [UInt8] {
        guard let row = try database.read({ db in
            try HistoryObjectRecord.Stored.fetchOne(db, sql: "SELECT size, data FROM history_object WHERE sha256 = ?", arguments: [sha])
        }) else { throw HistoryError.missingVersion(sha) }
        let bytes = try Compression.decompress(Array(row.data), expected: row.size)
        guard SHA256Digest.hex(bytes) == sha else { throw HistoryError.damagedVersion(sha) }
        return bytes
    }

    public func remove(_ sha: String) {
        _ = try? database.write { db in try db.execute(sql: "DELETE FROM history_object WHERE sha256 = ?", arguments: [sha]) }
    }
}

/// A history problem, as one line for the writer.
public enum HistoryError: Error, Sendable, CustomStringConvertible, Equatable {
    /// No stored object has this SHA-256 (a version whose bytes were pruned or never kept).
    case missingVersion(String)
    /// The stored object's bytes no longer hash to its address.
    case damagedVersion(String)

    public var description: String {
        switch self {
        case .missingVersion(let sha): "the stored version \(sha.prefix(12)) is missing"
        case .damagedVersion(let sha): "the stored version \(sha.prefix(12)) is damaged"
        }
    }
}
