import Foundation
import GRDB

/// One transaction for everything a batch derives (see `DocumentPipeline.commit`).
///
/// The stores a batch writes through (the index, the journey rows, progress and history, the
/// object store) read and write through `AppDatabase.read` and `AppDatabase.write`. Called inside
/// `batchTransaction`, on the thread that runs it, they take part in that transaction instead of
/// opening their own; called anywhere else, each is its own transaction as before.
extension AppDatabase {
    /// Runs `body` in one write transaction that the stores' own reads and writes on this thread join.
    /// Nothing `body` writes is seen by anyone until it returns; if it throws, nothing is kept.
    public func batchTransaction<T>(_ body: (Database) throws -> T) throws -> T {
        let key = batchKey
        return try writer.write { db in
            let thread = Thread.current.threadDictionary
            thread[key] = true
            defer { thread[key] = nil }
            return try body(db)
        }
    }

    /// Whether this thread is inside this database's `batchTransaction`.
    var insideBatch: Bool { Thread.current.threadDictionary[batchKey] != nil }

    /// A write: the open batch transaction's, else a transaction of its own.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        if insideBatch { return try writer.unsafeReentrantWrite(body) }
        return try writer.write(body)
    }

    /// A read: on the open batch transaction (which sees what the batch wrote so far), else a read of its own.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        if insideBatch { return try writer.unsafeReentrantWrite(body) }
        return try writer.read(body)
    }

    /// The thread-dictionary key of this database's batch transaction.
    private var batchKey: String { "tk-agent.batch-transaction.\(UInt(bitPattern: ObjectIdentifier(writer)))" }
}
