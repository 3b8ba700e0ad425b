import GRDB

extension AppDatabase {
    /// The journey subsystem's tables. Add migrations here, named "v1-journey", "v2-journey"…
    static func registerJourneyMigrations(_ m: inout DatabaseMigrator) {
    }
}
