import GRDB

extension AppDatabase {
    /// The review subsystem's tables. Add migrations here, named "v1-review", "v2-review"…
    static func registerReviewMigrations(_ m: inout DatabaseMigrator) {
    }
}
