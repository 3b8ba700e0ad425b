import GRDB

extension AppDatabase {
    /// The document owner's tables and columns (`Sources/TKCore/State`).
    static func registerStateMigrations(_ m: inout DatabaseMigrator) {
        m.registerMigration("v1-state-derived-from") { db in
            // What a document's recorded sidecar was derived from: "<sha256 of the bytes>:<settings
            // digest>". A document whose indexed bytes or project settings differ from this is derived
            // again (its quick findings and journey) at the agent's next look, whoever indexed it.
            try db.execute(sql: "ALTER TABLE journey_state ADD COLUMN derived_from TEXT")
        }
    }
}
