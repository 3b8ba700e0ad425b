import Dispatch
import Foundation
import GRDB
import Logging
import Synchronization

/// What one reconcile or refresh did.
public struct IndexReport: Sendable {
    public var scanned = 0
    public var updated = 0
    public var deleted = 0
    public var unchanged = 0
    /// Unchanged documents read again all the same (`refresh`, or their derived state was stale).
    public var reread = 0
    /// Relative path → problem (too large, unreadable…); a path that is fine again maps to nil.
    public var problems: [PathBytes: String?] = [:]
    public init() {}
}

/// Told (documents done, documents in scope) as a sync goes (`Indexer.sync`'s `documents`).
public struct SyncCounts: Sendable {
    public let report: @Sendable (Int, Int) -> Void
    public init(_ report: @escaping @Sendable (Int, Int) -> Void) { self.report = report }
}

/// Brings a project's index in line with the disk: walks, compares fingerprints, reads and parses
/// what changed (in parallel), and writes in batched transactions.
public struct Indexer: Sendable {
    public let database: AppDatabase
    public let logger: Logger
    public var batchSize = 1024
    /// The most file bytes in one batch (a batch always holds at least one document).
    public var batchBytes = 4 << 20

    public init(database: AppDatabase, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// What part of a project to bring up to date.
    public enum Scope: Sendable, Hashable {
        /// One document, relative to the root (it may have appeared, changed or vanished).
        case file(PathBytes)
        /// Everything below a folder, relative to the root (empty = the whole project).
        case folder(PathBytes)
    }

    /// Brings the given scopes of a project in line with the disk, in one pass, so that a document
    /// that vanished from one scope and appeared in another with the same content is a move.
    /// - Parameters:
    ///   - progress: called with (done, total) as batches are written.
    ///   - refresh: read every document in scope, even unchanged ones, and report each as
    ///     `.updated` with `previousSha256 == sha256` (the project's heuristics settings changed,
    ///     so every sidecar's quick findings must be recomputed).
    ///   - stale: given the unchanged documents in scope (path → indexed SHA-256) and whether the whole
    ///     project is in scope, returns those whose derived state (sidecar) is not what their bytes and
    ///     settings give (another process indexed them, or a kill came between index and sidecar); they
    ///     are read and reported like `refresh` reports every document.
    ///   - commit: commits each batch: writes its index rows (`IndexBatch.write`) in the transaction
    ///     that holds what it derives from them (`DocumentPipeline.commit`), so that the index and the
    ///     derived state are one commit; nil writes the rows alone (`IndexBatch.commit(to:)`). Batches
    ///     are committed one at a time, in order, on another thread than the caller's, while the next
    ///     one is read and parsed; every call has returned when `sync` returns or throws. A batch
    ///     `commit` throws for is not in the index, no batch after it is committed, and `sync` throws.
    ///   - derive: what to work out from a batch before its commit, writing nothing (`DocumentPipeline
    ///     .derive`); its value reaches `commit` as `IndexBatch.derived`. It runs for one batch while
    ///     the batch before is committed (and the next one read), one batch at a time, in order.
    ///   - documents: called with (documents done, documents in scope), unchanged ones counting as
    ///     done, before the first batch and after each one.
    ///   - stop: checked between batches and, while loading, between files: once set, what is loaded
    ///     and not committed is dropped and `sync` throws `CancellationError` (every committed batch
    ///     went through `commit`; the next sync finds the rest changed or stale, and does it).
    ///   - passagesInBulk: split the retrieval passages in a bulk load too (one pass over each file)
    ///     instead of leaving them to `PassageBackfill`.
    public func sync(
        root: PathBytes, projectID: Int64, scopes: [Scope], filter: PathFilter, maxFileBytes: Int,
        refresh: Bool = false,
        stale: (([PathBytes: String], Bool) throws -> Set<PathBytes>)? = nil,
        progress: (@Sendable (Int, Int) -> Void)? = nil,
        documents: SyncCounts? = nil,
        stop: StopFlag? = nil,
        passagesInBulk: Bool = false,
        derive: ((IndexBatch) -> any Sendable)? = nil,
        commit: ((IndexBatch) throws -> Void)? = nil
    ) throws -> IndexReport {
        let database = self.database
        var report = IndexReport()
        var present: [PathBytes: FileStat] = [:]
        var known: [PathBytes: Fingerprint] = [:]
        var folders = Set<PathBytes>()
        for case .folder(let f) in scopes { folders.insert(f) }
        /// One path that may be a document or may have been one.
        func checkExact(_ rel: PathBytes) throws {
            if known[rel] == nil, let fp = try database.fingerprints(projectID: projectID, exact: rel) { known[rel] = fp }
            if filter.isDocument(rel), let st = FileSystem.lstatIfExists(root.appending(rel)), st.kind == .regular {
                present[rel] = st
            } else {
                report.problems[rel] = .some(nil)
            }
        }
        // A folder below another listed folder adds nothing.
        let topFolders = folders.filter { f in !folders.contains { $0 != f && ($0.isEmpty || f.isWithin($0)) } }
        for f in topFolders.sorted() {
            let dir = f.isEmpty ? root : root.appending(f)
            let walk = DirectoryWalker.walk(root: root, directory: dir, filter: filter)
            for p in walk.problems { report.problems[PathBytes(f.bytes)] = .some(p) }
            for entry in walk.documents {
                if let rel = entry.path.relative(to: root) { present[rel] = entry.stat }
            }
            for (k, v) in try database.fingerprints(projectID: projectID, under: f.isEmpty ? nil : f) { known[k] = v }
            // The folder's own name may have been a document (a file replaced by a folder, or back).
            if !f.isEmpty { try checkExact(f) }
        }
        for case .file(let rel) in scopes where !topFolders.contains(where: { $0.isEmpty || (rel.isWithin($0) && rel != $0) }) {
            try checkExact(rel)
        }
        report.scanned = present.count
        var candidates: [(PathBytes, FileStat)] = []
        var unchanged: [PathBytes: String] = [:]
        for (rel, st) in present.sorted(by: { $0.key < $1.key }) {
            if !refresh, let fp = known[rel], fp.sameStat(st) { unchanged[rel] = fp.sha256 } else { candidates.append((rel, st)) }
        }
        let changedCount = candidates.count
        var forced = Set<PathBytes>()
        if let stale, !unchanged.isEmpty {
            forced = try stale(unchanged, topFolders.contains(PathBytes([]))).filter { unchanged[$0] != nil }
            for rel in forced.sorted() { if let st = present[rel] { candidates.append((rel, st)) } }
        }
        report.unchanged += unchanged.count - forced.count
        let alreadyDone = unchanged.count - forced.count
        let inScope = present.count
        documents?.report(alreadyDone, inScope)
        if stop?.isSet == true { throw CancellationError() }
        let gone = known.keys.filter { present[$0] == nil }.sorted()
        // A first index or a big checkout: merge the index once at the end (see `bulkLoad`), and
        // leave the retrieval passages to `PassageBackfill` (the agent runs it after the scan, `ask
        // --project` before answering): search is ready in half the time, and nothing is lost, since
        // a document without passages is what the backfill looks for.
        let bulk = changedCount > 2 * batchSize && !refresh
        try database.bulkLoad(if: bulk) {
            try process(root: root, projectID: projectID, candidates: candidates, gone: gone, known: known,
                        maxFileBytes: maxFileBytes, withPassages: !bulk || passagesInBulk, refresh: refresh, forced: forced,
                        report: &report, stop: stop,
                        progress: { done, total in
                            progress?(done, total)
                            documents?.report(alreadyDone + done, inScope)
                        }, derive: derive, commit: commit ?? { batch in try batch.commit(to: database) })
        }
        return report
    }

    /// Reads, hashes and parses candidates in parallel batches; writes each batch in one transaction.
    private func process(
        root: PathBytes, projectID: Int64, candidates: [(PathBytes, FileStat)], gone: [PathBytes],
        known: [PathBytes: Fingerprint], maxFileBytes: Int, withPassages: Bool, refresh: Bool, forced: Set<PathBytes>,
        report: inout IndexReport, stop: StopFlag?,
        progress: (Int, Int) -> Void, derive: ((IndexBatch) -> any Sendable)?, commit: (IndexBatch) throws -> Void
    ) throws {
        let noDerive: (IndexBatch) -> any Sendable = { _ in () }
        try withoutActuallyEscaping(derive ?? noDerive) { derive in
        try withoutActuallyEscaping(commit) { commit in
            let handoff = BatchHandoff(derive: derive, commit: commit)
            // Whatever happens, the last batch is through before the sync returns.
            defer { handoff.drain() }
            try process(root: root, projectID: projectID, candidates: candidates, gone: gone, known: known,
                        maxFileBytes: maxFileBytes, withPassages: withPassages, refresh: refresh, forced: forced,
                        report: &report, stop: stop, progress: progress, handoff: handoff)
        }
        }
    }

    private func process(
        root: PathBytes, projectID: Int64, candidates: [(PathBytes, FileStat)], gone: [PathBytes],
        known: [PathBytes: Fingerprint], maxFileBytes: Int, withPassages: Bool, refresh: Bool, forced: Set<PathBytes>,
        report: inout IndexReport, stop: StopFlag?,
        progress: (Int, Int) -> Void, handoff: BatchHandoff
    ) throws {
        let total = candidates.count
        var goneBySha: [String: [PathBytes]] = [:]
        for g in gone { if let sha = known[g]?.sha256 { goneBySha[sha, default: []].append(g) } }
        var remainingGone = Set(gone)
        var done = 0
        var start = 0
        progress(0, total)
        // Where the batch starting at `from` ends: `batchSize` documents or `batchBytes` of files,
        // whichever comes first, so that a folder of long documents cannot multiply the memory
        // held by the two batches in flight (read bytes, text, passages, compressed versions).
        func batchEnd(_ from: Int) -> Int {
            var end = from, bytes: Int64 = 0
            while end < total && end - from < batchSize && (end == from || bytes < Int64(batchBytes)) {
                bytes += max(0, candidates[end].1.size)
                end += 1
            }
            return end
        }
        // While one batch is written (SQLite: one core), the next is read and parsed on the others.
        var nextEnd = batchEnd(start)
        var next = start < total
            ? Prefetch(root: root, Array(candidates[start..<nextEnd]), maxFileBytes: maxFileBytes, withPassages: withPassages, stop: stop)
            : nil
        while start < total || (start == 0 && !remainingGone.isEmpty) {
            let end = nextEnd
            let loaded = next?.wait() ?? []
            // Stopping: the loaded batch is dropped (the loads check the flag between files, so it
            // may be partial); nothing of it was committed.
            if stop?.isSet == true { throw CancellationError() }
            nextEnd = batchEnd(end)
            next = end < total
                ? Prefetch(root: root, Array(candidates[end..<nextEnd]), maxFileBytes: maxFileBytes, withPassages: withPassages, stop: stop)
                : nil
            // The next batch loads while this one is written; it is waited for at the end of the
            // iteration whatever happens, so that no load outlives the sync.
            defer { _ = next?.wait() }
            var upserts: [IndexedDocument] = []
            var statOnly: [(PathBytes, FileStat)] = []
            var changes: [DocumentChange] = []
            var deletions: [PathBytes] = []
            var renames: [(from: PathBytes, to: PathBytes)] = []
            for item in loaded {
                switch item {
                case .problem(let rel, let message):
                    report.problems[rel] = .some(message)
                case .tooLarge(let rel, let message):
                    // Not indexed while it is too large: drop a stale entry, but keep its sidecar
                    // (journey and decisions) for when it is back under the limit.
                    report.problems[rel] = .some(message)
                    if known[rel] != nil {
                        deletions.append(rel)
                        report.deleted += 1
                    }
                case .vanished(let rel):
                    // Gone between the walk and the read: a deletion (or one side of a rename).
                    report.problems[rel] = .some(nil)
                    if known[rel] != nil {
                        remainingGone.insert(rel)
                        if let sha = known[rel]?.sha256 { goneBySha[sha, default: []].append(rel) }
                    }
                case .parsed(let rel, let st, let sha, let doc, let passages):
                    let problem = doc.frontMatterProblem.map { "\(rel.display): \($0)" }
                        ?? (doc.readAsLatin1 ? DocumentText.latin1Problem(rel.display) : nil)
                    report.problems[rel] = .some(problem)
                    let previous = known[rel]?.sha256
                    if previous == sha {
                        statOnly.append((rel, st))
                        report.unchanged += 1
                        if refresh || forced.contains(rel) {
                            report.reread += 1
                            changes.append(.updated(relative: rel, document: doc, sha256: sha, previousSha256: previous))
                        }
                        continue
                    }
                    upserts.append(IndexedDocument(
                        relativePath: rel, stat: st, sha256: sha, words: doc.wordCount, title: doc.title,
                        headings: doc.headings, tags: doc.frontMatter.tags, body: doc.searchBody, problem: problem,
                        passages: passages))
                    report.updated += 1
                    // A new path whose content matches a path that vanished is a rename.
                    if previous == nil, var olds = goneBySha[sha], let old = olds.popLast() {
                        goneBySha[sha] = olds
                        remainingGone.remove(old)
                        renames.append((from: old, to: rel))
                        changes.append(.moved(from: old, to: rel, document: doc, sha256: sha))
                    } else {
                        changes.append(.updated(relative: rel, document: doc, sha256: sha, previousSha256: previous))
                    }
                }
            }
            if end == total {
                for g in remainingGone.sorted() {
                    deletions.append(g)
                    if let sha = known[g]?.sha256 { changes.append(.deleted(relative: g, previousSha256: sha)) }
                    report.deleted += 1
                }
                remainingGone.removeAll()
            }
            // The previous batch is committed (its documents count as done; its failure is thrown
            // here); this one is derived and committed while the next one is read.
            try handoff.submit(IndexBatch(projectID: projectID, upserts: upserts, statOnly: statOnly, renames: renames,
                                          deletions: deletions, changes: changes))
            progress(done, total)
            done = end
            start = end
            if total == 0 { break }
        }
        try handoff.finish()
        progress(done, total)
    }

    enum Loaded: Sendable {
        /// The passages are split here, on the loading cores (see `PassageChunker`); nil in a bulk load.
        case parsed(PathBytes, FileStat, String, MarkdownDocument, PassageSet?)
        /// Could not be read; whatever the index and the sidecar say stays as it is.
        case problem(PathBytes, String)
        /// Over `watch.max_file_bytes`, or not text (`TextSniffer`): not indexed, reported.
        case tooLarge(PathBytes, String)
        /// No longer there, or no longer a regular file.
        case vanished(PathBytes)
    }

    /// Loads a batch on every core but one: read (bounded), hash, parse.
    static func load(root: PathBytes, _ items: [(PathBytes, FileStat)], maxFileBytes: Int, withPassages: Bool = true,
                     stop: StopFlag? = nil) -> [Loaded] {
        let results = ResultSlots<Loaded>(count: items.count)
        // One core is left to the writer, which runs at the same time (see `Prefetch`).
        let workers = max(1, min(items.count, ProcessInfo.processInfo.activeProcessorCount - 1))
        DispatchQueue.concurrentPerform(iterations: workers) { w in
            for i in stride(from: w, to: items.count, by: workers) {
                if stop?.isSet == true { return }
                let (rel, st) = items[i]
                results.set(i, loadOne(root: root, rel: rel, stat: st, maxFileBytes: maxFileBytes, withPassages: withPassages))
            }
        }
        return results.values()
    }

    static func loadOne(root: PathBytes, rel: PathBytes, stat: FileStat, maxFileBytes: Int, withPassages: Bool = true) -> Loaded {
        if stat.size > Int64(maxFileBytes) {
            return .tooLarge(rel, tooLargeMessage(rel, size: stat.size, limit: maxFileBytes))
        }
        let abs = root.appending(rel)
        switch readRegularFile(abs, limit: maxFileBytes + 1) {
        case .bytes(let bytes, let st):
            if bytes.count > maxFileBytes {
                return .tooLarge(rel, tooLargeMessage(rel, size: Int64(max(bytes.count, Int(clamping: st.size))), limit: maxFileBytes))
            }
            if let reason = TextSniffer.problem(bytes) { return .tooLarge(rel, TextSniffer.message(rel.display, reason)) }
            let sha = SHA256Digest.hex(bytes)
            let doc = MarkdownDocument(bytes: bytes, fileName: rel.lastComponent.display)
            return .parsed(rel, st, sha, doc, withPassages ? PassageSet(document: doc) : nil)
        case .vanished:
            return .vanished(rel)
        case .failed(let code):
            return .problem(rel, "\(rel.display): cannot read (\(String(cString: strerror(code)))); not indexed")
        }
    }

    static func tooLargeMessage(_ rel: PathBytes, size: Int64, limit: Int) -> String {
        "\(rel.display): \(describeBytes(size)) is over watch.max_file_bytes (\(describeBytes(Int64(limit)))); not indexed"
    }

    static func describeBytes(_ n: Int64) -> String {
        if n >= 1_048_576 { return String(format: "%.1f MB", Double(n) / 1_048_576) }
        if n >= 1024 { return String(format: "%.1f KB", Double(n) / 1024) }
        return "\(n) bytes"
    }

    enum ReadOutcome {
        case bytes([UInt8], FileStat)
        case vanished
        /// The system's error number (`errno`) of the call that failed.
        case failed(errno: Int32)
    }

    /// Reads a regular file without ever blocking on a FIFO or device that took its name after the
    /// walk (`O_NONBLOCK`, then `fstat` must say regular file) and without following a link.
    /// - Returns: the bytes (at most `limit`) and the `fstat` taken before reading.
    static func readRegularFile(_ path: PathBytes, limit: Int) -> ReadOutcome {
        let fd = path.withCString { open($0, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY) }
        if fd < 0 {
            let code = errno
            if code == ENOENT || code == ENOTDIR || code == ELOOP { return .vanished }
            return .failed(errno: code)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .failed(errno: errno) }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .vanished }
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        let stat = FileStat(
            kind: .regular, size: Int64(st.st_size),
            mtimeNs: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
            ctimeNs: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec),
            inode: UInt64(st.st_ino), device: UInt64(st.st_dev))
        var out: [UInt8] = []
        out.reserveCapacity(min(max(Int(clamping: st.st_size), 0), limit) + 1)
        var chunk = [UInt8](repeating: 0, count: 65536)
        while out.count < limit {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return .failed(errno: errno)
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        if out.count > limit { out.removeLast(out.count - limit) }
        return .bytes(out, stat)
    }
}

