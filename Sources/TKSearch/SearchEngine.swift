internal import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// One search hit.
public struct SearchHit: Codable, Sendable, Equatable {
    public var project: String
    public var path: String
    public var title: String
    public var line: Int
    public var snippet: String
    /// Unicode-scalar ranges `[start, end)` of the matched words inside `snippet`.
    public var highlights: [[Int]]
    public var score: Double
}

/// The outcome of a search.
public struct SearchResults: Codable, Sendable, Equatable {
    public var query: String
    public var tookMs: Double
    public var results: [SearchHit]
    enum CodingKeys: String, CodingKey { case query, results, tookMs = "took_ms" }
}

/// Options of a search.
public struct SearchOptions: Sendable {
    /// Only this project root (its absolute path bytes).
    public var project: [UInt8]?
    /// Only paths matching this glob, relative to the project (`notes/*`; without a `/` it matches
    /// the file name in any folder too).
    public var pathGlob: String?
    public var limit: Int
    public init(project: [UInt8]? = nil, pathGlob: String? = nil, limit: Int = 20) {
        self.project = project; self.pathGlob = pathGlob; self.limit = limit
    }
}

/// A failure of SQLite while searching.
public struct SearchError: Error, CustomStringConvertible, Sendable {
    public var code: Int32
    public var message: String
    public var description: String { message }
}

/// Ranked full-text search over the index, straight on SQLite connections.
///
/// Both the quick `tk-agent search` path (its own connections) and TKCore (GRDB's connection) run
/// this one implementation.
///
/// A search runs in two phases. Ranking computes bm25 for every matching document (for a word in
/// most documents, that is most of the work) and keeps the best `limit` rowids; given two
/// connections, the rowid range is split in halves ranked on two threads, which gives the same
/// scores (bm25's IDF and average lengths are table-wide). Then each kept hit gets its path,
/// title and `highlight()`ed body, from which its best line is taken.
public enum SearchEngine {
    /// bm25 column weights: title, headings, tags, body. (The table's `rank` option says the same,
    /// but naming bm25 directly in ORDER BY is a third faster than `ORDER BY rank` in SQLite 3.40.)
    static let bm25 = "bm25(document_fts, 10.0, 4.0, 4.0, 1.0)"

    /// Below this many rowids a search is not worth a second thread.
    static let splitThreshold: Int64 = 4096

    /// Best first, each hit with its best-matching line.
    /// - Parameters:
    ///   - connection: an open `sqlite3 *` on the index database.
    ///   - helper: a second connection on the same database, to rank half the documents on another
    ///     thread; nil ranks on the calling thread only.
    public static func search(connection: OpaquePointer, helper: OpaquePointer? = nil, query: SearchQuery,
                              options: SearchOptions, queryText: String) throws(SearchError) -> SearchResults {
        let started = monotonicNanoseconds()
        guard let match = query.matchExpression else {
            return SearchResults(query: queryText, tookMs: 0, results: [])
        }
        let limit = max(1, options.limit)
        var ranked: [Ranked]
        if let helper, let maxRowid = try maxRowid(connection), maxRowid >= splitThreshold {
            let middle = maxRowid / 2 + 1
            let other = RankJob(connection: helper, match: match, options: options, rowids: middle..<Int64.max, limit: limit)
            let thread = other.start()
            let mine = Result { () throws(SearchError) in
                try rank(connection, match: match, options: options, rowids: Int64.min..<middle, limit: limit)
            }
            let theirs = other.join(thread)
            ranked = try mine.get() + theirs.get()
            ranked.sort { ($0.score, $0.rowid) < ($1.score, $1.rowid) }
            if ranked.count > limit { ranked.removeLast(ranked.count - limit) }
        } else {
            ranked = try rank(connection, match: match, options: options, rowids: nil, limit: limit)
        }
        let hits = try details(connection, match: match, hasPrefix: query.terms.contains(where: \.isPrefix), ranked: ranked)
        let took = Double(monotonicNanoseconds() - started) / 1e6
        return SearchResults(query: queryText, tookMs: (took * 100).rounded() / 100, results: hits)
    }

    /// One ranked rowid (bm25 is negative: lower is better).
    struct Ranked: Sendable { var rowid: Int64; var score: Double }

