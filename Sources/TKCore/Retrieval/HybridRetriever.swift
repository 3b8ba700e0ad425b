import Foundation
import GRDB

/// One passage found for a question, with its fused score.
public struct RetrievedPassage: Sendable {
    public var passage: StoredPassage
    /// Reciprocal-rank fusion score (higher is better).
    public var score: Double
    public var keywordRank: Int?
    public var vectorRank: Int?
}

/// BM25 over passages fused with vector similarity by reciprocal-rank fusion (k = 20, equal
/// weights), every candidate ranked by both sides; a long passage scores by its best window.
public struct HybridRetriever: Sendable {
    public let database: AppDatabase
    /// RRF's k. The usual 60 was set for fusing lists a thousand long; ours are 50, and with 60 a
    /// keyword side's first and tenth passage differed by 13% of a score that one more list's
    /// mention could outweigh (bench/RESULTS.md, "Retrieval": the fusion chosen on the older
    /// question sets, checked on held-out ones).
    public static let rrfK = 20.0
    /// The vector side's weight in the fusion, against the keyword side's 1: equal. A weight tuned to
    /// one model (0.5, chosen with the static wordllama vectors) buried a sentence model's best hits
    /// (bench/RESULTS.md, "Retrieval with the model's context"); ranks carry no model's scale.
    public static let vectorWeight = 1.0
    /// How much of the database file a question may map (vectors of the large corpus: ~24 MB).
    static let vectorMapBytes = 1 << 30
    /// How many candidates each list contributes before fusion.
    public var candidates = 50

    public init(database: AppDatabase) { self.database = database }

    /// Words that carry no meaning in a question (a short list of our own).
    static let stopWords: Set<String> = [
        "a", "an", "the", "and", "or", "but", "if", "of", "to", "in", "on", "at", "by", "for", "with", "about",
        "from", "into", "as", "is", "are", "was", "were", "be", "been", "being", "am", "do", "does", "did", "done",
        "have", "has", "had", "having", "i", "me", "my", "we", "our", "you", "your", "he", "him", "his", "she",
        "her", "it", "its", "they", "them", "their", "this", "that", "these", "those", "what", "which", "who",
        "whom", "whose", "where", "when", "why", "how", "can", "could", "should", "would", "will", "shall", "may",
        "might", "must", "not", "no", "so", "than", "then", "there", "here", "any", "some", "all", "each", "also",
        "just", "only", "very", "too", "up", "out", "over", "under", "again", "more", "most", "such", "own",
        "same", "other", "tell", "know", "say", "said", "does", "first", "use", "used", "using", "get", "way",
    ]

    /// A natural-language question as an FTS5 query: words minus stop words, each quoted, OR-ed
    /// (BM25's inverse document frequency weights the rare ones). Nil when no word is left.
    public static func ftsQuery(_ question: String) -> String? {
        let words = ftsWords(question)
        if words.isEmpty { return nil }
        return words.map { "\"\($0)\"" }.joined(separator: " OR ")
    }

    /// The question's words that are searched for: stop words and one-letter words dropped, once each.
    static func ftsWords(_ question: String) -> [String] {
        var words: [String] = []
        var seen = Set<String>()
        var current = ""
        func flush() {
            let w = current.lowercased()
            current = ""
            guard !w.isEmpty, !stopWords.contains(w), !seen.contains(w), w.count > 1 || w.first?.isNumber == true else { return }
            seen.insert(w)
            words.append(w)
        }
        for ch in question {
            if ch.isLetter || ch.isNumber { current.append(ch) } else { flush() }
        }
        flush()
        return words
    }

    /// A word found in more than this share of the rows, and in more than `commonRows` of them, is
    /// left out of the query when another word remains: BM25 gives it almost no weight (its inverse
    /// document frequency is below 1.4, against 4.6 for a word in 1% of the rows), while scoring
    /// every row that has it was most of a question's time on the large corpus ("window" is in 41,196
    /// of its 87,419 passages).
    static let commonShare = 0.25
    static let commonRows = 2000

    /// `ftsQuery` without the words common in `table` (see `commonShare`), whose rows are those of
    /// `rows`. Nil when no word is left.
    static func selectiveQuery(_ question: String, table: String, rows: String, db: Database) throws -> String? {
        let words = ftsWords(question)
        guard !words.isEmpty else { return nil }
        var kept = words
        if words.count > 1 {
            let total = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(rows)") ?? 0
            let limit = max(Int(Double(total) * commonShare), commonRows)
            if total > commonRows {
                let count = try db.cachedStatement(sql: "SELECT count(*) FROM \(table) WHERE \(table) MATCH ?")
                kept = try words.filter { (try Int.fetchOne(count, arguments: ["\"\($0)\""]) ?? 0) <= limit }
                if kept.isEmpty { kept = words }
            }
        }
        return kept.map { "\"\($0)\"" }.joined(separator: " OR ")
    }

