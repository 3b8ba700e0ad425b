import Foundation

/// Reads and writes `tk.review/1` sidecars under `<project>/.tk/`, atomically and only on change.
public struct SidecarStore: Sendable {
    public let now: Now
    /// A lock file shared by every tk-agent process of one data folder, so that the agent and the
    /// CLI (accept, skip…) never interleave a read-modify-write of the same sidecar.
    public let lockFile: PathBytes?

    public init(now: Now = .system, lockFile: PathBytes? = nil) {
        self.now = now
        self.lockFile = lockFile
    }

    /// A store whose updates are serialised across processes through `<runtime>/sidecars.lock`.
    public static func shared(paths: Paths, now: Now = .system) -> SidecarStore {
        SidecarStore(now: now, lockFile: paths.runtimeDirectory.appending("sidecars.lock"))
    }

    /// The outcome of `modify`.
    public struct Outcome: Sendable {
        /// The sidecar as written (or as it already was).
        public var sidecar: ReviewSidecar
        /// Whether the file changed.
        public var wrote: Bool
        /// A line for `status` when the file on disk was broken or edited by hand and was rebuilt.
        public var problem: String?
        /// The bytes written (nil when the file already said it).
        public var bytes: [UInt8]? = nil
    }

    /// Reads, changes and writes a sidecar under the cross-process lock.
    ///
    /// A sidecar that does not parse is never silently overwritten: it is kept as `.review.json.bak`
    /// and `rebuild` provides the state to start from (the database copy, or a fresh sidecar).
    /// - Parameter beforeWrite: given the sidecar as it will be written and the file's bytes after
    ///   the write, under the lock, before the file is written: the database copy is recorded here,
    ///   so that a sidecar is not ahead of the database. Throwing leaves the file as it was.
    public func modify(
        project: PathBytes, document rel: PathBytes,
        rebuild: () -> ReviewSidecar,
        beforeWrite: ((ReviewSidecar, [UInt8]?) throws -> Void)? = nil,
        _ body: (inout ReviewSidecar) throws -> Void
    ) throws -> Outcome {
        try withLock {
            var problem: String?
            var (sidecar, read, broken) = startingPoint(project: project, document: rel, rebuild: rebuild)
            if let broken {
                if let bytes = read, !bytes.isEmpty, let bak = try? backUp(project: project, document: rel, bytes: bytes) {
                    problem = "\(broken); kept as \(bak.lastComponent.display) and rebuilt"
                } else {
                    problem = broken
                }
            }
            let existing = broken == nil ? read : nil
            try body(&sidecar)
            // What is written is `sidecar` with the time of writing (decoding the bytes back would
            // cost as much as encoding them, on every document of a first scan).
            let encoded = try encode(sidecar, comparedWith: existing)
            if let encoded { sidecar.updatedAt = encoded.updatedAt }
            try beforeWrite?(sidecar, encoded?.bytes ?? existing)
            if let encoded {
                let path = ReviewSidecar.path(project: project, document: rel)
                try FileSystem.makeDirectories(path.parent, mode: 0o755)
                try FileSystem.writeAtomically(encoded.bytes, to: path, mode: 0o644, durable: false)
            }
            return Outcome(sidecar: sidecar, wrote: encoded != nil, problem: problem, bytes: encoded?.bytes)
        }
    }

    /// A sidecar's next state, derived without writing (`prepare`) and written once the database
    /// holds it (`write(project:prepared:)`): the form a batch uses, so that its sidecars are written
    /// from what it committed.
    public struct Prepared: Sendable {
        /// Where the sidecar goes (a moved document's new path).
        public var document: PathBytes
        /// Where it was read (the old path of a moved document).
        public var source: PathBytes
        /// The file's bytes as read (nil: there was none): written only if the file still says them.
        public var read: [UInt8]?
        /// The file was broken or edited by hand: kept as `.review.json.bak` when this is written.
        public var broken: String?
        /// The sidecar as it will be written (with the time of writing), or as the file says it.
        public var sidecar: ReviewSidecar
        /// The bytes to write; nil when the file at `document` says it already.
        public var bytes: [UInt8]?
    }

