import Dispatch
import Foundation
import Logging

/// What one reconcile or refresh did.
public struct IndexReport: Sendable {
    public var scanned = 0
    public var updated = 0
    public var deleted = 0
    public var unchanged = 0
    /// Relative path → problem (too large, unreadable…); a path that is fine again maps to nil.
    public var problems: [PathBytes: String?] = [:]
    public init() {}
}

/// Brings a project's index in line with the disk: walks, compares fingerprints, reads and parses
/// what changed (in parallel), and writes in batched transactions.
public struct Indexer: Sendable {
    public let database: AppDatabase
    public let logger: Logger
    public var batchSize = 256

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
    ///   - onChanges: called after each batch is committed with the changes it made.
    public func sync(
        root: PathBytes, projectID: Int64, scopes: [Scope], filter: PathFilter, maxFileBytes: Int,
        progress: (@Sendable (Int, Int) -> Void)? = nil,
        onChanges: ([DocumentChange]) -> Void = { _ in }
    ) throws -> IndexReport {
        var report = IndexReport()
        var present: [PathBytes: FileStat] = [:]
        var known: [PathBytes: Fingerprint] = [:]
        var folders = Set<PathBytes>()
        for case .folder(let f) in scopes { folders.insert(f) }
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
        }
        for case .file(let rel) in scopes where !topFolders.contains(where: { $0.isEmpty || rel.isWithin($0) }) {
            if let fp = try database.fingerprints(projectID: projectID, exact: rel) { known[rel] = fp }
            if filter.isDocument(rel), let st = FileSystem.lstatIfExists(root.appending(rel)), st.kind == .regular {
                present[rel] = st
            } else {
                report.problems[rel] = .some(nil)
            }
        }
        report.scanned = present.count
        var candidates: [(PathBytes, FileStat)] = []
        for (rel, st) in present.sorted(by: { $0.key < $1.key }) {
            if let fp = known[rel], fp.sameStat(st) { report.unchanged += 1 } else { candidates.append((rel, st)) }
        }
        let gone = known.keys.filter { present[$0] == nil }.sorted()
        try process(root: root, projectID: projectID, candidates: candidates, gone: gone, known: known,
                    maxFileBytes: maxFileBytes, report: &report, progress: progress, onChanges: onChanges)
        return report
    }

    /// Reads, hashes and parses candidates in parallel batches; writes each batch in one transaction.
    private func process(
        root: PathBytes, projectID: Int64, candidates: [(PathBytes, FileStat)], gone: [PathBytes],
        known: [PathBytes: Fingerprint], maxFileBytes: Int, report: inout IndexReport,
        progress: (@Sendable (Int, Int) -> Void)?, onChanges: ([DocumentChange]) -> Void
    ) throws {
        let total = candidates.count
        var goneBySha: [String: [PathBytes]] = [:]
        for g in gone { if let sha = known[g]?.sha256 { goneBySha[sha, default: []].append(g) } }
        var remainingGone = Set(gone)
        var done = 0
        var start = 0
        progress?(0, total)
        while start < total || (start == 0 && !remainingGone.isEmpty) {
            let end = min(total, start + batchSize)
            let slice = Array(candidates[start..<end])
            let loaded = Self.load(root: root, slice, maxFileBytes: maxFileBytes)
            var upserts: [IndexedDocument] = []
            var statOnly: [(PathBytes, FileStat)] = []
            var changes: [DocumentChange] = []
            var deletions: [PathBytes] = []
            for item in loaded {
                switch item {
                case .problem(let rel, let message):
                    report.problems[rel] = .some(message)
                case .parsed(let rel, let st, let sha, let doc):
                    report.problems[rel] = .some(nil)
                    let previous = known[rel]?.sha256
                    if previous == sha {
                        statOnly.append((rel, st))
                        report.unchanged += 1
                        continue
                    }
                    upserts.append(IndexedDocument(
                        relativePath: rel, stat: st, sha256: sha, words: doc.wordCount, title: doc.title,
                        headings: doc.headings, tags: doc.frontMatter.tags, body: doc.searchBody))
                    report.updated += 1
                    // A new path whose content matches a path that vanished is a rename.
                    if previous == nil, var olds = goneBySha[sha], let old = olds.popLast() {
                        goneBySha[sha] = olds
                        remainingGone.remove(old)
                        deletions.append(old)
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
            try database.apply(projectID: projectID, upserts: upserts, statOnly: statOnly, deletions: deletions)
            onChanges(changes)
            done = end
            progress?(done, total)
            start = end
            if total == 0 { break }
        }
    }

    enum Loaded: Sendable {
        case parsed(PathBytes, FileStat, String, MarkdownDocument)
        case problem(PathBytes, String)
    }

    /// Loads a batch on every core: read (bounded), hash, parse.
    static func load(root: PathBytes, _ items: [(PathBytes, FileStat)], maxFileBytes: Int) -> [Loaded] {
        let results = ResultSlots<Loaded>(count: items.count)
        DispatchQueue.concurrentPerform(iterations: items.count) { i in
            let (rel, st) = items[i]
            results.set(i, loadOne(root: root, rel: rel, stat: st, maxFileBytes: maxFileBytes))
        }
        return results.values()
    }

    static func loadOne(root: PathBytes, rel: PathBytes, stat: FileStat, maxFileBytes: Int) -> Loaded {
        if stat.size > Int64(maxFileBytes) {
            return .problem(rel, "\(rel.display): \(stat.size / 1_048_576) MB is over watch.max_file_bytes (\(maxFileBytes / 1_048_576) MB); not indexed")
        }
        let abs = root.appending(rel)
        do {
            let bytes = try FileSystem.read(abs, limit: maxFileBytes + 1)
            if bytes.count > maxFileBytes {
                return .problem(rel, "\(rel.display): over watch.max_file_bytes (\(maxFileBytes / 1_048_576) MB); not indexed")
            }
            // Re-stat after reading so the stored fingerprint describes what was read.
            let st = (try? FileSystem.lstat(abs)) ?? stat
            let sha = SHA256Digest.hex(bytes)
            let doc = MarkdownDocument(bytes: bytes, fileName: rel.lastComponent.display)
            return .parsed(rel, st, sha, doc)
        } catch {
            return .problem(rel, "\(rel.display): cannot read (\(error))")
        }
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
