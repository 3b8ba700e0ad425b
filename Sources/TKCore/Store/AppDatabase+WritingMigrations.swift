import GRDB

extension AppDatabase {
    /// The writing subsystem's tables. Add migrations here, named "v1-writing", "v2-writing"…
    static func registerWritingMigrations(_ m: inout DatabaseMigrator) {
    }
}
