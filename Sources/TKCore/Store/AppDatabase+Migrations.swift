import GRDB

extension AppDatabase {
    /// Projects, documents and the FTS5 index (external content over `document`).
    static func registerFoundationMigrations(_ m: inout DatabaseMigrator) {
        m.registerMigration("v1-foundation") { db in
            try db.execute(sql: """
                CREATE TABLE project (
                    id INTEGER PRIMARY KEY,
                    path BLOB NOT NULL UNIQUE,
                    added_at TEXT NOT NULL
                );
                CREATE TABLE document (
                    id INTEGER PRIMARY KEY,
                    project_id INTEGER NOT NULL REFERENCES project(id) ON DELETE CASCADE,
                    path BLOB NOT NULL,
                    size INTEGER NOT NULL,
                    mtime_ns INTEGER NOT NULL,
                    ctime_ns INTEGER NOT NULL,
                    inode INTEGER NOT NULL,
                    sha256 TEXT NOT NULL,
                    words INTEGER NOT NULL,
                    title TEXT NOT NULL,
                    headings TEXT NOT NULL,
                    tags TEXT NOT NULL,
                    body TEXT NOT NULL,
                    indexed_at TEXT NOT NULL,
                    UNIQUE(project_id, path)
                );
                CREATE VIRTUAL TABLE document_fts USING fts5(
                    title, headings, tags, body,
                    content='document', content_rowid='id',
                    tokenize='porter unicode61 remove_diacritics 2', prefix='2 3'
                );
                INSERT INTO document_fts(document_fts, rank) VALUES('rank', 'bm25(10.0, 4.0, 4.0, 1.0)');
                CREATE TRIGGER document_ai AFTER INSERT ON document BEGIN
                    INSERT INTO document_fts(rowid, title, headings, tags, body)
                    VALUES (new.id, new.title, new.headings, new.tags, new.body);
                END;
                CREATE TRIGGER document_ad AFTER DELETE ON document BEGIN
                    INSERT INTO document_fts(document_fts, rowid, title, headings, tags, body)
                    VALUES ('delete', old.id, old.title, old.headings, old.tags, old.body);
                END;
                CREATE TRIGGER document_au AFTER UPDATE OF title, headings, tags, body ON document BEGIN
                    INSERT INTO document_fts(document_fts, rowid, title, headings, tags, body)
                    VALUES ('delete', old.id, old.title, old.headings, old.tags, old.body);
                    INSERT INTO document_fts(rowid, title, headings, tags, body)
                    VALUES (new.id, new.title, new.headings, new.tags, new.body);
                END;
                """)
        }
        m.registerMigration("v2-foundation-document-problem") { db in
            // A problem found when the document was last read (broken front matter), so that `status`
            // still shows it after a restart without reading every unchanged document again.
            try db.execute(sql: "ALTER TABLE document ADD COLUMN problem TEXT")
        }
        m.registerMigration("v3-foundation-fts-without-prefix-indexes") { db in
            // The 2- and 3-character prefix indexes tripled the work of every insert (SQLite was half
            // of a first index) and served only one- to three-letter `x*` queries, which FTS5 answers
            // without them. The index is rebuilt from `document` (external content).
            try db.execute(sql: """
                DROP TABLE document_fts;
                CREATE VIRTUAL TABLE document_fts USING fts5(
                    title, headings, tags, body,
                    content='document', content_rowid='id',
                    tokenize='porter unicode61 remove_diacritics 2'
                );
                INSERT INTO document_fts(document_fts, rank) VALUES('rank', 'bm25(10.0, 4.0, 4.0, 1.0)');
                INSERT INTO document_fts(document_fts) VALUES('rebuild');
                """)
        }
        m.registerMigration("v4-foundation-fts-without-triggers") { db in
            // A statement run by a trigger opens a savepoint, and FTS5 writes its pending terms to a
            // new segment at every savepoint: one segment per document, merged again and again. That
            // made inserting through the triggers twice as slow as inserting into the index directly,
            // which `apply` now does (`AppDatabase+Documents.swift`). The index content is unchanged.
            try db.execute(sql: """
                DROP TRIGGER document_ai;
                DROP TRIGGER document_ad;
                DROP TRIGGER document_au;
                """)
        }
    }
}
