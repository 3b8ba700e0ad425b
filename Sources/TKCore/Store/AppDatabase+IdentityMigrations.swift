import Foundation
import GRDB

extension AppDatabase {
    /// Documents keyed by id (`DocumentIdentity`). Add migrations here, named "v1-identity", "v2-identity"…
    static func registerIdentityMigrations(_ m: inout DatabaseMigrator) {
        m.registerMigration("v1-identity-documents-by-id") { db in
            try migrateToDocumentsByID(db, now: Date())
        }
        // A file's conversations were keyed by its absolute path; now by a digest of it
        // (`AskExchange.fileSubject`), so that no table but `project` and `document` holds a path.
        m.registerMigration("v2-identity-ask-subject-digest") { db in
            let paths = try String.fetchAll(db, sql: """
                SELECT DISTINCT subject FROM ask_message WHERE subject NOT LIKE 'text:%' AND subject != 'none'
                AND subject NOT LIKE 'file:%'
                """)
            let update = try db.makeStatement(sql: "UPDATE ask_message SET subject = ? WHERE subject = ?")
            for p in paths { try update.execute(arguments: [AskExchange.fileSubject(PathBytes(p)), p]) }
        }
        // `status` counts each project's documents by stage (`journeySummary`) on every write, up to ten
        // a second while a scan runs. Read from the tables, that walked each journey row's sidecar (its
        // overflow pages: `stage` and `pending` come after it) and each document's row: 8% of a first
        // scan's CPU. These two indexes hold what the count reads.
        m.registerMigration("v3-identity-stage-count-indexes") { db in
            try db.execute(sql: """
                CREATE INDEX IF NOT EXISTS journey_state_stage ON journey_state(document_id, stage, pending);
                CREATE INDEX IF NOT EXISTS document_project_in_index ON document(id, project_id, in_index);
                """)
        }
        // A batch's database state is committed before its sidecars are written (`DocumentPipeline
        // .commit`): a kill in between leaves sidecars that lag the database. The checksum of each
        // sidecar as written tells them (`verifySidecars`), read from an index of its own (the column
        // comes after the sidecar's overflow pages).
        m.registerMigration("v4-identity-sidecar-checksum") { db in
            try db.execute(sql: """
                ALTER TABLE journey_state ADD COLUMN sidecar_checksum TEXT;
                CREATE INDEX IF NOT EXISTS journey_state_checksum ON journey_state(document_id, sidecar_checksum);
                """)
        }
    }

