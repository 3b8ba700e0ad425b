import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

/// The one owner of the SQLite schema and every write: projects, documents and their FTS5 index,
/// review queue, usage and document state.
public struct AppDatabase: Sendable {
    let writer: any DatabaseWriter

    /// Opens (and migrates) a database writer.
    public init(_ writer: any DatabaseWriter) throws {
        self.writer = writer
        try Self.migrator.migrate(writer)
    }

    /// Opens a database writer that another process may be migrating at the same moment (the agent
    /// and a CLI command on a new data folder): migrations run under an exclusive `flock`.
    init(_ writer: any DatabaseWriter, migrationLock: PathBytes) throws {
        self.writer = writer
        let fd = migrationLock.withCString { Glibc.open($0, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        defer { if fd >= 0 { close(fd) } }
        if fd >= 0 { while flock(fd, LOCK_EX) != 0 && errno == EINTR {} }
        try Self.migrator.migrate(writer)
    }

    public var reader: any DatabaseReader { writer }

    /// Opens the on-disk database in the data folder (WAL, busy timeout), shared by the agent and the CLI.
    public static func open(paths: Paths, readonly: Bool = false) throws -> AppDatabase {
        try paths.prepare()
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.readonly = false
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
        }
        let pool = try DatabasePool(path: paths.database.display, configuration: config)
        _ = paths.database.withCString { chmod($0, 0o600) }
        return try AppDatabase(pool, migrationLock: paths.dataDirectory.appending("migrate.lock"))
    }

    /// An in-memory database for tests.
    public static func inMemory() throws -> AppDatabase {
        var config = Configuration()
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA foreign_keys = ON") }
        return try AppDatabase(DatabaseQueue(configuration: config))
    }

    /// GRDB's `Configuration` type, named here because TKCore has its own `Configuration`.
    typealias Configuration = GRDB.Configuration

    /// Every migration, in the order they ship. Each subsystem registers its own in its own file.
    static var migrator: DatabaseMigrator {
        var m = DatabaseMigrator()
        registerFoundationMigrations(&m)
        registerReviewMigrations(&m)
        registerJourneyMigrations(&m)
        registerWritingMigrations(&m)
        return m
    }
}