    /// Reads a sidecar (or rebuilds it, as `modify` does) and applies `body`, writing nothing.
    /// - Parameter source: where to read it when it is not at `rel` yet (a moved document's old path).
    public func prepare(
        project: PathBytes, document rel: PathBytes, source: PathBytes? = nil,
        rebuild: () -> ReviewSidecar,
        _ body: (inout ReviewSidecar) throws -> Void
    ) throws -> Prepared {
        let from = source ?? rel
        var (sidecar, existing, broken) = startingPoint(project: project, document: from, rebuild: rebuild)
        try body(&sidecar)
        // A moved sidecar is written at its new path whatever it says; a broken one always.
        let compareWith = from == rel && broken == nil ? existing : nil
        let encoded = try encode(sidecar, comparedWith: compareWith)
        if let encoded { sidecar.updatedAt = encoded.updatedAt }
        return Prepared(document: rel, source: from, read: existing, broken: broken, sidecar: sidecar, bytes: encoded?.bytes)
    }

    /// The sidecar a change starts from, with the file's bytes as read and, for a file that is broken
    /// or edited by hand, what is wrong with it: the file's sidecar, else `rebuild()` (the database
    /// copy, or a fresh one). A caller with no earlier copy (a fresh rebuild) keeps what a hand-edited
    /// file still says rather than dropping its rounds and suggestions (the file is kept as `.bak`).
    func startingPoint(project: PathBytes, document rel: PathBytes,
                       rebuild: () -> ReviewSidecar) -> (ReviewSidecar, read: [UInt8]?, broken: String?) {
        switch read(project: project, document: rel) {
        case .missing:
            return (rebuild(), nil, nil)
        case .ok(let s, let bytes):
            return (s, bytes, nil)
        case .broken(let message, let bytes):
            var sidecar = rebuild()
            if sidecar.rounds.isEmpty, sidecar.suggestions.isEmpty,
               let edited = try? JSON.decode(ReviewSidecar.self, from: bytes), edited.schema == ReviewSidecar.schemaID {
                sidecar = edited
            }
            return (sidecar, bytes, message)
        }
    }

    /// What `write(project:prepared:)` did with one sidecar.
    public enum PreparedOutcome: Sendable {
        /// Written (or already as prepared: `wrote` false); `problem` says a broken file was kept as `.bak`.
        case done(wrote: Bool, problem: String?)
        /// The file changed since it was read (another process wrote it): nothing was written.
        case changedMeanwhile
        case failed(FileSystemError)
    }

    /// Writes prepared sidecars, all under one hold of the cross-process lock; each only if its file
    /// still says what `prepare` read.
    public func write(project: PathBytes, prepared: [Prepared]) -> [PreparedOutcome] {
        func writeAll() -> [PreparedOutcome] {
            prepared.map { p -> PreparedOutcome in
                let sourcePath = ReviewSidecar.path(project: project, document: p.source)
                let now: [UInt8]?
                do { now = try FileSystem.read(sourcePath, limit: 64 << 20) } catch {
                    if (error as? FileSystemError)?.isNotFound == true { now = nil } else { return .changedMeanwhile }
                }
                guard now == p.read else { return .changedMeanwhile }
                do {
                    var problem: String?
                    if let message = p.broken {
                        if let bytes = p.read, !bytes.isEmpty, let bak = try? backUp(project: project, document: p.source, bytes: bytes) {
                            problem = "\(message); kept as \(bak.lastComponent.display) and rebuilt"
                        } else {
                            problem = message
                        }
                    }
                    if let bytes = p.bytes {
                        let path = ReviewSidecar.path(project: project, document: p.document)
                        try FileSystem.makeDirectories(path.parent, mode: 0o755)
                        try FileSystem.writeAtomically(bytes, to: path, mode: 0o644, durable: false)
                    }
                    if p.source != p.document, now != nil {
                        try? FileSystem.remove(sourcePath)
                        pruneEmptyFolders(from: sourcePath.parent, project: project)
                    }
                    return .done(wrote: p.bytes != nil, problem: problem)
                } catch let error as FileSystemError {
                    return .failed(error)
                } catch {
                    return .failed(FileSystemError("write", ReviewSidecar.path(project: project, document: p.document), EIO))
                }
            }
        }
        // The lock's own failures leave the writes to go without it, as `withLock` does.
        do { return try withLock(writeAll) } catch { return writeAll() }
    }

