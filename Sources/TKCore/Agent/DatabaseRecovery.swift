import Foundation
import GRDB
import Logging

extension AppDatabase {
    /// Opens the database; a corrupt file is moved aside (with its WAL) and a new one created.
    /// - Returns: the database and, when it had to be rebuilt, a line for `status`.
    public static func openRecovering(paths: Paths, logger: Logger, now: Date = Date()) throws -> (AppDatabase, String?) {
        do {
            let db = try open(paths: paths)
            try db.quickCheck()
            return (db, nil)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CORRUPT || error.resultCode == .SQLITE_NOTADB {
            let stamp = RFC3339.string(now).replacingOccurrences(of: ":", with: "")
            let aside = PathBytes(paths.database.bytes + Array(".corrupt-\(stamp)".utf8))
            logger.error("database corrupt; moving it aside", metadata: ["db.path": "\(paths.database.display)"])
            try? FileSystem.rename(paths.database, to: aside)
            for suffix in ["-wal", "-shm"] { try? FileSystem.remove(PathBytes(paths.database.bytes + Array(suffix.utf8))) }
            let db = try open(paths: paths)
            return (db, "the index database was corrupt; it was moved to \(aside.display) and rebuilt from the documents and sidecars")
        }
    }

    /// Fails with SQLITE_CORRUPT when the file is damaged (cheap check of the schema and pages).
    func quickCheck() throws {
        try writer.read { db in
            let result = try String.fetchOne(db, sql: "PRAGMA quick_check(1)") ?? "ok"
            if result != "ok" { throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: result) }
        }
    }
}
