import Foundation
import GRDB

/// One search hit.
public struct SearchHit: Codable, Sendable {
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
public struct SearchResults: Codable, Sendable {
    public var query: String
    public var tookMs: Double
    public var results: [SearchHit]
    enum CodingKeys: String, CodingKey { case query, results, tookMs = "took_ms" }
}

/// Options of a search.
public struct SearchOptions: Sendable {
    public var project: PathBytes?
    public var pathGlob: String?
    public var limit: Int
    public init(project: PathBytes? = nil, pathGlob: String? = nil, limit: Int = 20) {
        self.project = project; self.pathGlob = pathGlob; self.limit = limit
    }
}

extension AppDatabase {
    /// Ranked full-text search (bm25, title weighted above headings, tags and body), best first.
    public func search(_ query: SearchQuery, options: SearchOptions, queryText: String) throws -> SearchResults {
        let started = DispatchTime.now().uptimeNanoseconds
        guard let match = query.matchExpression else {
            return SearchResults(query: queryText, tookMs: 0, results: [])
        }
        var sql = """
            SELECT document.id, document.path, document.title, document.body, project.path AS root, document_fts.rank AS rank
            FROM document_fts
            JOIN document ON document.id = document_fts.rowid
            JOIN project ON project.id = document.project_id
            WHERE document_fts MATCH ?
            """
        var args: StatementArguments = [match]
        if let p = options.project {
            sql += " AND project.path = ?"
            args += [Data(p.bytes)]
        }
        if let g = options.pathGlob, !g.isEmpty {
            if g.contains("/") {
                sql += " AND CAST(document.path AS TEXT) GLOB ?"
                args += [g]
            } else {
                sql += " AND (CAST(document.path AS TEXT) GLOB ? OR CAST(document.path AS TEXT) GLOB ?)"
                args += [g, "*/" + g]
            }
        }
        sql += " ORDER BY rank LIMIT ?"
        args += [max(1, options.limit)]
        let stems = query.highlightStems
        let hits: [SearchHit] = try writer.read { db in
            try Row.fetchAll(db, sql: sql, arguments: args).map { row in
                let body: String = row["body"]
                let (line, snippet, highlights) = Self.bestLine(body: body, stems: stems)
                let rank: Double = row["rank"]
                return SearchHit(
                    project: PathBytes(Array(row["root"] as Data)).display,
                    path: PathBytes(Array(row["path"] as Data)).display,
                    title: row["title"], line: line, snippet: snippet, highlights: highlights,
                    score: (-rank * 1000).rounded() / 1000)
            }
        }
        let took = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
        return SearchResults(query: queryText, tookMs: (took * 100).rounded() / 100, results: hits)
    }

    /// The line with the most distinct query words, a snippet of it and the matched ranges.
    static func bestLine(body: String, stems: [(stem: String, prefix: Bool)]) -> (Int, String, [[Int]]) {
        var best = (line: 0, score: 0, text: Substring(""))
        var firstText: (Int, Substring)?
        var lineNo = 0
        for rawLine in body.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNo += 1
            let trimmed = rawLine.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            if firstText == nil, !trimmed.hasPrefix("---") { firstText = (lineNo, rawLine) }
            let words = Set(SearchQuery.words(String(rawLine)))
            var score = 0
            for s in stems where words.contains(where: { $0.hasPrefix(s.stem) }) { score += 1 }
            if score > best.score { best = (lineNo, score, rawLine) }
        }
        if best.score == 0 {
            guard let (n, text) = firstText else { return (1, "", []) }
            return (n, clip(String(text), around: nil), [])
        }
        let lineText = String(best.text)
        let folded = Array(SearchQuery.fold(lineText).unicodeScalars)
        let scalars = Array(lineText.unicodeScalars)
        // Locate word matches in scalar offsets (folding keeps one scalar per scalar for Latin text;
        // when it does not, highlights are simply omitted).
        var ranges: [[Int]] = []
        if folded.count == scalars.count {
            var i = 0
            while i < folded.count {
                let isWord = { (c: Unicode.Scalar) in CharacterSet.alphanumerics.contains(c) }
                if isWord(folded[i]) {
                    var j = i
                    while j < folded.count, isWord(folded[j]) { j += 1 }
                    let word = String(String.UnicodeScalarView(folded[i..<j]))
                    if stems.contains(where: { word.hasPrefix($0.stem) }) { ranges.append([i, j]) }
                    i = j
                } else { i += 1 }
            }
        }
        let firstMatch = ranges.first?[0]
        let clipped = clipWithOffset(lineText, around: firstMatch)
        let shifted = ranges.compactMap { r -> [Int]? in
            let s = r[0] - clipped.offset, e = r[1] - clipped.offset
            return s >= 0 && e <= clipped.length ? [s + clipped.lead, e + clipped.lead] : nil
        }
        return (best.line, clipped.text, shifted)
    }

    static func clip(_ text: String, around: Int?) -> String { clipWithOffset(text, around: around).text }

    /// Trims a line to about 160 scalars around `around`, with an ellipsis where cut.
    static func clipWithOffset(_ text: String, around: Int?) -> (text: String, offset: Int, length: Int, lead: Int) {
        let scalars = Array(text.unicodeScalars)
        var start = 0
        var end = scalars.count
        // Leading indentation is noise in a snippet.
        while start < end, scalars[start] == " " || scalars[start] == "\t" { start += 1 }
        let width = 160
        if end - start > width {
            let center = around ?? start
            start = max(start, center - 50)
            end = min(scalars.count, start + width)
        }
        var out = String(String.UnicodeScalarView(scalars[start..<end]))
        var lead = 0
        if start > 0, scalars[0..<start].contains(where: { $0 != " " && $0 != "\t" }) { out = "…" + out; lead = 1 }
        if end < scalars.count { out += "…" }
        return (out, start, end - start, lead)
    }
}