/// One batch read and parsed in the background (on every core) while the caller writes the previous one.
///
/// `@unchecked Sendable` is safe because `loaded` is written once, by the background block, before
/// it signals `done`, and read only by `wait()` after `done` was waited on, which orders the write
/// before the read; `waited` is touched only by `wait()`, on the one thread that owns the batch
/// (the indexer's); `done` is itself thread-safe.
final class Prefetch: @unchecked Sendable {
    private var loaded: [Indexer.Loaded] = []
    private let done = DispatchSemaphore(value: 0)
    private var waited = false

    init(root: PathBytes, _ items: [(PathBytes, FileStat)], maxFileBytes: Int, withPassages: Bool, stop: StopFlag? = nil) {
        DispatchQueue.global(qos: .utility).async { [self] in
            loaded = Indexer.load(root: root, items, maxFileBytes: maxFileBytes, withPassages: withPassages, stop: stop)
            done.signal()
        }
    }

    /// The batch, once loaded (blocks until then; call once).
    func wait() -> [Indexer.Loaded] {
        if !waited { done.wait(); waited = true }
        return loaded
    }
}

/// One batch of `Indexer.sync`: the index rows to write and the changes they make, for its `commit`.
public struct IndexBatch: Sendable {
    public let projectID: Int64
    let upserts: [IndexedDocument]
    let statOnly: [(PathBytes, FileStat)]
    let renames: [(from: PathBytes, to: PathBytes)]
    let deletions: [PathBytes]
    /// What the batch changes, in order (renames and deletions included).
    public let changes: [DocumentChange]
    /// What `Indexer.sync`'s `derive` made of the batch before its commit.
    public internal(set) var derived: (any Sendable)?

