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
    }
}
