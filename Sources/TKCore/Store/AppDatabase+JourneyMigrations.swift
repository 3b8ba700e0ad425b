import GRDB

extension AppDatabase {
    /// The journey subsystem's tables. Add migrations here, named "v1-journey", "v2-journey"…
    static func registerJourneyMigrations(_ m: inout DatabaseMigrator) {
        m.registerMigration("v1-journey") { db in
            // Per document: the sidecar as tk-agent last wrote or read it (to rebuild a sidecar broken
            // or edited by hand), its stage and pending count (for `documents` and `status`), and the
            // document bytes it describes (to follow passages through the next save; NULL when too large).
            try db.execute(sql: """
                CREATE TABLE journey_state (
                    project BLOB NOT NULL,
                    path BLOB NOT NULL,
                    sidecar BLOB NOT NULL,
                    stage TEXT NOT NULL,
                    pending INTEGER NOT NULL,
                    content BLOB,
                    content_sha256 TEXT,
                    updated_at TEXT NOT NULL,
                    PRIMARY KEY (project, path)
                );
                """)
        }
    }
}
