import Foundation
import GRDB
import Synchronization

/// Writes the passages of documents that have none for their current content: those of a bulk
/// load (a first index or a big checkout leaves them for later, see `Indexer.sync`), of an index
/// made by a version without retrieval, or out of step. Read from the file when it still has the
/// indexed content; a document that changed since waits for its own save.
///
/// Runs after the agent's big scans (its passage service), in its embedding pass, and before `ask
/// --project` and `search --hybrid` answer.
public enum PassageBackfill {
    /// The databases a backfill runs on now (by their writer's identity).
    private static let running = Mutex(Set<ObjectIdentifier>())

    /// - Parameter batch: documents written per transaction (one FTS5 segment each).
    /// - Parameter announce: told how many documents are missing passages before any is written
    ///   (a command says so when it is many: the first question after a large index waits for them).
    /// - Parameter stop: checked between files; once set, the batch being read is dropped and the
    ///   run returns (the documents left are still without passages: the next run finds them).
    /// - Returns: how many documents got their passages.
    @discardableResult
    public static func run(database: AppDatabase, limit: Int = 100_000, batch: Int = 256,
                           stop: StopFlag? = nil, announce: (Int) -> Void = { _ in }) -> Int {
        // One at a time on a database (the agent after a big scan, its embedding worker): a second
        // would read and split the same documents again. Another database (another test) is not
        // held back by this one's.
        let key = ObjectIdentifier(database.writer as AnyObject)
        let started = running.withLock { $0.insert(key).inserted }
        guard started else { return 0 }
        defer { _ = running.withLock { $0.remove(key) } }
        // Deleted documents' passages leave the contentless index (see `PassageText`).
        try? database.forgetGonePassages()
        guard let missing = try? database.documentsWithoutPassages(limit: limit), !missing.isEmpty else { return 0 }
        announce(missing.count)
        var done = 0
        var start = 0
        let lanes = max(1, ProcessInfo.processInfo.activeProcessorCount)
        while start < missing.count, stop?.isSet != true {
            let slice = Array(missing[start..<min(missing.count, start + max(1, batch))])
            start += slice.count
            // Read and split on every core; written in one transaction.
            let slots = ResultSlots<PassageWrite>(count: slice.count)
            DispatchQueue.concurrentPerform(iterations: min(lanes, slice.count)) { lane in
                for i in stride(from: lane, to: slice.count, by: min(lanes, slice.count)) {
                    if stop?.isSet == true { return }
                    let m = slice[i]
                    guard case .bytes(let bytes, _) = Indexer.readRegularFile(m.root.appending(m.path), limit: 64 << 20),
                          SHA256Digest.hex(bytes) == m.sha256 else { continue }
                    let doc = MarkdownDocument(bytes: bytes, fileName: m.path.lastComponent.display)
                    slots.set(i, PassageWrite(projectID: m.projectID, path: m.path, sha256: m.sha256, set: PassageSet(document: doc)))
                }
            }
            if stop?.isSet == true { break }
            if let n = try? database.writePassages(slots.values()) { done += n }
        }
        // Written batch by batch, the passages' index is left in many segments: merged now, once.
        if done > 0 { _ = try? database.tidyFullText(stop: stop) }
        return done
    }

    /// The line a command prints when many documents wait (about a second per 2,000 on 2 cores).
    public static func announceOnStderr(_ n: Int) {
        guard n >= 500 else { return }
        FileHandle.standardError.write(Data("tk-agent: preparing the passages of \(n) documents for retrieval (once, after a large index; the running agent does this by itself)\n".utf8))
    }
}

/// One document's passages to write (`AppDatabase.writePassages(_:)`).
public struct PassageWrite: Sendable {
    public var projectID: Int64
    public var path: PathBytes
    public var sha256: String
    public var set: PassageSet
}

extension AppDatabase {
    /// Writes the passages of several documents in one transaction; a document whose indexed
    /// content is no longer `sha256` is skipped. - Returns: how many were written.
    public func writePassages(_ items: [PassageWrite]) throws -> Int {
        guard !items.isEmpty else { return 0 }
        return try writer.write { db in
            var n = 0
            let find = try db.cachedStatement(sql: "SELECT id FROM document WHERE project_id = ? AND path = ? AND sha256 = ?")
            for item in items {
                guard let id = try Int64.fetchOne(find, arguments: [item.projectID, Data(item.path.bytes), item.sha256]) else { continue }
                try Self.syncPassages(db, documentID: id, sha256: item.sha256, set: item.set)
                n += 1
            }
            return n
        }
    }
}