    struct Candidate { var id: Int64; var documentID: Int64; var start: Int; var end: Int }

    /// The keyword list: passage ids best first, within the scope.
    func keyword(_ question: String, scope: RetrievalScope) throws -> [Candidate] {
        guard !scope.projectIDs.isEmpty else { return [] }
        let projects = scope.projectIDs.map(String.init).joined(separator: ",")
        // With a reading window the best matches may lie outside it: look further down the list.
        let limit = scope.isWindowed ? candidates * 40 : candidates * 2
        return try database.reader.read { db in
            guard let q = try Self.selectiveQuery(question, table: "passage_fts", rows: "passage", db: db) else { return [] }
            var out: [Candidate] = []
            let rows = try Row.fetchCursor(db, sql: """
                SELECT p.id, p.document_id, p.start_line, p.end_line FROM passage_fts f
                JOIN passage p ON p.id = f.rowid JOIN document d ON d.id = p.document_id
                WHERE passage_fts MATCH ? AND d.project_id IN (\(projects))
                ORDER BY f.rank LIMIT ?
                """, arguments: [q, limit])
            while let row = try rows.next(), out.count < candidates {
                let c = Candidate(id: row[0], documentID: row[1], start: row[2], end: row[3])
                if scope.clip(documentID: c.documentID, start: c.start, end: c.end) != nil { out.append(c) }
            }
            return out
        }
    }

    /// The vector list: passage ids by cosine similarity with the question, within the scope.
    ///
    /// Every stored vector of the model is scored as it is read (int8 dot products over the packs
    /// in place, see `VectorPacks`); then passages are looked up by digest, best first (equal
    /// scores by digest), until `candidates` of them are in the scope. A digest no passage has any
    /// more (a stale entry) resolves to nothing and is passed over.
    func semantic(_ query: QuantizedVector, model: String, scope: RetrievalScope) throws -> [Candidate] {
        guard !scope.projectIDs.isEmpty else { return [] }
        let inScope = Set(scope.projectIDs)
        return try database.reader.read { db in
            // Through SQLite's memory map: copying the vectors out of the page cache page by page
            // (`pread`) was most of the vector side's time on the large corpus. A connection that
            // cannot map keeps reading as before.
            try? db.execute(sql: "PRAGMA mmap_size = \(Self.vectorMapBytes)")
            let (keys, scores, _) = try VectorPacks.scores(db, model: model, query: query)
            guard !keys.isEmpty else { return [] }
            let byDigest = try db.cachedStatement(sql: """
                SELECT p.id, p.document_id, p.start_line, p.end_line, d.project_id FROM passage p
                JOIN document d ON d.id = p.document_id WHERE p.digest = ? ORDER BY p.id
                """)
            // A window of a long passage is stored under its own key: its passage through the plan.
            let byWindow = try db.cachedStatement(sql: "SELECT DISTINCT digest FROM passage_window WHERE key = ?")
            // Most questions find their candidates among the best few hundred digests; a scope that
            // leaves most of the database out (one small project of many, a reading window) may
            // need them all.
            var out: [Candidate] = []
            for depth in [candidates * 8, keys.count] {
                out = []
                var taken = Set<Int64>()
                func take(_ digest: Int64) throws -> Bool {
                    var any = false
                    let rows = try Row.fetchCursor(byDigest, arguments: [digest])
                    while let row = try rows.next(), out.count < candidates {
                        any = true
                        guard inScope.contains(row[4]) else { continue }
                        let c = Candidate(id: row[0], documentID: row[1], start: row[2], end: row[3])
                        if scope.isWindowed, scope.clip(documentID: c.documentID, start: c.start, end: c.end) == nil { continue }
                        // A passage counts once, at its best window.
                        if taken.insert(c.id).inserted { out.append(c) }
                    }
                    return any
                }
                for i in VectorMath.bestFirst(scores, keys: keys, first: depth) {
                    if try !take(keys[i]) {
                        for digest in try Int64.fetchAll(byWindow, arguments: [keys[i]]) where out.count < candidates {
                            _ = try take(digest)
                        }
                    }
                    if out.count >= candidates { break }
                }
                if out.count >= candidates || depth >= keys.count { break }
            }
            return out
        }
    }

