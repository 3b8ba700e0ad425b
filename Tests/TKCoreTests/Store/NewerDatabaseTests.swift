import Foundation
import GRDB
import Testing
@testable import TKCore

/// A database with migrations this version does not know (made by a newer tk-agent) is refused,
/// never migrated or read.
@Suite struct NewerDatabaseTests {
    @Test func aNewerDatabaseIsRefusedWithItsSchema() throws {
        let queue = try DatabaseQueue()
        _ = try AppDatabase(queue)
        let known = try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM grdb_migrations") }
        #expect(known == AppDatabase.schema)
        try queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-future')") }
        #expect(throws: NewerDatabaseError(schema: AppDatabase.schema + 1)) { try AppDatabase(queue) }
        let message = NewerDatabaseError(schema: 42).description
        #expect(message.contains("made by a newer tk-agent (schema 42); upgrade, or use another TK_DATA_DIR"))
    }

    @Test func theSameOrAnOlderDatabaseOpens() throws {
        let queue = try DatabaseQueue()
        _ = try AppDatabase(queue)
        _ = try AppDatabase(queue)   // reopened: nothing unknown
        let fresh = try DatabaseQueue()
        #expect(try fresh.read { try AppDatabase.newerSchema($0, migrator: AppDatabase.migrator) } == nil)
    }

    @Test func theCheckOnDiskReadsOnly() throws {
        let dir = TestScratch.url("tk-newer")
        let paths = Paths.resolve(environment: ["HOME": dir.path, "TK_DATA_DIR": dir.appendingPathComponent("data").path])
        #expect(AppDatabase.newerDatabaseProblem(paths: paths) == nil)   // no database yet: none made
        #expect(!FileManager.default.fileExists(atPath: paths.database.display))
        let db = try AppDatabase.open(paths: paths)
        _ = db
        #expect(AppDatabase.newerDatabaseProblem(paths: paths) == nil)
        let queue = try DatabaseQueue(path: paths.database.display)
        try queue.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99-future')") }
        #expect(AppDatabase.newerDatabaseProblem(paths: paths)?.contains("(schema \(AppDatabase.schema + 1))") == true)
    }

    /// What the C API read gives on files that are not tk-agent's: nothing to refuse, nothing changed.
    @Test func theCheckOnDiskReadsWhatGRDBWouldRead() throws {
        let dir = TestScratch.url("tk-newer-files")
        let paths = Paths.resolve(environment: ["HOME": dir.path, "TK_DATA_DIR": dir.appendingPathComponent("data").path])
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("data"), withIntermediateDirectories: true)
        let file = URL(fileURLWithPath: paths.database.display)
        // Not a database at all.
        try Data("this is not a database\n".utf8).write(to: file)
        #expect(AppDatabase.appliedMigrations(paths.database) == nil)
        #expect(AppDatabase.newerDatabaseProblem(paths: paths) == nil)
        #expect(try Data(contentsOf: file) == Data("this is not a database\n".utf8))
        try FileManager.default.removeItem(at: file)
        // A database without a migrations table: none applied.
        let other = try DatabaseQueue(path: paths.database.display)
        try other.write { try $0.execute(sql: "CREATE TABLE notes (body TEXT)") }
        #expect(AppDatabase.appliedMigrations(paths.database) == [])
        #expect(AppDatabase.newerDatabaseProblem(paths: paths) == nil)
        // tk-agent's own: the identifiers GRDB reads, in its order.
        try other.close()
        try FileManager.default.removeItem(at: file)
        _ = try AppDatabase.open(paths: paths)
        let viaGRDB = try DatabaseQueue(path: paths.database.display).read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(AppDatabase.appliedMigrations(paths.database) == viaGRDB)
        #expect(viaGRDB.count == AppDatabase.schema)
    }
}
