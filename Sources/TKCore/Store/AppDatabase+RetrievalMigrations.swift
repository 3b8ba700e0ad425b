import Foundation
import GRDB

extension AppDatabase {
    /// Passages, their full-text index and their embeddings (`tk-agent ask --project`, `search --hybrid`).
    static func registerRetrievalMigrations(_ m: inout DatabaseMigrator) {
        m.registerMigration("v1-retrieval") { db in
            // `digest` is the first 64 bits of the SHA-256 of a passage's heading path and text: the
            // key of its embedding, so that an unchanged passage (after a restart, a rename or an
            // edit elsewhere in the document) is never embedded again.
            // `passage_fts` keeps its own copy of the text (no external content): a passage deleted by
            // the cascade from `document` is removed from it by rowid in the trigger.
            try db.execute(sql: """
                CREATE TABLE passage (
                    id INTEGER PRIMARY KEY,
                    document_id INTEGER NOT NULL REFERENCES document(id) ON DELETE CASCADE,
                    ordinal INTEGER NOT NULL,
                    start_line INTEGER NOT NULL,
                    end_line INTEGER NOT NULL,
                    words INTEGER NOT NULL,
                    digest INTEGER NOT NULL
                );
                CREATE INDEX passage_document ON passage(document_id, ordinal);
                CREATE INDEX passage_digest ON passage(digest);
                CREATE VIRTUAL TABLE passage_fts USING fts5(
                    heading, text, tokenize='porter unicode61 remove_diacritics 2'
                );
                INSERT INTO passage_fts(passage_fts, rank) VALUES('rank', 'bm25(2.0, 1.0)');
                CREATE TRIGGER passage_ad AFTER DELETE ON passage BEGIN
                    DELETE FROM passage_fts WHERE rowid = old.id;
                END;
                CREATE TABLE document_retrieval (
                    document_id INTEGER PRIMARY KEY REFERENCES document(id) ON DELETE CASCADE,
                    reading_order REAL,
                    private INTEGER NOT NULL DEFAULT 0,
                    sha256 TEXT NOT NULL
                );
                CREATE TABLE passage_vector (
                    model TEXT NOT NULL,
                    dim INTEGER NOT NULL,
                    digest INTEGER NOT NULL,
                    scale REAL NOT NULL,
                    vector BLOB NOT NULL,
                    PRIMARY KEY (model, dim, digest)
                ) WITHOUT ROWID;
                """)
        }
        m.registerMigration("v2-retrieval-contentless-passage-index") { db in
            try migrateToContentlessPassageIndex(db)
        }
    }

    /// The passage index as it is since v2: contentless (the text is kept once, compressed, in
    /// `passage.body`, see `PassageText`). `name` lets the migration build it beside the old one.
    static func createPassageIndex(_ db: Database, name: String = "passage_fts") throws {
        try db.execute(sql: """
            CREATE VIRTUAL TABLE \(name) USING fts5(
                heading, text, content='', tokenize='porter unicode61 remove_diacritics 2'
            );
            INSERT INTO \(name)(\(name), rank) VALUES('rank', 'bm25(2.0, 1.0)');
            """)
    }

    /// v1 kept every passage's text twice over in `passage_fts` (its content table was a third of
    /// the database of the large corpus). v2: the text once, compressed, in `passage`; a contentless
    /// index; deleted passages' texts in `passage_gone` until the index is told
    /// (`AppDatabase.forgetGonePassages`). Ids, digests and so embeddings are kept as they are.
    static func migrateToContentlessPassageIndex(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE passage_v2 (
                id INTEGER PRIMARY KEY AUTOINCREMENT,
                document_id INTEGER NOT NULL REFERENCES document(id) ON DELETE CASCADE,
                ordinal INTEGER NOT NULL,
                start_line INTEGER NOT NULL,
                end_line INTEGER NOT NULL,
                words INTEGER NOT NULL,
                digest INTEGER NOT NULL,
                heading TEXT NOT NULL,
                body BLOB NOT NULL,
                size INTEGER NOT NULL
            );
            """)
        try createPassageIndex(db, name: "passage_fts_v2")
        let copy = try db.makeStatement(sql: """
            INSERT INTO passage_v2(id, document_id, ordinal, start_line, end_line, words, digest, heading, body, size)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let index = try db.makeStatement(sql: "INSERT INTO passage_fts_v2(rowid, heading, text) VALUES (?, ?, ?)")
        let rows = try Row.fetchCursor(db, sql: """
            SELECT p.id, p.document_id, p.ordinal, p.start_line, p.end_line, p.words, p.digest, f.heading, f.text
            FROM passage p JOIN passage_fts f ON f.rowid = p.id
            """)
        while let row = try rows.next() {
            let heading: String = row["heading"], text: String = row["text"]
            let (packed, size) = PassageText.pack(text)
            try copy.execute(arguments: [row["id"], row["document_id"], row["ordinal"], row["start_line"], row["end_line"],
                                         row["words"], row["digest"], heading, Data(packed), size])
            try index.execute(arguments: [row["id"], heading, text])
        }
        try db.execute(sql: """
            DROP TRIGGER passage_ad;
            DROP TABLE passage_fts;
            DROP TABLE passage;
            ALTER TABLE passage_v2 RENAME TO passage;
            ALTER TABLE passage_fts_v2 RENAME TO passage_fts;
            CREATE INDEX passage_document ON passage(document_id, ordinal);
            CREATE INDEX passage_digest ON passage(digest);
            CREATE TABLE passage_gone (
                id INTEGER PRIMARY KEY,
                heading TEXT NOT NULL,
                body BLOB NOT NULL,
                size INTEGER NOT NULL
            );
            CREATE TRIGGER passage_ad AFTER DELETE ON passage BEGIN
                INSERT OR REPLACE INTO passage_gone(id, heading, body, size) VALUES (old.id, old.heading, old.body, old.size);
            END;
            """)
    }
}
