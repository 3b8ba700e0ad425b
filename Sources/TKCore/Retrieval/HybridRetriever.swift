import Foundation
import GRDB

/// One passage found for a question, with its fused score.
public struct RetrievedPassage: Sendable {
    public var passage: StoredPassage
    /// Fused score: each side's standardised score, summed (higher is better).
    public var score: Double
    public var keywordRank: Int?
    public var vectorRank: Int?
}

/// BM25 over passages fused with vector similarity, each side's scores standardised by their own
/// spread (equal weights, no constant tuned to a model); a long passage scores by its best window.
public struct HybridRetriever: Sendable {
    public let database: AppDatabase
    /// The vector side's weight in the fusion, against the keyword side's 1: equal. A weight tuned to
    /// one model (0.5, chosen with the static wordllama vectors) buried a sentence model's best hits
    /// (bench/RESULTS.md, "Retrieval with the model's context").
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

    /// How many rows `rows` has, and in how many of them (`table`, its full-text index) each word stands.
    struct Frequencies {
        var total: Int
        var rows: [String: Int]

        init(_ words: [String], table: String, rows: String, db: Database) throws {
            total = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(rows)") ?? 0
            let count = try db.cachedStatement(sql: "SELECT count(*) FROM \(table) WHERE \(table) MATCH ?")
            var found: [String: Int] = [:]
            for w in words { found[w] = try Int.fetchOne(count, arguments: ["\"\(w)\""]) ?? 0 }
            self.rows = found
        }
    }

    /// `ftsQuery` without the words common in `table` (see `commonShare`), whose rows are those of
    /// `rows`. Nil when no word is left.
    /// - Parameter known: the question's word frequencies when the caller counted them already.
    static func selectiveQuery(_ question: String, table: String, rows: String, db: Database,
                               known: Frequencies? = nil) throws -> String? {
        let words = ftsWords(question)
        guard !words.isEmpty else { return nil }
        var kept = words
        if words.count > 1 {
            let total = try known?.total ?? Int.fetchOne(db, sql: "SELECT count(*) FROM \(rows)") ?? 0
            let limit = max(Int(Double(total) * commonShare), commonRows)
            if total > commonRows {
                let f = try known ?? Frequencies(words, table: table, rows: rows, db: db)
                kept = words.filter { (f.rows[$0] ?? 0) <= limit }
                if kept.isEmpty { kept = words }
            }
        }
        return kept.map { "\"\($0)\"" }.joined(separator: " OR ")
    }

    struct Candidate: Sendable {
        var id: Int64; var documentID: Int64; var start: Int; var end: Int
        /// The side's own score: BM25 (higher is better) or the cosine.
        var score: Double = 0
        /// Keyword side: how much of the question the passage holds (`coverage`); 1 on the vector side.
        var coverage: Double = 1
    }

    /// How much of the question each candidate holds: the share of the question's words it
    /// contains, each word weighted by its inverse document frequency (BM25's). A keyword list
    /// always has a best hit and standardising makes it stand out, even when every hit shares
    /// one common word with a question worded differently; this says how far the list answers.
    static func coverage(_ question: String, ids: [Int64], frequencies: Frequencies, db: Database) throws -> [Int64: Double] {
        let words = ftsWords(question)
        guard !words.isEmpty, !ids.isEmpty else { return [:] }
        let total = Double(frequencies.total)
        let list = ids.map(String.init).joined(separator: ",")
        var held: [Int64: Double] = [:]
        var all = 0.0
        for w in words {
            let df = Double(frequencies.rows[w] ?? 0)
            let idf = log((total - df + 0.5) / (df + 0.5) + 1)
            all += idf
            for id in try Int64.fetchAll(db, sql: "SELECT rowid FROM passage_fts WHERE passage_fts MATCH ? AND rowid IN (\(list))",
                                         arguments: ["\"\(w)\""]) {
                held[id, default: 0] += idf
            }
        }
        guard all > 0 else { return [:] }
        return held.mapValues { $0 / all }
    }

    /// A keyword side found ahead of the fusion (see `retrieve`), and whether it was weighed.
    public struct KeywordList: Sendable {
        let candidates: [Candidate]
        let weighed: Bool
    }

