import GRDB

extension AppDatabase {
    /// The writing subsystem's tables. Add migrations here, named "v1-writing", "v2-writing"…
    static func registerWritingMigrations(_ m: inout DatabaseMigrator) {
        // `tk-agent ask` history, so that `--continue` can follow up on the last conversation about a file.
        m.registerMigration("v1-writing") { db in
            try db.create(table: "ask_message") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("conversation", .text).notNull()
                t.column("subject", .text).notNull()
                t.column("role_id", .text).notNull()
                t.column("question", .text).notNull()
                t.column("prompt", .text).notNull()
                t.column("answer", .text).notNull()
                t.column("created_at", .text).notNull()
            }
            try db.create(index: "ask_message_subject", on: "ask_message", columns: ["subject", "id"])
        }
    }
}