    /// The best `limit` matches by bm25, optionally only within a rowid range.
    static func rank(_ db: OpaquePointer, match: String, options: SearchOptions, rowids: Range<Int64>?,
                     limit: Int) throws(SearchError) -> [Ranked] {
        var sql = "SELECT document_fts.rowid, \(bm25) AS score FROM document_fts"
        var binds: [Bind] = []
        let filtered = options.project != nil || !(options.pathGlob ?? "").isEmpty
        if filtered {
            sql += " JOIN document ON document.id = document_fts.rowid JOIN project ON project.id = document.project_id"
        }
        sql += " WHERE document_fts MATCH ?"
        binds.append(.text(match))
        if let rowids {
            sql += " AND document_fts.rowid >= ? AND document_fts.rowid < ?"
            binds += [.int(rowids.lowerBound), .int(rowids.upperBound)]
        }
        if let p = options.project {
            sql += " AND project.path = ?"
            binds.append(.blob(p))
        }
        if let g = options.pathGlob, !g.isEmpty {
            if g.contains("/") {
                sql += " AND CAST(document.path AS TEXT) GLOB ?"
                binds.append(.text(g))
            } else {
                sql += " AND (CAST(document.path AS TEXT) GLOB ? OR CAST(document.path AS TEXT) GLOB ?)"
                binds += [.text(g), .text("*/" + g)]
            }
        }
        sql += " ORDER BY score, document_fts.rowid LIMIT ?"
        binds.append(.int(Int64(limit)))
        let statement = try prepare(db, sql)
        defer { sqlite3_finalize(statement) }
        try bind(db, statement, binds)
        var out: [Ranked] = []
        while try step(db, statement) {
            out.append(Ranked(rowid: sqlite3_column_int64(statement, 0), score: sqlite3_column_double(statement, 1)))
        }
        return out
    }

    /// Path, title, project and best line of each ranked hit, in order.
    ///
    /// `highlight()` needs the row's match, so each hit is looked up with the MATCH again: one
    /// query per rowid (FTS5 seeks straight to it), except for prefix queries, whose expansion
    /// over every matching term is costly to repeat: there one scan keeps just the ranked rowids.
    static func details(_ db: OpaquePointer, match: String, hasPrefix: Bool, ranked: [Ranked]) throws(SearchError) -> [SearchHit] {
        if ranked.isEmpty { return [] }
        var sql = """
            SELECT document.path, document.title, project.path, highlight(document_fts, 3, char(1), char(2)),
                   document_fts.rowid
            FROM document_fts
            JOIN document ON document.id = document_fts.rowid
            JOIN project ON project.id = document.project_id
            WHERE document_fts MATCH ?
            """
        // `rowid + 0` keeps the IN list away from FTS5 (which cannot run highlight() under it).
        sql += hasPrefix ? " AND document_fts.rowid + 0 IN (\(ranked.map { String($0.rowid) }.joined(separator: ",")))"
                         : " AND document_fts.rowid = ?"
        let statement = try prepare(db, sql)
        defer { sqlite3_finalize(statement) }
        var rows: [Int64: SearchHit] = [:]
        func read(_ r: Ranked) {
            let best = Snippet.best(inHighlighted: bytes(statement, 3))
            rows[r.rowid] = SearchHit(
                project: String(decoding: bytes(statement, 2), as: UTF8.self),
                path: String(decoding: bytes(statement, 0), as: UTF8.self),
                title: String(decoding: bytes(statement, 1), as: UTF8.self),
                line: best.line, snippet: best.text, highlights: best.highlights,
                score: significant(-r.score))
        }
        if hasPrefix {
            let score = Dictionary(ranked.map { ($0.rowid, $0.score) }, uniquingKeysWith: { a, _ in a })
            try bind(db, statement, [.text(match)])
            while try step(db, statement) {
                let rowid = sqlite3_column_int64(statement, 4)
                read(Ranked(rowid: rowid, score: score[rowid] ?? 0))
            }
        } else {
            for r in ranked {
                sqlite3_reset(statement)
                try bind(db, statement, [.text(match), .int(r.rowid)])
                if try step(db, statement) { read(r) }
            }
        }
        // A hit deleted since it was ranked (by the agent, meanwhile) is left out.
        return ranked.compactMap { rows[$0.rowid] }
    }