    /// The keyword side of a question, found ahead: `weighed` as `retrieve` will fuse (with a
    /// vector side: true).
    public func keywordList(_ question: String, scope: RetrievalScope, weighed: Bool) throws -> KeywordList {
        KeywordList(candidates: try keyword(question, scope: scope, weighed: weighed), weighed: weighed)
    }

    /// The keyword list: passage ids best first, within the scope.
    /// - Parameter weighed: each candidate's `coverage` is computed (for a fusion; keyword-only
    ///   answers keep BM25's order and skip the look-ups).
    func keyword(_ question: String, scope: RetrievalScope, weighed: Bool = false) throws -> [Candidate] {
        guard !scope.projectIDs.isEmpty else { return [] }
        let projects = scope.projectIDs.map(String.init).joined(separator: ",")
        // With a reading window the best matches may lie outside it: look further down the list.
        let limit = scope.isWindowed ? candidates * 40 : candidates * 2
        return try database.reader.read { db in
            // A fusion needs every word's frequency (`coverage`): counted once, for the query too.
            let known = weighed ? try Frequencies(Self.ftsWords(question), table: "passage_fts", rows: "passage", db: db) : nil
            guard let q = try Self.selectiveQuery(question, table: "passage_fts", rows: "passage", db: db, known: known)
            else { return [] }
            var out: [Candidate] = []
            let rows = try Row.fetchCursor(db, sql: """
                SELECT p.id, p.document_id, p.start_line, p.end_line, f.rank FROM passage_fts f
                JOIN passage p ON p.id = f.rowid JOIN document d ON d.id = p.document_id
                WHERE passage_fts MATCH ? AND d.project_id IN (\(projects))
                ORDER BY f.rank LIMIT ?
                """, arguments: [q, limit])
            while let row = try rows.next(), out.count < candidates {
                // FTS5's rank is BM25 negated (lower is better).
                let c = Candidate(id: row[0], documentID: row[1], start: row[2], end: row[3], score: -(row[4] as Double))
                if scope.clip(documentID: c.documentID, start: c.start, end: c.end) != nil { out.append(c) }
            }
            if let known {
                let held = try Self.coverage(question, ids: out.map(\.id), frequencies: known, db: db)
                for i in out.indices { out[i].coverage = held[out[i].id] ?? 0 }
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
                func take(_ digest: Int64, _ score: Float) throws -> Bool {
                    var any = false
                    let rows = try Row.fetchCursor(byDigest, arguments: [digest])
                    while let row = try rows.next(), out.count < candidates {
                        any = true
                        guard inScope.contains(row[4]) else { continue }
                        let c = Candidate(id: row[0], documentID: row[1], start: row[2], end: row[3], score: Double(score))
                        if scope.isWindowed, scope.clip(documentID: c.documentID, start: c.start, end: c.end) == nil { continue }
                        // A passage counts once, at its best window.
                        if taken.insert(c.id).inserted { out.append(c) }
                    }
                    return any
                }
                for i in VectorMath.bestFirst(scores, keys: keys, first: depth) {
                    if try !take(keys[i], scores[i]) {
                        for digest in try Int64.fetchAll(byWindow, arguments: [keys[i]]) where out.count < candidates {
                            _ = try take(digest, scores[i])
                        }
                    }
                    if out.count >= candidates { break }
                }
                if out.count >= candidates || depth >= keys.count { break }
            }
            return out
        }
    }

    /// The vectors of a passage's windows (`?`: model, dim, passage id), looked up from the
    /// passage, to its windows, to each window's vector, each by its key. The order is forced
    /// (`CROSS JOIN`): left to itself SQLite's planner walked every vector of the model and looked
    /// each one's window up (160,000 vectors on the large corpus: five seconds a question);
    /// `HybridRetrieverPlanTests` checks the plan.
    static let windowVectorsSQL = """
        SELECT v.scale, v.vector FROM passage p CROSS JOIN passage_window w ON w.digest = p.digest
        CROSS JOIN passage_vector v ON v.model = ? AND v.dim = ? AND v.digest = w.key
        WHERE p.id = ? AND w.key != p.digest
        """

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
            let windows = try db.cachedStatement(sql: Self.windowVectorsSQL)
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

