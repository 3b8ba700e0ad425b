import GRDB

extension AppDatabase {
    /// Embeddings in packs of a few thousand (`vector_pack`), so that a question reads tens of rows
    /// instead of one per passage (see `VectorPacks`).
    static func registerVectorBlockMigrations(_ m: inout DatabaseMigrator) {
        m.registerMigration("v1-vector-packs") { db in
            // `passage_vector` stays the source of truth. A pack holds, for one (model, dim), `count`
            // digests (little-endian int64), scales (little-endian float32) and int8 vectors, in that
            // column order: the small columns first, so that reading a pack's digests does not walk the
            // overflow pages of its vectors.
            // `vector_pack_delta` lists the digests whose packed entry, if any, is not the current one:
            // every write to `passage_vector` adds its key there (by trigger, whoever writes), and
            // packing folds the list into the packs. A listed digest with no row in `passage_vector`
            // was deleted. So the packs, minus the listed digests, plus the listed digests' rows, are
            // always exactly `passage_vector`.
            try db.execute(sql: """
                CREATE TABLE vector_pack (
                    id INTEGER PRIMARY KEY,
                    model TEXT NOT NULL,
                    dim INTEGER NOT NULL,
                    count INTEGER NOT NULL,
                    digests BLOB NOT NULL,
                    scales BLOB NOT NULL,
                    vectors BLOB NOT NULL
                );
                CREATE INDEX vector_pack_model ON vector_pack(model, dim);
                CREATE TABLE vector_pack_delta (
                    model TEXT NOT NULL,
                    dim INTEGER NOT NULL,
                    digest INTEGER NOT NULL,
                    PRIMARY KEY (model, dim, digest)
                ) WITHOUT ROWID;
                CREATE TRIGGER passage_vector_pack_ai AFTER INSERT ON passage_vector BEGIN
                    INSERT OR IGNORE INTO vector_pack_delta(model, dim, digest) VALUES (new.model, new.dim, new.digest);
                END;
                CREATE TRIGGER passage_vector_pack_au AFTER UPDATE ON passage_vector BEGIN
                    INSERT OR IGNORE INTO vector_pack_delta(model, dim, digest) VALUES (old.model, old.dim, old.digest);
                    INSERT OR IGNORE INTO vector_pack_delta(model, dim, digest) VALUES (new.model, new.dim, new.digest);
                END;
                CREATE TRIGGER passage_vector_pack_ad AFTER DELETE ON passage_vector BEGIN
                    INSERT OR IGNORE INTO vector_pack_delta(model, dim, digest) VALUES (old.model, old.dim, old.digest);
                END;
                """)
            // An existing database: every stored vector is unpacked. The packs are built later (by the
            // embedding worker, or by the first question that finds many unpacked), nothing is
            // embedded again.
            try db.execute(sql: "INSERT INTO vector_pack_delta(model, dim, digest) SELECT model, dim, digest FROM passage_vector")
        }
        m.registerMigration("v1-retrieval-document-check-index") { db in
            // Every question first looks for documents whose passages are out of step with their
            // content (`documentsWithoutPassages`): through this covering index it reads 17,037
            // short entries of the large corpus in id order, where it read every document row
            // (their texts fill the table's pages: 70 MB).
            try db.execute(sql: "CREATE INDEX document_passage_check ON document(id, sha256)")
        }
        m.registerMigration("v1-passage-windows") { db in
            // What is embedded of each passage under a window plan (`EmbeddingWindows.plan`: the
            // windowing's version and the model's token budget): one row a text, keyed by the
            // first 64 bits of its SHA-256 — the passage's own digest when it fits whole, else one
            // row per overlapping window. Vectors are stored under `key`; a passage scores by its
            // best window. Rows are planned by the embedding worker (existing vectors of passages
            // that fit keep their key: nothing is embedded again).
            try db.execute(sql: """
                CREATE TABLE passage_window (
                    digest INTEGER NOT NULL,
                    plan INTEGER NOT NULL,
                    ordinal INTEGER NOT NULL,
                    key INTEGER NOT NULL,
                    PRIMARY KEY (digest, plan, ordinal)
                ) WITHOUT ROWID;
                CREATE INDEX passage_window_key ON passage_window(key);
                """)
        }
        m.registerMigration("v1-passage-pending") { db in
            // The documents whose passages are out of step with their content, kept by
            // `AppDatabase.apply` and `syncPassages` (not by triggers: a trigger on `document` gives
            // its statements a savepoint, and FTS5 flushes a segment at each), so that a question
            // asks one short table (`documentsWithoutPassages`) instead of comparing every document
            // with its retrieval row (12 ms a question on the large corpus). A row is the same test
            // as before: no retrieval row, or one made from other bytes.
            try db.execute(sql: """
                CREATE TABLE passage_pending (document_id INTEGER PRIMARY KEY);
                INSERT INTO passage_pending(document_id)
                    SELECT c.id FROM document c LEFT JOIN document_retrieval r ON r.document_id = c.id
                    WHERE r.document_id IS NULL OR r.sha256 != c.sha256;
                """)
        }
    }
}
