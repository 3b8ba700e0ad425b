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

/// BM25 over passages fused with vector similarity by reciprocal-rank fusion (k = 60).
public struct HybridRetriever: Sendable {
    public let database: AppDatabase
    public static let rrfK = 60.0
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
        if words.isEmpty { return nil }
        return words.map { "\"\($0)\"" }.joined(separator: " OR ")
    }

    struct Candidate { var id: Int64; var documentID: Int64; var start: Int; var end: Int }

    /// The keyword list: passage ids best first, within the scope.
    func keyword(_ question: String, scope: RetrievalScope) throws -> [Candidate] {
        guard let q = Self.ftsQuery(question), !scope.projectIDs.isEmpty else { return [] }
        let projects = scope.projectIDs.map(String.init).joined(separator: ",")
        // With a reading window the best matches may lie outside it: look further down the list.
        let limit = scope.isWindowed ? candidates * 40 : candidates * 2
        return try database.reader.read { db in
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
    func semantic(_ query: QuantizedVector, model: String, scope: RetrievalScope) throws -> [Candidate] {
        guard !scope.projectIDs.isEmpty else { return [] }
        let dim = query.values.count
        let projects = scope.projectIDs.map(String.init).joined(separator: ",")
        return try database.reader.read { db in
            var matrix = VectorMatrix(dim: dim)
            let vrows = try Row.fetchCursor(db, sql: """
                SELECT digest, scale, vector FROM passage_vector WHERE model = ? AND dim = ?
                """, arguments: [model, dim])
            while let row = try vrows.next() {
                let key: Int64 = row[0]
                let scale = Float(row[1] as Double)
                try row.withUnsafeData(atIndex: 2) { data in
                    data?.withUnsafeBytes { matrix.append(key: key, scale: scale, bytes: $0) }
                }
            }
            guard matrix.count > 0 else { return [] }
            let scores = matrix.scores(query)
            var byKey: [Int64: Float] = [:]
            byKey.reserveCapacity(matrix.count)
            for (i, k) in matrix.keys.enumerated() { byKey[k] = scores[i] }
            var scored: [(Candidate, Float)] = []
            let prows = try Row.fetchCursor(db, sql: """
                SELECT p.id, p.document_id, p.start_line, p.end_line, p.digest FROM passage p
                JOIN document d ON d.id = p.document_id WHERE d.project_id IN (\(projects))
                """)
            while let row = try prows.next() {
                guard let s = byKey[row[4] as Int64] else { continue }
                let c = Candidate(id: row[0], documentID: row[1], start: row[2], end: row[3])
                if scope.isWindowed, scope.clip(documentID: c.documentID, start: c.start, end: c.end) == nil { continue }
                scored.append((c, s))
            }
            scored.sort { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0.id < $1.0.id }
            return scored.prefix(candidates).map(\.0)
        }
    }

    /// The best passages for a question.
    /// - Parameters:
    ///   - query: the question's embedding (nil: keyword-only).
    ///   - model: the embedding model id the vectors are stored under.
    public func retrieve(_ question: String, scope: RetrievalScope, limit: Int,
                         query: QuantizedVector? = nil, model: String? = nil,
                         keywordWeight: Double = 1, vectorWeight: Double = 1) throws -> [RetrievedPassage] {
        let kw = try keyword(question, scope: scope)
        var vec: [Candidate] = []
        if let query, let model { vec = try semantic(query, model: model, scope: scope) }
        var fused: [Int64: (score: Double, kw: Int?, vec: Int?)] = [:]
        for (r, c) in kw.enumerated() {
            fused[c.id, default: (0, nil, nil)].score += keywordWeight / (Self.rrfK + Double(r + 1))
            fused[c.id]?.kw = r + 1
        }
        for (r, c) in vec.enumerated() {
            fused[c.id, default: (0, nil, nil)].score += vectorWeight / (Self.rrfK + Double(r + 1))
            fused[c.id]?.vec = r + 1
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