    /// The cosine of the question with each given passage's stored vectors (its own, or its best
    /// window's; passages without one are left out): a primary-key look-up each, a hundred at most
    /// per question.
    func vectorScores(_ ids: [Int64], query: QuantizedVector, model: String) throws -> [Int64: Float] {
        let dim = query.values.count
        guard dim > 0, !ids.isEmpty else { return [:] }
        return try database.reader.read { db in
            let whole = try db.cachedStatement(sql: """
                SELECT v.scale, v.vector FROM passage p
                JOIN passage_vector v ON v.model = ? AND v.dim = ? AND v.digest = p.digest
                WHERE p.id = ?
                """)
            let windows = try db.cachedStatement(sql: """
                SELECT v.scale, v.vector FROM passage p JOIN passage_window w ON w.digest = p.digest
                JOIN passage_vector v ON v.model = ? AND v.dim = ? AND v.digest = w.key
                WHERE p.id = ? AND w.key != p.digest
                """)
            var out: [Int64: Float] = [:]
            try query.values.withUnsafeBufferPointer { q in
                for id in ids {
                    for st in [whole, windows] {
                        let rows = try Row.fetchCursor(st, arguments: [model, dim, id])
                        while let row = try rows.next() {
                            let scale = Float(row[0] as Double)
                            let score: Float? = try row.withUnsafeData(atIndex: 1) { data in
                                guard let data, data.count == dim else { return nil }
                                return data.withUnsafeBytes { raw in
                                    Float(VectorMath.dot(q, raw.bindMemory(to: Int8.self))) * scale * query.scale
                                }
                            }
                            if let score, score > out[id] ?? -.infinity { out[id] = score }
                        }
                    }
                }
            }
            return out
        }
    }

    /// Documents by BM25 over their title, headings, tags and body (`document_fts`): id → 0-based rank.
    func documentKeywordRanks(_ question: String, scope: RetrievalScope, limit: Int = 100) throws -> [Int64: Int] {
        guard !scope.projectIDs.isEmpty else { return [:] }
        let projects = scope.projectIDs.map(String.init).joined(separator: ",")
        return try database.reader.read { db in
            guard let q = try Self.selectiveQuery(question, table: "document_fts", rows: "document", db: db) else { return [:] }
            var out: [Int64: Int] = [:]
            let rows = try Row.fetchCursor(db, sql: """
                SELECT d.id FROM document_fts f JOIN document d ON d.id = f.rowid
                WHERE document_fts MATCH ? AND d.project_id IN (\(projects)) ORDER BY f.rank LIMIT ?
                """, arguments: [q, limit])
            while let row = try rows.next() { out[row[0]] = out.count }
            return out
        }
    }

