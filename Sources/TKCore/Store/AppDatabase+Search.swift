import GRDB
import TKSearch

extension AppDatabase {
    /// Ranked full-text search (bm25, title weighted above headings, tags and body), best first:
    /// TKSearch's engine on one of GRDB's reader connections.
    public func search(_ query: SearchQuery, options: SearchOptions, queryText: String) throws -> SearchResults {
        try writer.read { db in
            guard let connection = db.sqliteConnection else {
                throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "the database connection is closed")
            }
            return try SearchEngine.search(connection: connection, query: query, options: options, queryText: queryText)
        }
    }
}