    /// Writes the batch's index rows in a transaction of their own.
    public func commit(to database: AppDatabase) throws {
        try database.write { db in try write(db) }
    }

    /// Writes the batch's index rows in an open transaction.
    public func write(_ db: Database) throws {
        try AppDatabase.apply(db, projectID: projectID, upserts: upserts, statOnly: statOnly, renames: renames,
                              deletions: deletions, now: Date())
    }
}

/// Runs `Indexer.sync`'s `derive` and `commit` for each batch while the indexer reads the next one:
/// one batch derived while the one before is committed, each on a serial queue, in order; a failed
/// commit stops the batches after it.
///
/// `@unchecked Sendable` is safe because `derive` is called only on `deriveQueue` and `commit` only
/// on `commitQueue` (serial queues: one call at a time each, in submission order); `submit` waits
/// for the previous batch's derivation before queueing the next, and a derivation waits for the
/// previous commit before queueing its own, so no two calls of one closure overlap and each is
/// ordered after the last by the groups' waits; `failure` is behind a mutex; and the indexer drains
/// the handoff before `withoutActuallyEscaping` returns, so neither closure outlives the sync.
final class BatchHandoff: @unchecked Sendable {
    private let derive: (IndexBatch) -> any Sendable
    private let commit: (IndexBatch) throws -> Void
    private let deriveQueue = DispatchQueue(label: "tk-agent.index.derive")
    private let commitQueue = DispatchQueue(label: "tk-agent.index.commit")
    private let deriving = DispatchGroup()
    private let committing = DispatchGroup()
    private let failure = Mutex<(any Error)?>(nil)