    /// The given documents ranked by the cosine of the question with the mean of their passages'
    /// vectors: id → 0-based rank (documents without vectors are left out).
    func documentVectorRanks(_ documents: Set<Int64>, query: QuantizedVector, model: String) throws -> [Int64: Int] {
        let dim = query.values.count
        guard dim > 0, !documents.isEmpty else { return [:] }
        let q = query.values.map { Float($0) * query.scale }
        return try database.reader.read { db in
            // A passage's own vector, or its windows' (a long passage weighs by its windows).
            let st = try db.cachedStatement(sql: """
                SELECT v.scale, v.vector FROM passage p
                JOIN passage_vector v ON v.model = ?1 AND v.dim = ?2 AND v.digest = p.digest
                WHERE p.document_id = ?3
                UNION ALL
                SELECT v.scale, v.vector FROM passage p JOIN passage_window w ON w.digest = p.digest
                JOIN passage_vector v ON v.model = ?1 AND v.dim = ?2 AND v.digest = w.key
                WHERE p.document_id = ?3 AND w.key != p.digest
                """)
            var scored: [(Int64, Float)] = []
            var sum = [Float](repeating: 0, count: dim)
            for doc in documents.sorted() {
                for i in sum.indices { sum[i] = 0 }
                var n = 0
                let rows = try Row.fetchCursor(st, arguments: [model, dim, doc])
                while let row = try rows.next() {
                    let scale = Float(row[0] as Double)
                    try row.withUnsafeData(atIndex: 1) { data in
                        guard let data, data.count == dim else { return }
                        data.withUnsafeBytes { raw in
                            for (i, b) in raw.bindMemory(to: Int8.self).enumerated() { sum[i] += Float(b) * scale }
                        }
                        n += 1
                    }
                }
                guard n > 0 else { continue }
                var dot: Float = 0, norm: Float = 0
                for i in 0..<dim { dot += sum[i] * q[i]; norm += sum[i] * sum[i] }
                scored.append((doc, norm > 0 ? dot / norm.squareRoot() : 0))
            }
            scored.sort { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
            var out: [Int64: Int] = [:]
            for (r, (doc, _)) in scored.enumerated() { out[doc] = r }
            return out
        }
    }

    /// The best passages for a question.
    /// - Parameters:
    ///   - query: the question's embedding (nil: keyword-only).
    ///   - model: the embedding model id the vectors are stored under.
    ///   - keywordWeight, vectorWeight: each side's weight in the fusion, for its passage list and
    ///     for its document list alike.
    public func retrieve(_ question: String, scope: RetrievalScope, limit: Int,
                         query: QuantizedVector? = nil, model: String? = nil,
                         keywordWeight: Double = 1, vectorWeight: Double = HybridRetriever.vectorWeight) throws -> [RetrievedPassage] {
        let kw = keywordWeight > 0 ? try keyword(question, scope: scope) : []
        var vec: [Candidate] = []
        if let query, let model, vectorWeight > 0 { vec = try semantic(query, model: model, scope: scope) }
        var fused: [Int64: (score: Double, kw: Int?, vec: Int?)] = [:]
        var documentOf: [Int64: Int64] = [:]
        for (r, c) in kw.enumerated() {
            fused[c.id, default: (0, nil, nil)].score += keywordWeight / (Self.rrfK + Double(r + 1))
            fused[c.id]?.kw = r + 1
            documentOf[c.id] = c.documentID
        }
        // Every candidate is ranked by the vector side, the keyword side's too: with only the vector
        // list's own ranks, a passage in both lists outscored the keyword side's best passage when
        // that one was not among the vector side's 50, however low its keyword rank (a passage
        // quoted word for word fell from 1st to 15th with a sentence model).
        if let query, let model, vectorWeight > 0, !vec.isEmpty {
            var all = vec
            let inVector = Set(vec.map(\.id))
            all += kw.filter { !inVector.contains($0.id) }
            let cosines = try vectorScores(all.map(\.id), query: query, model: model)
            let ranked = all.compactMap { c in cosines[c.id].map { (c, $0) } }
                .sorted { a, b in a.1 != b.1 ? a.1 > b.1 : a.0.id < b.0.id }
                .map(\.0)
            for (r, c) in ranked.enumerated() {
                fused[c.id, default: (0, nil, nil)].score += vectorWeight / (Self.rrfK + Double(r + 1))
                fused[c.id]?.vec = r + 1
                documentOf[c.id] = c.documentID
            }
        }
        // Document-level evidence: a passage of a document that matches the question as a whole (its
        // title and headings weigh most) or is about it as a whole (the mean of its passages'
        // vectors) gains, by the same fusion, each list with its side's weight. It reorders the
        // candidates; it brings in none.
        if !fused.isEmpty {
            var documentLists: [([Int64: Int], Double)] = []
            if keywordWeight > 0 { documentLists.append((try documentKeywordRanks(question, scope: scope), keywordWeight)) }
            if let query, let model, vectorWeight > 0 {
                documentLists.append((try documentVectorRanks(Set(documentOf.values), query: query, model: model), vectorWeight))
            }
            for (ranks, weight) in documentLists where !ranks.isEmpty {
                for (id, doc) in documentOf {
                    if let r = ranks[doc] { fused[id]?.score += weight / (Self.rrfK + Double(r + 1)) }
                }
            }
        }
        let best = fused.sorted { $0.value.score != $1.value.score ? $0.value.score > $1.value.score : $0.key < $1.key }
            .prefix(limit)
        let stored = try database.passages(ids: best.map(\.key))
        var out: [RetrievedPassage] = []
        for (id, f) in best {
            guard var p = stored[id] else { continue }
            // Inside a reading window, a passage that crosses its edge is cut to the window.
            if scope.isWindowed, let lines = scope.clip(documentID: p.documentID, start: p.startLine, end: p.endLine),
               lines != p.startLine...p.endLine {
                let all = p.text.split(separator: "\n", omittingEmptySubsequences: false)
                let lo = lines.lowerBound - p.startLine, hi = lines.upperBound - p.startLine
                if lo >= 0, hi < all.count, lo <= hi {
                    p.text = all[lo...hi].joined(separator: "\n")
                    p.startLine = lines.lowerBound
                    p.endLine = lines.upperBound
                }
            }
            out.append(RetrievedPassage(passage: p, score: f.score, keywordRank: f.kw, vectorRank: f.vec))
        }
        return out
    }

    /// Reading positions of a project's documents (for `until`/`from`), and a way to find one by path.
    public func readingPositions(projectID: Int64) throws -> (positions: [Int64: Int], byPath: [PathBytes: Int64]) {
        try database.reader.read { db in
            var docs: [(id: Int64, path: String, order: Double?)] = []
            var byPath: [PathBytes: Int64] = [:]
            let rows = try Row.fetchCursor(db, sql: """
                SELECT d.id, d.path, r.reading_order FROM document d LEFT JOIN document_retrieval r ON r.document_id = d.id
                WHERE d.project_id = ?
                """, arguments: [projectID])
            while let row = try rows.next() {
                let path = PathBytes(Array(row[1] as Data))
                docs.append((row[0], path.display, row[2]))
                byPath[path] = row[0]
            }
            return (ReadingOrder.positions(docs), byPath)
        }
    }
}
