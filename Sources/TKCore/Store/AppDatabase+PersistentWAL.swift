import CSQLite
import GRDB

extension AppDatabase {
    /// Keeps the `-wal` file when the last connection closes (`SQLITE_FCNTL_PERSIST_WAL`), and
    /// closes connections without a checkpoint (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`).
    ///
    /// Without the first, SQLite deletes the WAL when a command that ran without the agent exits,
    /// and the next command's `DatabasePool` makes a new one with a dummy transaction (GRDB does so
    /// that readers can open): a schema write and two `fdatasync` calls at the start of every such
    /// command. Without the second, a command that wrote a row (`ask` records the question's
    /// embedding tokens) checkpoints at exit, with two or three more. Together they were tens of
    /// milliseconds of an `ask --sources` of 80 (more on a loaded disk). Pages stay in the WAL until
    /// a commit finds it over `wal_autocheckpoint` (1,000 pages) and checkpoints it: durability is
    /// that of `synchronous = NORMAL`, as before. With the agent running the WAL stays anyway.
    static func keepWriteAheadLog(_ db: Database) {
        guard let connection = db.sqliteConnection else { return }
        var on: Int32 = 1
        _ = sqlite3_file_control(connection, "main", SQLITE_FCNTL_PERSIST_WAL, &on)
        _ = tk_sqlite_no_checkpoint_on_close(connection)
    }
}
