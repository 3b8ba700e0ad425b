import GRDB

extension AppDatabase {
    /// The review subsystem's tables. Add migrations here, named "v1-review", "v2-review"…
    ///
    /// - `review_round`: the durable queue; one row per round (queued, waiting, running, done, failed).
    /// - `review_baseline`: per document, the words of the content its last successful round saw, so
    ///   automatic rounds only start after enough words changed.
    /// - `usage_ledger`: one row per model call (rounds and CLI commands), for `usage` and the budget.
    static func registerReviewMigrations(_ m: inout DatabaseMigrator) {
        m.registerMigration("v1-review") { db in
            try db.execute(sql: """
                CREATE TABLE review_round (
                    id TEXT PRIMARY KEY,
                    project BLOB NOT NULL,
                    document BLOB NOT NULL,
                    status TEXT NOT NULL,
                    manual INTEGER NOT NULL DEFAULT 0,
                    skip_quiet INTEGER NOT NULL DEFAULT 0,
                    reason TEXT,
                    advisors TEXT,
                    content_sha TEXT,
                    prompt_hash TEXT,
                    provider TEXT,
                    model TEXT,
                    input_tokens INTEGER NOT NULL DEFAULT 0,
                    output_tokens INTEGER NOT NULL DEFAULT 0,
                    cost_usd REAL NOT NULL DEFAULT 0,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    tries INTEGER NOT NULL DEFAULT 0,
                    suggestions INTEGER,
                    unanchored INTEGER,
                    truncated INTEGER,
                    owner_pid INTEGER,
                    not_before TEXT,
                    queued_at TEXT NOT NULL,
                    started_at TEXT,
                    finished_at TEXT,
                    error TEXT
                );
                CREATE INDEX review_round_document ON review_round(project, document);
                CREATE INDEX review_round_status ON review_round(status);
                CREATE TABLE review_baseline (
                    project BLOB NOT NULL,
                    document BLOB NOT NULL,
                    content_sha TEXT NOT NULL,
                    words BLOB NOT NULL,
                    updated_at TEXT NOT NULL,
                    PRIMARY KEY(project, document)
                );
                CREATE TABLE usage_ledger (
                    id INTEGER PRIMARY KEY,
                    at TEXT NOT NULL,
                    day TEXT NOT NULL,
                    month TEXT NOT NULL,
                    provider TEXT NOT NULL,
                    model TEXT NOT NULL,
                    input_tokens INTEGER NOT NULL,
                    output_tokens INTEGER NOT NULL,
                    cost_usd REAL NOT NULL,
                    kind TEXT NOT NULL,
                    local INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX usage_ledger_day ON usage_ledger(day);
                """)
        }
    }
}