    /// Until this migration, nine tables named their document by (project path, relative path), so
    /// that a rename was applied in five places and a deleted document's history was reachable by
    /// path only. Now only `project` and `document` hold paths; every other table references a
    /// document (or a project) by its id, with a foreign key:
    /// - `document.in_index` (1: the file is indexed now; 0: known only to history, the journey or
    ///   the review queue — deleted, too large, or not yet indexed). A row leaves the index but is
    ///   kept, so that history stays restorable and a rename is one update of `document.path`.
    /// - Every (project, path) named by an old table becomes a document row (out of the index when the
    ///   index does not hold it, with an empty `document_fts` entry); the rows are copied over with
    ///   its id. Nothing is dropped.
    static func migrateToDocumentsByID(_ db: Database, now: Date) throws {
        let stamp = RFC3339.string(now)
        // `document` is rebuilt with its small columns first: a column is read without walking a
        // row's overflow pages only when it comes before the document's text (`body` runs to
        // megabytes), and `in_index`, `indexed_at` and `problem` are read for every document by
        // `status`, the scans and `documents`. Ids are kept (the full-text index and the passages
        // refer to them).
        try db.execute(sql: """
            CREATE TABLE document_v2 (
                id INTEGER PRIMARY KEY,
                project_id INTEGER NOT NULL REFERENCES project(id) ON DELETE CASCADE,
                path BLOB NOT NULL,
                in_index INTEGER NOT NULL DEFAULT 1,
                size INTEGER NOT NULL,
                mtime_ns INTEGER NOT NULL,
                ctime_ns INTEGER NOT NULL,
                inode INTEGER NOT NULL,
                sha256 TEXT NOT NULL,
                words INTEGER NOT NULL,
                indexed_at TEXT NOT NULL,
                problem TEXT,
                title TEXT NOT NULL,
                headings TEXT NOT NULL,
                tags TEXT NOT NULL,
                body TEXT NOT NULL,
                UNIQUE(project_id, path)
            );
            INSERT INTO document_v2(id, project_id, path, in_index, size, mtime_ns, ctime_ns, inode, sha256, words,
                                    indexed_at, problem, title, headings, tags, body)
                SELECT id, project_id, path, 1, size, mtime_ns, ctime_ns, inode, sha256, words,
                       indexed_at, problem, title, headings, tags, body FROM document ORDER BY id;
            DROP TABLE document;
            ALTER TABLE document_v2 RENAME TO document;
            CREATE INDEX document_passage_check ON document(id, sha256);
            """)
        let named = """
            SELECT project, path FROM journey_state
            UNION SELECT project, path FROM history_document
            UNION SELECT project, path FROM history_snapshot
            UNION SELECT project, path FROM progress_event
            UNION SELECT project, path FROM progress_paragraph
            UNION SELECT project, document FROM review_round
            UNION SELECT project, document FROM review_baseline
            """
        try db.execute(sql: """
            INSERT OR IGNORE INTO project(path, added_at)
                SELECT project, ? FROM (\(named)
                    UNION SELECT project, NULL FROM history_project
                    UNION SELECT project, NULL FROM progress_goal_notice);
            INSERT OR IGNORE INTO document(project_id, path, size, mtime_ns, ctime_ns, inode, sha256, words, title,
                                           headings, tags, body, indexed_at, in_index)
                SELECT p.id, n.path, 0, 0, 0, 0, '', 0, '', '', '', '', '', 0
                FROM (\(named)) n JOIN project p ON p.path = n.project;
            INSERT INTO document_fts(rowid, title, headings, tags, body)
                SELECT id, '', '', '', '' FROM document WHERE in_index = 0;
            """, arguments: [stamp])
        // The document id of an old row: `JOIN \(ids) ON …` gives `d.id`.
        func ids(_ table: String, path: String = "path") -> String {
            "\(table) o JOIN project p ON p.path = o.project JOIN document d ON d.project_id = p.id AND d.path = o.\(path)"
        }
        try db.execute(sql: """
            CREATE TABLE journey_state_v2 (
                document_id INTEGER PRIMARY KEY REFERENCES document(id) ON DELETE CASCADE,
                sidecar BLOB NOT NULL,
                stage TEXT NOT NULL,
                pending INTEGER NOT NULL,
                content BLOB,
                content_sha256 TEXT,
                updated_at TEXT NOT NULL,
                derived_from TEXT
            );
            INSERT INTO journey_state_v2
                SELECT d.id, o.sidecar, o.stage, o.pending, o.content, o.content_sha256, o.updated_at, o.derived_from
                FROM \(ids("journey_state"));
            DROP TABLE journey_state;
            ALTER TABLE journey_state_v2 RENAME TO journey_state;

            CREATE TABLE history_document_v2 (
                document_id INTEGER PRIMARY KEY REFERENCES document(id) ON DELETE CASCADE,
                sha256 TEXT NOT NULL,
                words INTEGER NOT NULL,
                seen_at TEXT NOT NULL,
                stage TEXT
            );
            INSERT INTO history_document_v2 SELECT d.id, o.sha256, o.words, o.seen_at, o.stage FROM \(ids("history_document"));
            DROP TABLE history_document;
            ALTER TABLE history_document_v2 RENAME TO history_document;
            CREATE INDEX history_document_sha ON history_document(sha256);

            CREATE TABLE history_project_v2 (
                project_id INTEGER PRIMARY KEY REFERENCES project(id) ON DELETE CASCADE,
                seen_at TEXT NOT NULL
            );
            INSERT INTO history_project_v2 SELECT p.id, o.seen_at FROM history_project o JOIN project p ON p.path = o.project;
            DROP TABLE history_project;
            ALTER TABLE history_project_v2 RENAME TO history_project;

            CREATE TABLE history_snapshot_v2 (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                document_id INTEGER NOT NULL REFERENCES document(id) ON DELETE CASCADE,
                sha256 TEXT NOT NULL,
                size INTEGER NOT NULL,
                time TEXT NOT NULL,
                reason TEXT NOT NULL,
                note TEXT,
                words INTEGER NOT NULL,
                added INTEGER NOT NULL,
                removed INTEGER NOT NULL
            );
            INSERT INTO history_snapshot_v2
                SELECT o.id, d.id, o.sha256, o.size, o.time, o.reason, o.note, o.words, o.added, o.removed
                FROM \(ids("history_snapshot")) ORDER BY o.id;
            DROP TABLE history_snapshot;
            ALTER TABLE history_snapshot_v2 RENAME TO history_snapshot;
            CREATE INDEX history_snapshot_document ON history_snapshot(document_id, id);
            CREATE INDEX history_snapshot_sha ON history_snapshot(sha256);

            CREATE TABLE progress_event_v2 (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                document_id INTEGER NOT NULL REFERENCES document(id) ON DELETE CASCADE,
                day TEXT NOT NULL,
                time TEXT NOT NULL,
                written INTEGER NOT NULL,
                imported INTEGER NOT NULL,
                deleted INTEGER NOT NULL
            );
            INSERT INTO progress_event_v2
                SELECT o.id, d.id, o.day, o.time, o.written, o.imported, o.deleted FROM \(ids("progress_event")) ORDER BY o.id;
            DROP TABLE progress_event;
            ALTER TABLE progress_event_v2 RENAME TO progress_event;
            CREATE INDEX progress_event_document ON progress_event(document_id, day);
            CREATE INDEX progress_event_day ON progress_event(day);

            CREATE TABLE progress_paragraph_v2 (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                document_id INTEGER NOT NULL REFERENCES document(id) ON DELETE CASCADE,
                kind TEXT NOT NULL,
                key TEXT NOT NULL,
                words INTEGER NOT NULL,
                day TEXT NOT NULL
            );
            INSERT INTO progress_paragraph_v2
                SELECT o.id, d.id, o.kind, o.key, o.words, o.day FROM \(ids("progress_paragraph")) ORDER BY o.id;
            DROP TABLE progress_paragraph;
            ALTER TABLE progress_paragraph_v2 RENAME TO progress_paragraph;
            CREATE INDEX progress_paragraph_key ON progress_paragraph(kind, key);
            CREATE INDEX progress_paragraph_document ON progress_paragraph(document_id);

            CREATE TABLE progress_goal_notice_v2 (
                project_id INTEGER NOT NULL REFERENCES project(id) ON DELETE CASCADE,
                day TEXT NOT NULL,
                PRIMARY KEY (project_id, day)
            );
            INSERT INTO progress_goal_notice_v2 SELECT p.id, o.day FROM progress_goal_notice o JOIN project p ON p.path = o.project;
            DROP TABLE progress_goal_notice;
            ALTER TABLE progress_goal_notice_v2 RENAME TO progress_goal_notice;

            CREATE TABLE review_round_v2 (
                id TEXT PRIMARY KEY,
                document_id INTEGER NOT NULL REFERENCES document(id) ON DELETE CASCADE,
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
            INSERT INTO review_round_v2
                SELECT o.id, d.id, o.status, o.manual, o.skip_quiet, o.reason, o.advisors, o.content_sha, o.prompt_hash,
                       o.provider, o.model, o.input_tokens, o.output_tokens, o.cost_usd, o.attempts, o.tries, o.suggestions,
                       o.unanchored, o.truncated, o.owner_pid, o.not_before, o.queued_at, o.started_at, o.finished_at, o.error
                FROM \(ids("review_round", path: "document")) ORDER BY o.rowid;
            DROP TABLE review_round;
            ALTER TABLE review_round_v2 RENAME TO review_round;
            CREATE INDEX review_round_document ON review_round(document_id);
            CREATE INDEX review_round_status ON review_round(status);

            CREATE TABLE review_baseline_v2 (
                document_id INTEGER PRIMARY KEY REFERENCES document(id) ON DELETE CASCADE,
                content_sha TEXT NOT NULL,
                words BLOB NOT NULL,
                updated_at TEXT NOT NULL
            );
            INSERT INTO review_baseline_v2
                SELECT d.id, o.content_sha, o.words, o.updated_at FROM \(ids("review_baseline", path: "document"));
            DROP TABLE review_baseline;
            ALTER TABLE review_baseline_v2 RENAME TO review_baseline;
            """)
    }
}
