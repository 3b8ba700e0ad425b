import Foundation
import GRDB
import Testing
@testable import TKCore

/// A stop does not wait for a long statement: `interrupt` makes the statements running on the
/// agent's database (writer and readers) end with SQLITE_INTERRUPT, and the database works after.
@Suite struct InterruptTests {
    @Test func aLongStatementIsInterruptedAndTheDatabaseWorksAfter() async throws {
        let dir = TestScratch.url("tk-interrupt")
        let paths = Paths.resolve(environment: ["HOME": dir.path, "TK_DATA_DIR": dir.appendingPathComponent("data").path])
        let db = try AppDatabase.open(paths: paths)
        // Counts to 30 million: seconds of work unless interrupted (about 20 s in a debug build).
        let long = Task.detached { () -> Result<Int, Error> in
            Result {
                try db.reader.read { db in
                    try Int.fetchOne(db, sql: """
                        WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 30000000)
                        SELECT count(*) FROM c
                        """) ?? 0
                }
            }
        }
        // Interrupted until it ends (the first call may come before the statement starts).
        let interrupter = Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(100))
                db.interrupt()
            }
        }
        let result = await long.value
        interrupter.cancel()
        switch result {
        case .success(let n): Issue.record("the statement ran to its end (\(n)) instead of being interrupted")
        case .failure(let error):
            #expect((error as? DatabaseError)?.resultCode == .SQLITE_INTERRUPT, "\(error)")
        }
        #expect(try await db.reader.read { try Int.fetchOne($0, sql: "SELECT 1") } == 1)
    }
}
