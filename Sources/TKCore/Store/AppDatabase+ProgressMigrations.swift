import GRDB

extension AppDatabase {
    /// Words written, goals and the version history (`Progress/`, `History/`). Add migrations here,
    /// named "v1-progress", "v2-progress"…
    static func registerProgressMigrations(_ m: inout DatabaseMigrator) {
        m.registerMigration("v1-progress") { db in
            try db.execute(sql: """
                -- The last version seen of each document (its bytes are in the history's object store):
                -- what the next save is compared with.
                CREATE TABLE history_document (
                    project BLOB NOT NULL,
                    path BLOB NOT NULL,
                    sha256 TEXT NOT NULL,
                    words INTEGER NOT NULL,
                    seen_at TEXT NOT NULL,
                    stage TEXT,
                    PRIMARY KEY (project, path)
                );
                -- When history first saw each project (real time): a document whose file is newer
                -- was created since, and its words are writing; older ones were there before.
                CREATE TABLE history_project (
                    project BLOB PRIMARY KEY,
                    seen_at TEXT NOT NULL
                );
                -- The bytes of versions: content-addressed (SHA-256), zlib-compressed, each stored once.
                CREATE TABLE history_object (
                    sha256 TEXT PRIMARY KEY,
                    size INTEGER NOT NULL,
                    data BLOB NOT NULL
                );
                -- Versions kept (content-addressed objects, compressed, shared between snapshots).
                CREATE TABLE history_snapshot (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    project BLOB NOT NULL,
                    path BLOB NOT NULL,
                    sha256 TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    time TEXT NOT NULL,
                    reason TEXT NOT NULL,
                    note TEXT,
                    words INTEGER NOT NULL,
                    added INTEGER NOT NULL,
                    removed INTEGER NOT NULL
                );
                CREATE INDEX history_snapshot_document ON history_snapshot(project, path, id);
                CREATE INDEX history_snapshot_sha ON history_snapshot(sha256);
                -- What each save wrote (negative rows correct a same-day move found later).
                CREATE TABLE progress_event (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    project BLOB NOT NULL,
                    path BLOB NOT NULL,
                    day TEXT NOT NULL,
                    time TEXT NOT NULL,
                    written INTEGER NOT NULL,
                    imported INTEGER NOT NULL,
                    deleted INTEGER NOT NULL
                );
                CREATE INDEX progress_event_day ON progress_event(project, day);
                -- Paragraphs that recently left a document (kind 'removed') or arrived whole in one
                -- (kind 'added'), to tell a move between documents from writing, within a day.
                CREATE TABLE progress_paragraph (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    project BLOB NOT NULL,
                    path BLOB NOT NULL,
                    kind TEXT NOT NULL,
                    key TEXT NOT NULL,
                    words INTEGER NOT NULL,
                    day TEXT NOT NULL
                );
                CREATE INDEX progress_paragraph_key ON progress_paragraph(project, kind, key);
                -- Days whose goal-reached notification was shown.
                CREATE TABLE progress_goal_notice (
                    project BLOB NOT NULL,
                    day TEXT NOT NULL,
                    PRIMARY KEY (project, day)
                );
                -- The scope a round was asked for (`review --scope`).
                CREATE TABLE review_round_scope (
                    round_id TEXT PRIMARY KEY,
                    scope TEXT NOT NULL
                );
                """)
        }
    }
}
