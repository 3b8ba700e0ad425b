import Foundation
import GRDB
import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// The database was made by a newer tk-agent: an older one must not read or migrate it.
public struct NewerDatabaseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The newer database's schema (the number of its migrations).
    public let schema: Int
    public var description: String {
        "tk-agent: the database was made by a newer tk-agent (schema \(schema)); upgrade, or use another TK_DATA_DIR"
    }
}

/// The one owner of the SQLite schema and every write: projects, documents and their FTS5 index,
/// review queue, usage and document state.
public struct AppDatabase: Sendable {
    let writer: any DatabaseWriter

    /// Opens (and migrates) a database writer.
    /// - Throws: `NewerDatabaseError` when a newer tk-agent made the database (it is left untouched).
    public init(_ writer: any DatabaseWriter) throws {
        self.writer = writer
        let migrator = Self.migrator
        if let newer = try writer.read({ db in try Self.newerSchema(db, migrator: migrator) }) {
            throw NewerDatabaseError(schema: newer)
        }
        try migrator.migrate(writer)
    }

    /// The schema of this version: the number of migrations it knows.
    public static var schema: Int { migrator.migrations.count }

    /// The database's schema (the migrations applied to it) when it has migrations this version does
    /// not know, else nil.
    static func newerSchema(_ db: Database, migrator: DatabaseMigrator) throws -> Int? {
        guard try db.tableExists("grdb_migrations") else { return nil }
        return newerSchema(applied: try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations"), migrator: migrator)
    }

    /// The schema of a database whose applied migrations are `applied`, when one of them is not
    /// `migrator`'s, else nil.
    static func newerSchema(applied: [String], migrator: DatabaseMigrator) -> Int? {
        let known = Set(migrator.migrations)
        return applied.contains { !known.contains($0) } ? applied.count : nil
    }

    /// The line to refuse to run with when the database in the data folder was made by a newer
    /// tk-agent, else nil (also when it cannot be read: opening it then reports what is wrong).
    /// Reads the file only; never creates or changes it.
    public static func newerDatabaseProblem(paths: Paths) -> String? {
        guard FileSystem.lstatIfExists(paths.database) != nil, let applied = appliedMigrations(paths.database),
              let newer = newerSchema(applied: applied, migrator: migrator) else { return nil }
        return NewerDatabaseError(schema: newer).description
    }

    /// The migrations applied to the database at `path` (`[]` when it has no migrations table), read
    /// read-only through SQLite's C API: every command asks before it starts, and a GRDB connection
    /// (its configuration, its first use of the Swift runtime's type look-ups) cost `check` more
    /// than a page of text does. nil when the file cannot be opened or read as a database.
    static func appliedMigrations(_ path: PathBytes) -> [String]? {
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }   // closing nil does nothing
        let opened = path.withCString { sqlite3_open_v2($0, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) }
        guard opened == SQLITE_OK, let db = handle else { return nil }
        func rows(_ sql: String) -> [String]? {
            var stmt: OpaquePointer?
            defer { sqlite3_finalize(stmt) }
            guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK, let stmt else { return nil }
            var out: [String] = []
            while true {
                switch sqlite3_step(stmt) {
                case SQLITE_ROW:
                    out.append(sqlite3_column_text(stmt, 0).map { String(cString: $0) } ?? "")
                case SQLITE_DONE:
                    return out
                default:
                    return nil
                }
            }
        }
        // As GRDB's `tableExists` (a fresh read-only connection has no temporary tables).
        guard let tables = rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'grdb_migrations'") else { return nil }
        return tables.isEmpty ? [] : rows("SELECT identifier FROM grdb_migrations")
    }

    /// Runs `body` holding an exclusive `flock` on `lockFile` (without one if it cannot be opened).
    static func withFileLock<T>(_ lockFile: PathBytes, _ body: () throws -> T) rethrows -> T {
        let fd = lockFile.withCString { Glibc.open($0, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        defer { if fd >= 0 { close(fd) } }
        if fd >= 0 { while flock(fd, LOCK_EX) != 0 && errno == EINTR {} }
        return try body()
    }

    public var reader: any DatabaseReader { writer }

    /// Opens the on-disk database in the data folder (WAL, busy timeout), shared by the agent and the CLI.
    public static func open(paths: Paths) throws -> AppDatabase {
        try paths.prepare()
        var config = Configuration()
        config.busyMode = .timeout(10)
        config.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            try db.execute(sql: "PRAGMA foreign_keys = ON")
            keepWriteAheadLog(db)
        }
        // The agent and a CLI command (`status` polling while the agent starts on a new data folder)
        // may open the database at the same moment. Switching a new file to WAL needs an exclusive
        // lock SQLite does not wait for, and migrations must run once: both happen under one `flock`.
        // A rare SQLITE_BUSY left over is retried briefly.
        var attempt = 0
        while true {
            do {
                return try withFileLock(paths.dataDirectory.appending("migrate.lock")) {
                    let pool = try DatabasePool(path: paths.database.display, configuration: config)
                    _ = paths.database.withCString { chmod($0, 0o600) }
                    return try AppDatabase(pool)
                }
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && attempt < 20 {
                attempt += 1
                usleep(50_000)
            }
        }
    }

    /// Frees SQLite's caches (page caches of every connection; idle readers are closed and reopened
    /// when needed), after a bulk load filled them.
    public func releaseMemory() {
        if let pool = writer as? DatabasePool { pool.releaseMemory() } else if let queue = writer as? DatabaseQueue { queue.releaseMemory() }
    }

    /// Makes every statement running now (on the writer and the readers) stop with
    /// `SQLITE_INTERRUPT` at its next step; its transaction is rolled back. For a stop that must
    /// not wait for a long statement: what it was doing is done again by the next start.
    public func interrupt() {
        writer.interrupt()
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
        registerStateMigrations(&m)
        registerRetrievalMigrations(&m)
        registerProgressMigrations(&m)
        registerVectorBlockMigrations(&m)
        registerIdentityMigrations(&m)
        return m
    }
}