    init(derive: @escaping (IndexBatch) -> any Sendable, commit: @escaping (IndexBatch) throws -> Void) {
        self.derive = derive
        self.commit = commit
    }

    /// Waits for the previous batch's derivation (throws an earlier batch's failure), then queues this one.
    func submit(_ batch: IndexBatch) throws {
        deriving.wait()
        try throwFailure()
        // `async(group:)` leaves the group once the block has run and been released: nothing holds
        // the closures when `drain` returns (`withoutActuallyEscaping` checks it).
        deriveQueue.async(group: deriving) { [self] in
            var derived = batch
            if failure.withLock({ $0 == nil }) { derived.derived = derive(batch) }
            let ready = derived
            // Committed in order: after the batch before (queued before this block leaves `deriving`).
            committing.wait()
            commitQueue.async(group: committing) { [self] in
                guard failure.withLock({ $0 == nil }) else { return }
                do { try commit(ready) } catch { failure.withLock { $0 = error } }
            }
        }
    }

    /// Waits for the last queued batch; throws the failure of a batch that was not committed.
    func finish() throws {
        drain()
        try throwFailure()
    }

    /// Waits for the last queued batch, whatever happened.
    func drain() {
        deriving.wait()
        committing.wait()
    }

    private func throwFailure() throws {
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

/// Fixed slots written concurrently, one slot per iteration.
///
/// `@unchecked Sendable` is safe because every writer writes a distinct slot exactly once through a
/// raw pointer (no shared Swift property is mutated), and the values are read only after
/// `concurrentPerform` has returned, which orders all the writes before the read.
final class ResultSlots<T>: @unchecked Sendable {
    private let base: UnsafeMutablePointer<T?>
    private let count: Int
    init(count: Int) {
        self.count = count
        base = UnsafeMutablePointer<T?>.allocate(capacity: max(count, 1))
        base.initialize(repeating: nil, count: max(count, 1))
    }
    deinit {
        base.deinitialize(count: max(count, 1))
        base.deallocate()
    }
    func set(_ i: Int, _ v: T) { base[i] = v }
    func values() -> [T] { (0..<count).compactMap { base[$0] } }
}