    /// A score for people: bm25 to five significant digits (common words score near zero, so a
    /// fixed number of decimals would print them all as 0).
    static func significant(_ v: Double) -> Double {
        guard v != 0, v.isFinite else { return 0 }
        let digits = 5 - Int((log10(abs(v))).rounded(.up))
        let scale = pow(10.0, Double(digits))
        return (v * scale).rounded() / scale
    }

    static func maxRowid(_ db: OpaquePointer) throws(SearchError) -> Int64? {
        let statement = try prepare(db, "SELECT max(id) FROM document")
        defer { sqlite3_finalize(statement) }
        guard try step(db, statement), sqlite3_column_type(statement, 0) != SQLITE_NULL else { return nil }
        return sqlite3_column_int64(statement, 0)
    }

    enum Bind { case text(String), blob([UInt8]), int(Int64) }

    static func bind(_ db: OpaquePointer, _ statement: OpaquePointer, _ binds: [Bind]) throws(SearchError) {
        for (i, b) in binds.enumerated() {
            let index = Int32(i + 1)
            let rc: Int32
            switch b {
            case .text(let s): rc = sqlite3_bind_text(statement, index, s, -1, tk_sqlite_transient())
            case .blob(let bytes):
                rc = bytes.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), tk_sqlite_transient()) }
            case .int(let v): rc = sqlite3_bind_int64(statement, index, v)
            }
            if rc != SQLITE_OK { throw error(db, rc) }
        }
    }

    /// Steps a statement: true for a row, false when done.
    static func step(_ db: OpaquePointer, _ statement: OpaquePointer) throws(SearchError) -> Bool {
        let rc = sqlite3_step(statement)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw error(db, rc)
    }

    static func prepare(_ db: OpaquePointer, _ sql: String) throws(SearchError) -> OpaquePointer {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw error(db, rc) }
        return statement
    }

    static func error(_ db: OpaquePointer, _ rc: Int32) -> SearchError {
        let message = sqlite3_errmsg(db).map { String(cString: $0) } ?? "SQLite error \(rc)"
        return SearchError(code: rc, message: message)
    }

    /// A column's bytes (text or blob), empty when NULL.
    static func bytes(_ statement: OpaquePointer, _ column: Int32) -> [UInt8] {
        // sqlite3_column_blob first, then sqlite3_column_bytes (the order SQLite documents).
        guard let base = sqlite3_column_blob(statement, column) else { return [] }
        let count = Int(sqlite3_column_bytes(statement, column))
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

/// Ranks part of the documents on a POSIX thread of its own (TKSearch stays free of Dispatch and
/// Foundation, which would add shared libraries to the quick path).
final class RankJob: @unchecked Sendable {
    // @unchecked Sendable: `result` is written only by the job's thread before it exits and read
    // only after `pthread_join` returns, which orders the two; every other property is immutable.
    let connection: OpaquePointer
    let match: String
    let options: SearchOptions
    let rowids: Range<Int64>
    let limit: Int
    var result: Result<[SearchEngine.Ranked], SearchError> = .success([])

    init(connection: OpaquePointer, match: String, options: SearchOptions, rowids: Range<Int64>, limit: Int) {
        self.connection = connection; self.match = match; self.options = options; self.rowids = rowids; self.limit = limit
    }

    func run() {
        result = Result { () throws(SearchError) in
            try SearchEngine.rank(connection, match: match, options: options, rowids: rowids, limit: limit)
        }
    }

    /// Starts the thread, or returns nil (having run the job on this thread) when none can be made.
    func start() -> pthread_t? {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&thread, nil, { context in
            guard let context else { return nil }
            let job = Unmanaged<RankJob>.fromOpaque(context).takeRetainedValue()
            job.run()
            return nil
        }, context)
        if rc != 0 {
            Unmanaged<RankJob>.fromOpaque(context).release()
            run()
            return nil
        }
        return thread
    }

    func join(_ thread: pthread_t?) -> Result<[SearchEngine.Ranked], SearchError> {
        if let thread { pthread_join(thread, nil) }
        return result
    }
}