    /// How far a score stands above its list: (score − the list's mean) / its standard deviation,
    /// over the side's candidates. Scores of each side are put on one scale by their own spread —
    /// BM25 and any model's cosines alike, with no constant tuned to a model — so that a passage
    /// far ahead on one side (a passage quoted word for word, a note only meaning finds) is not
    /// outweighed by passages middling on both. Nil for a list too short to tell.
    static func standardise(_ scores: [Double]) -> (mean: Double, deviation: Double)? {
        guard scores.count >= 3 else { return nil }
        let mean = scores.reduce(0, +) / Double(scores.count)
        let variance = scores.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(scores.count)
        let deviation = variance.squareRoot()
        guard deviation > 1e-9 else { return nil }
        return (mean, deviation)
    }

    /// The best passages for a question.
    ///
    /// Each side's candidates (50 by BM25, 50 by cosine) are scored by how far they stand above
    /// their own list (`standardise`, negative counted as nothing); a keyword candidate is also
    /// scored on the vector side by its cosine (against the vector list's spread), and a passage's
    /// score is the sum. A list too short to tell (fewer than 3, or all equal) scores by rank
    /// instead: 1 for its first, falling to 0 at its end.
    /// - Parameters:
    ///   - query: the question's embedding (nil: keyword-only).
    ///   - model: the embedding model id the vectors are stored under.
    ///   - keywordWeight, vectorWeight: each side's weight (1 each; 0 leaves a side out).
    ///   - keywordList: the keyword side already found (`keywordList(_:scope:weighed:)`, while the
    ///     question's embedding was on its way); used when it was weighed as this call fuses, else
    ///     found again here; nil: found here.
    public func retrieve(_ question: String, scope: RetrievalScope, limit: Int,
                         query: QuantizedVector? = nil, model: String? = nil,
                         keywordWeight: Double = 1, vectorWeight: Double = HybridRetriever.vectorWeight,
                         keywordList: KeywordList? = nil) throws -> [RetrievedPassage] {
        let fusing = query != nil && model != nil && vectorWeight > 0
        let kw: [Candidate]
        if keywordWeight <= 0 {
            kw = []
        } else if let keywordList, keywordList.weighed == fusing {
            kw = keywordList.candidates
        } else {
            kw = try keyword(question, scope: scope, weighed: fusing)
        }
        var vec: [Candidate] = []
        if let query, let model, vectorWeight > 0 { vec = try semantic(query, model: model, scope: scope) }
        var fused: [Int64: (score: Double, kw: Int?, vec: Int?)] = [:]
        func add(_ list: [Candidate], weight: Double, extra: [Int64: Double] = [:], isKeyword: Bool) {
            let spread = Self.standardise(list.map(\.score))
            for (r, c) in list.enumerated() {
                // The side's order breaks ties (below the mean every score is nothing).
                let order = 1 - Double(r) / Double(max(1, list.count))
                let strength = spread.map { max(0, (c.score - $0.mean) / $0.deviation) + 1e-3 * order } ?? order
                fused[c.id, default: (0, nil, nil)].score += weight * strength * c.coverage
                if isKeyword { fused[c.id]?.kw = r + 1 } else { fused[c.id]?.vec = r + 1 }
            }
            // Candidates of the other side scored on this one (no rank: they are not in its list).
            if let spread {
                for (id, score) in extra { fused[id, default: (0, nil, nil)].score += weight * max(0, (score - spread.mean) / spread.deviation) }
            }
        }
        add(kw, weight: keywordWeight, isKeyword: true)
        var crossScores: [Int64: Double] = [:]
        if let query, let model, !vec.isEmpty {
            let inVector = Set(vec.map(\.id))
            let others = kw.filter { !inVector.contains($0.id) }.map(\.id)
            for (id, cosine) in try vectorScores(others, query: query, model: model) { crossScores[id] = Double(cosine) }
        }
        add(vec, weight: vectorWeight, extra: crossScores, isKeyword: false)
        return try finish(fused, scope: scope, limit: limit)
    }

    /// The best `limit` fused passages, read and cut to the reading window.
    func finish(_ fused: [Int64: (score: Double, kw: Int?, vec: Int?)], scope: RetrievalScope, limit: Int) throws -> [RetrievedPassage] {
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