    /// Runs `body` holding the exclusive lock (a no-op lock when none is configured).
    ///
    /// Re-entrant on one thread: `remove` or `move` called from inside `modify` or `withLock` run
    /// under the lock already held (a second `flock` on a new descriptor would wait forever).
    public func withLock<T>(_ body: () throws -> T) throws -> T {
        guard let lockFile else { return try body() }
        let key = "tk-agent.sidecar-lock." + lockFile.display
        let thread = Thread.current.threadDictionary
        if let depth = thread[key] as? Int, depth > 0 { return try body() }
        try? FileSystem.makeDirectories(lockFile.parent, mode: 0o700)
        let fd = lockFile.withCString { open($0, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        if fd < 0 { return try body() }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 && errno == EINTR {}
        defer { flock(fd, LOCK_UN) }
        thread[key] = 1
        defer { thread[key] = nil }
        return try body()
    }

    public enum ReadResult: Sendable {
        case missing
        case ok(ReviewSidecar, bytes: [UInt8])
        /// The file exists but is not a valid sidecar (edited or broken by hand, or by a sync tool).
        case broken(String, bytes: [UInt8])
    }

    /// Reads a document's sidecar.
    public func read(project: PathBytes, document rel: PathBytes) -> ReadResult {
        let path = ReviewSidecar.path(project: project, document: rel)
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(path, limit: 64 << 20) } catch {
            if error.isNotFound { return .missing }
            return .broken("cannot read \(path.display): \(error)", bytes: [])
        }
        do {
            let s = try JSON.decode(ReviewSidecar.self, from: bytes)
            guard s.schema == ReviewSidecar.schemaID else {
                return .broken("\(path.display): unknown schema \(s.schema)", bytes: bytes)
            }
            if Self.editedByHand(bytes: bytes) {
                return .broken("\(path.display) was edited by hand (its checksum does not match)", bytes: bytes)
            }
            return .ok(s, bytes: bytes)
        } catch {
            return .broken("\(path.display): not a valid tk.review/1 sidecar (\(ConfigurationLoader.describeDecodingError(error)))", bytes: bytes)
        }
    }

    /// The bytes a sidecar is written as: its JSON plus a `checksum` key (SHA-256 of the JSON without it),
    /// so that a sidecar edited by hand (or by a sync tool merging versions) can be told from one tk-agent wrote.
    public static func encode(_ sidecar: ReviewSidecar) throws -> [UInt8] {
        let body = try JSON.encode(sidecar)
        // Keys are sorted and "checksum" sorts first: splice it in after the opening brace.
        let open = Array("{\n".utf8)
        guard body.starts(with: open) else { return body }
        let line = "{\n  \"checksum\" : \"sha256:\(SHA256Digest.hex(body))\",\n"
        return Array(line.utf8) + body[open.count...]
    }

    private static let checksumLineStart = Array("{\n  \"checksum\" : \"sha256:".utf8)

    /// The compact JSON (no checksum, no whitespace between tokens) of sidecar bytes `encode` made:
    /// what `JSON.encode(sidecar, pretty: false)` gives, without encoding the sidecar again (the
    /// database keeps this copy of every sidecar written). Nil for bytes not in `encode`'s form.
    public static func compactJSON(ofWritten bytes: [UInt8]) -> [UInt8]? {
        let start = checksumLineStart
        let tail = Array("\",\n".utf8)
        let hexEnd = start.count + 64
        guard bytes.starts(with: start), bytes.count > hexEnd + tail.count,
              bytes[hexEnd..<(hexEnd + tail.count)].elementsEqual(tail) else { return nil }
        var out: [UInt8] = [UInt8(ascii: "{")]
        out.reserveCapacity(bytes.count - hexEnd)
        var inString = false, escaped = false
        for b in bytes[(hexEnd + tail.count)...] {
            if inString {
                out.append(b)
                if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch b {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"), UInt8(ascii: "\r"): continue
            case UInt8(ascii: "\""): inString = true; out.append(b)
            default: out.append(b)
            }
        }
        return out
    }

    /// The checksum (64 hex digits) on the first line of sidecar bytes `encode` made; nil for others.
    public static func checksum(ofWritten bytes: [UInt8]) -> String? {
        let start = checksumLineStart
        let hexEnd = start.count + 64
        guard bytes.starts(with: start), bytes.count > hexEnd else { return nil }
        return String(decoding: bytes[start.count..<hexEnd], as: UTF8.self)
    }

    /// Whether sidecar bytes start with the checksum line tk-agent writes.
    public static func isSealed(_ bytes: [UInt8]) -> Bool { bytes.starts(with: checksumLineStart) }

    /// Whether sidecar bytes carry a checksum that does not match the rest of the file (edited by hand
    /// or by a tool). Sidecars without a checksum (older versions, tests) are trusted.
    public static func editedByHand(bytes: [UInt8]) -> Bool {
        let start = checksumLineStart
        guard bytes.starts(with: start) else {
            // No checksum line where tk-agent puts it: edited when a checksum key is elsewhere.
            return !Search.occurrences(of: Array("\"checksum\"".utf8), in: bytes, limit: 1).isEmpty
        }
        let hexEnd = start.count + 64
        let tail = Array("\",\n".utf8)
        guard bytes.count > hexEnd + tail.count, Array(bytes[hexEnd..<(hexEnd + tail.count)]) == tail else { return true }
        let stored = String(decoding: bytes[start.count..<hexEnd], as: UTF8.self)
        let body = Array("{\n".utf8) + bytes[(hexEnd + tail.count)...]
        return SHA256Digest.hex(body) != stored
    }

    /// Writes a sidecar unless the file already says the same (ignoring `updated_at`).
    /// - Returns: the bytes written, or nil when nothing changed.
    @discardableResult
    public func write(project: PathBytes, document rel: PathBytes, _ sidecar: ReviewSidecar, existing: [UInt8]? = nil) throws -> [UInt8]? {
        try write(project: project, document: rel, sidecar, existing: existing, readIfNotGiven: true)?.bytes
    }

    /// - Parameter readIfNotGiven: read the file when `existing` is nil (`modify` has read it already:
    ///   nil there means there is no file).
    /// - Returns: the bytes written and the `updatedAt` they carry; nil when the file already said it.
    func write(project: PathBytes, document rel: PathBytes, _ sidecar: ReviewSidecar, existing: [UInt8]?,
               readIfNotGiven: Bool) throws -> (bytes: [UInt8], updatedAt: String)? {
        let path = ReviewSidecar.path(project: project, document: rel)
        let current = existing ?? (readIfNotGiven ? try? FileSystem.read(path, limit: 64 << 20) : nil)
        guard let encoded = try encode(sidecar, comparedWith: current) else { return nil }
        try FileSystem.makeDirectories(path.parent, mode: 0o755)
        try FileSystem.writeAtomically(encoded.bytes, to: path, mode: 0o644, durable: false)
        return encoded
    }

    /// The bytes to write for a sidecar, stamped with the time of writing; nil when `current` (the
    /// file's bytes) says the same but for `updated_at`.
    func encode(_ sidecar: ReviewSidecar, comparedWith current: [UInt8]?) throws -> (bytes: [UInt8], updatedAt: String)? {
        var candidate = sidecar
        if let current, let old = try? JSON.decode(ReviewSidecar.self, from: current) {
            candidate.updatedAt = old.updatedAt
            if try Self.encode(candidate) == current { return nil }
        }
        candidate.updatedAt = RFC3339.string(now.date())
        return (try Self.encode(candidate), candidate.updatedAt)
    }

    /// Removes a document's sidecar and the `.tk/` subfolders it leaves empty (under the lock, so a
    /// concurrent `accept` or `skip` never writes it back).
    public func remove(project: PathBytes, document rel: PathBytes) {
        let path = ReviewSidecar.path(project: project, document: rel)
        _ = try? withLock {
            try? FileSystem.remove(path)
            pruneEmptyFolders(from: path.parent, project: project)
        }
    }

    /// Moves a sidecar along with its renamed document (under the lock).
    public func move(project: PathBytes, from old: PathBytes, to new: PathBytes) throws {
        let from = ReviewSidecar.path(project: project, document: old)
        let to = ReviewSidecar.path(project: project, document: new)
        try withLock {
            guard FileSystem.lstatIfExists(from) != nil else { return }
            try FileSystem.makeDirectories(to.parent, mode: 0o755)
            try FileSystem.rename(from, to: to)
            pruneEmptyFolders(from: from.parent, project: project)
        }
    }

    /// Keeps a copy of a sidecar that was broken or edited by hand: `<name>.review.json.bak`.
    public func backUp(project: PathBytes, document rel: PathBytes, bytes: [UInt8]) throws -> PathBytes {
        var bak = ReviewSidecar.path(project: project, document: rel)
        bak = PathBytes(bak.bytes + Array(".bak".utf8))
        try FileSystem.writeAtomically(bytes, to: bak, mode: 0o644)
        return bak
    }

    private func pruneEmptyFolders(from start: PathBytes, project: PathBytes) {
        let tk = project.appending(".tk")
        var dir = start
        while dir.isWithin(tk), dir != tk {
            if !FileSystem.removeEmptyDirectory(dir) { break }
            dir = dir.parent
        }
    }
}
