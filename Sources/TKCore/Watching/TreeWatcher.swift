import Dispatch
import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Watches project roots recursively with inotify and delivers typed `WatchEvent`s.
///
/// One inotify descriptor, non-blocking, read by a `DispatchSource` on a private serial queue
/// (nothing blocks the cooperative thread pool). Every directory is watched, never a file. A new
/// or moved-in directory is watched *first* and then listed (the new-directory race), and
/// reported as a `.rescan` of that folder. Moved-out and deleted folders lose their watches and
/// are reported `.removed`. `IN_Q_OVERFLOW` or an unknown watch → a full rescan of the roots,
/// rate-limited. The watch limit (`ENOSPC`) → a `.problem` with the remedy and rescans every
/// `fallbackRescanInterval` until watching works again. A periodic safety rescan runs every
/// `rescanInterval` (jittered ¾–5⁄4). Each root's `.tk` folder is watched (not walked) only to
/// report edits of the project's `config.json` as `.configChanged`.
public final class TreeWatcher: Sendable {
    private let fd: InotifyDescriptor
    private let queue: DispatchQueue
    private let logger: Logger
    private let makeFilter: @Sendable (PathBytes) -> PathFilter
    private let rescanInterval: Duration?
    private let options: TreeWatcherOptions
    private let stream: AsyncStream<WatchEvent>
    private let continuation: AsyncStream<WatchEvent>.Continuation
    private let state: Mutex<State>
    private let watches = Atomic<Int>(0)

    /// Opens the inotify descriptor and starts reading it.
    /// - Parameters:
    ///   - filter: the filter of a root (called once per `addRoot`).
    ///   - rescanInterval: the periodic safety rescan (`watch.rescan_minutes`); nil for none.
    ///   - logger: where to log.
    ///   - options: tuning for tests.
    /// - Throws: `TreeWatcherError` when inotify cannot be opened (e.g. `max_user_instances`).
    public init(
        filter: @escaping @Sendable (PathBytes) -> PathFilter, rescanInterval: Duration?, logger: Logger,
        options: TreeWatcherOptions = TreeWatcherOptions()
    ) throws {
        let fd: InotifyDescriptor
        do {
            fd = try InotifyDescriptor.open()
        } catch {
            throw TreeWatcherError.cannotOpen(error, instanceLimit: error == .tooManyFiles ? Self.readLimit("max_user_instances").map { "\($0)" } : nil)
        }
        self.fd = fd
        self.queue = DispatchQueue(label: "tk-agent.watcher")
        self.logger = logger
        self.makeFilter = filter
        self.rescanInterval = rescanInterval.flatMap { $0 > .zero ? $0 : nil }
        self.options = options
        (stream, continuation) = AsyncStream.makeStream(of: WatchEvent.self, bufferingPolicy: .unbounded)
        state = Mutex(State())

        let queue = self.queue
        state.withLock { s in
            let source = DispatchSource.makeReadSource(fileDescriptor: fd.rawValue, queue: queue)
            source.setEventHandler { [weak self] in self?.drain() }
            source.setCancelHandler { try? fd.close() }
            s.source = source
            source.resume()
        }
        continuation.onTermination = { [weak self] _ in self?.shutdown() }
    }

    deinit {
        shutdown()
    }

    /// The events, in order. One consumer; ending the iteration stops the watcher.
    public func events() -> AsyncStream<WatchEvent> { stream }

    /// Starts watching `root` recursively.
    ///
    /// Returns at once; when the watches are in place the watcher emits
    /// `.rescan(root, root, "startup")` (also when the folder is missing, then with a `.problem`).
    public func addRoot(_ root: PathBytes) {
        let root = Self.normalized(root)
        queue.async { [weak self] in
            guard let self else { return }
            self.state.withLock { s in
                guard !s.closed, s.roots[root] == nil else { return }
                s.roots[root] = RootState(path: root, filter: self.makeFilter(root), gap: self.options.minFullRescanGap)
                self.startRoot(root, reason: "startup", &s)
                self.flush(&s)
            }
        }
    }

    /// Stops watching `root` and removes its watches (those no other root needs).
    public func removeRoot(_ root: PathBytes) {
        let root = Self.normalized(root)
        queue.async { [weak self] in
            guard let self else { return }
            self.state.withLock { s in
                guard var r = s.roots.removeValue(forKey: root) else { return }
                r.cancelTimers()
                self.removeWatches(under: root, &s)
                // Re-establish anything another (nested or enclosing) root still needs.
                for other in s.roots.keys where other.isWithin(root) || root.isWithin(other) {
                    self.resync(other, directory: other, &s)
                }
                self.flush(&s)
            }
        }
    }

    /// How many directories are watched now.
    public func watchCount() -> Int { watches.load(ordering: .relaxed) }

    /// Stops reading, cancels the timers, closes the descriptor and finishes `events()`.
    public func shutdown() {
        let source: (any DispatchSourceRead)? = state.withLock { s in
            if s.closed { return nil }
            s.closed = true
            for key in Array(s.roots.keys) { s.roots[key]?.cancelTimers() }
            defer { s.source = nil }
            return s.source
        }
        source?.cancel()
        continuation.finish()
    }

    #if DEBUG
    /// Feeds raw `inotify_event` bytes through the parser and the handler, as if read from the
    /// kernel (unit tests only: simulate `IN_Q_OVERFLOW`, unknown watches; not in release builds).
    func inject(_ bytes: [UInt8]) {
        queue.async { [weak self] in
            guard let self else { return }
            self.state.withLock { s in
                guard !s.closed else { return }
                for event in InotifyEventParser.parse(bytes) { self.handle(event, &s) }
                self.finishDrain(&s)
            }
        }
    }
    #endif

    /// Runs `body` on the watcher's queue after everything queued so far (tests).
    func sync<T: Sendable>(_ body: @Sendable () -> T) -> T { queue.sync(execute: body) }

    /// The directories watched now, sorted (tests and diagnostics).
    func watchedDirectories() -> [PathBytes] {
        state.withLock { s in s.pathToWd.keys.sorted() }
    }

    // MARK: - State

    struct RootState {
        var path: PathBytes
        var filter: PathFilter
        /// `ENOSPC`: some folders are not watched; rescans every `fallbackRescanInterval`.
        var degraded = false
        /// The folder does not exist (or is not a folder); checked every `fallbackRescanInterval`.
        var missing = false
        var periodic: DispatchWorkItem?
        var retry: DispatchWorkItem?
        var delayedFullRescan: DispatchWorkItem?
        var lastFullRescan: ContinuousClock.Instant?
        var gap: Duration

        init(path: PathBytes, filter: PathFilter, gap: Duration) {
            self.path = path
            self.filter = filter
            self.gap = gap
        }

        mutating func cancelTimers() {
            periodic?.cancel()
            retry?.cancel()
            delayedFullRescan?.cancel()
            periodic = nil
            retry = nil
            delayedFullRescan = nil
        }
    }

    struct State {
        var roots: [PathBytes: RootState] = [:]
        var wdToPath: [WatchDescriptor: PathBytes] = [:]
        var pathToWd: [PathBytes: WatchDescriptor] = [:]
        /// Watches we removed whose `IN_IGNORED` has not arrived yet: their events are stale.
        var retired: Set<WatchDescriptor> = []
        /// `IN_MOVED_FROM` of directories waiting for their `IN_MOVED_TO` (cookie → old path).
        var pendingMoves: [(cookie: UInt32, path: PathBytes)] = []
        var output: [WatchEvent] = []
        var closed = false
        var source: (any DispatchSourceRead)?
    }

    // MARK: - Reading

    private func drain() {
        state.withLock { s in
            guard !s.closed else { return }
            let size = max(options.readBufferSize, 4096)
            withUnsafeTemporaryAllocation(byteCount: size, alignment: 8) { buffer in
                // Bounded so a storm cannot starve the rest; the level-triggered source fires again.
                for _ in 0..<64 {
                    let count: Int
                    do throws(InotifyDescriptor.Errno) {
                        count = try fd.read(into: buffer)
                    } catch {
                        if error != .wouldBlock {
                            logger.warning("inotify read failed", metadata: ["error": "\(error)"])
                        }
                        break
                    }
                    if count <= 0 { break }
                    for event in InotifyEventParser.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) {
                        handle(event, &s)
                    }
                }
            }
            finishDrain(&s)
        }
    }

    private func finishDrain(_ s: inout State) {
        let moves = s.pendingMoves
        s.pendingMoves.removeAll()
        for move in moves { directoryGone(move.path, &s) }
        flush(&s)
    }

    /// Yields the collected events, coalesced (see `WatchEventCoalescer`).
    private func flush(_ s: inout State) {
        guard !s.output.isEmpty else { return }
        let events = WatchEventCoalescer.coalesce(s.output)
        s.output.removeAll()
        watches.store(s.wdToPath.count, ordering: .relaxed)
        guard !s.closed else { return }
        for event in events { continuation.yield(event) }
    }

    // MARK: - Handling one event

    private func handle(_ event: InotifyEvent, _ s: inout State) {
        let mask = event.mask
        if mask.contains(.queueOverflow) {
            logger.warning("inotify queue overflowed; rescanning", metadata: ["watch.roots": "\(s.roots.count)"])
            for root in s.roots.keys { requestFullRescan(root, reason: "overflow", &s) }
            return
        }
        if mask.contains(.ignored) {
            forget(event.watch, &s)
            return
        }
        guard let directory = s.wdToPath[event.watch] else {
            if s.retired.contains(event.watch) { return }
            logger.warning("event for an unknown watch; rescanning", metadata: ["watch.wd": "\(event.watch.rawValue)"])
            for root in s.roots.keys { requestFullRescan(root, reason: "unknown watch", &s) }
            return
        }
        if let root = Self.rootOfConfigFolder(directory), s.roots[root] != nil {
            // `<root>/.tk` is watched (not walked) only for the project's `config.json` and its
            // dictionary (both project-wide inputs of every document's derived state).
            if event.name == Self.configName || event.name == Self.dictionaryName, !mask.isDisjoint(with: .pathDirty) {
                s.output.append(.configChanged(root: root))
            }
            if !mask.isDisjoint(with: [.deleteSelf, .moveSelf]) { removeWatches(under: directory, &s) }
            return
        }
        if event.name.isEmpty {
            // About the watched folder itself; its parent's watch reports moves and deletes,
            // except for a root, which has no watched parent.
            if !mask.isDisjoint(with: [.deleteSelf, .moveSelf, .unmount]), s.roots[directory] != nil {
                rootVanished(directory, &s)
            }
            return
        }
        let path = directory.appending(PathBytes(event.name))
        if mask.contains(.isDirectory), event.name == Self.configFolderName, s.roots[directory] != nil {
            if !mask.isDisjoint(with: [.create, .movedTo]) {
                watchConfigFolder(of: directory, &s)
                s.output.append(.configChanged(root: directory))
            } else if !mask.isDisjoint(with: [.delete, .movedFrom]) {
                removeWatches(under: path, &s)
                s.output.append(.configChanged(root: directory))
            }
            return
        }
        if mask.contains(.isDirectory) {
            if mask.contains(.movedFrom) {
                s.pendingMoves.append((event.cookie, path))
            } else if mask.contains(.movedTo) {
                if let i = s.pendingMoves.firstIndex(where: { $0.cookie == event.cookie }) {
                    let old = s.pendingMoves.remove(at: i).path
                    directoryRenamed(from: old, to: path, &s)
                } else {
                    directoryAppeared(path, reason: "moved in", &s)
                }
            } else if mask.contains(.create) {
                directoryAppeared(path, reason: "new directory", &s)
            } else if mask.contains(.delete) {
                directoryGone(path, &s)
            }
            return
        }
        guard !mask.isDisjoint(with: .pathDirty) else { return }
        for root in s.roots.values where path.isWithin(root.path) {
            guard let relative = path.relative(to: root.path) else { continue }
            if root.filter.isDocument(relative) {
                s.output.append(.changed(root: root.path, path: path))
            } else if Self.isValeInput(relative) {
                // The team's Vale styles are a project-wide input of every document's findings.
                s.output.append(.configChanged(root: root.path))
            }
        }
    }

    /// Whether a file of a project may be part of its Vale styles: a `.vale.ini` (or the other
    /// names Vale finds) at the root, a rule (`.yml`), a vocabulary or a Hunspell dictionary.
    static func isValeInput(_ relative: PathBytes) -> Bool {
        let name = relative.lastComponent.display
        if relative.components.count == 1 { return ValeConfiguration.fileNames.contains(name) }
        return name.hasSuffix(".yml") || name == "accept.txt" || name == "reject.txt" || name.hasSuffix(".dic") || name.hasSuffix(".aff")
    }

    /// `IN_IGNORED`: the kernel dropped the watch (folder deleted, unmounted, or we removed it).
    private func forget(_ wd: WatchDescriptor, _ s: inout State) {
        if s.retired.remove(wd) != nil { return }
        guard let path = s.wdToPath.removeValue(forKey: wd) else { return }
        if s.pathToWd[path] == wd { s.pathToWd[path] = nil }
        if let root = s.roots[path], !root.missing { rootVanished(path, &s) }
    }

    private func directoryAppeared(_ path: PathBytes, reason: String, _ s: inout State) {
        for root in Array(s.roots.keys) where path.isWithin(root) {
            guard let r = s.roots[root], !r.missing, let relative = path.relative(to: root),
                r.filter.shouldDescend(relative)
            else { continue }
            resync(root, directory: path, &s)
            s.output.append(.rescan(root: root, directory: path, reason: reason))
        }
    }

    private func directoryGone(_ path: PathBytes, _ s: inout State) {
        removeWatches(under: path, &s)
        for root in s.roots.values where path.isWithin(root.path) {
            guard let relative = path.relative(to: root.path), root.filter.shouldDescend(relative) else { continue }
            s.output.append(.removed(root: root.path, directory: path))
        }
    }

    /// A rename within the watched trees: keep the watches, remap their paths, then check the
    /// new location against the filter (watch-first, list-after) and report it.
    private func directoryRenamed(from old: PathBytes, to new: PathBytes, _ s: inout State) {
        // A folder renamed over an empty one replaces it.
        removeWatches(under: new, &s)
        let moved = s.wdToPath.filter { $0.value.isWithin(old) }
        for (wd, path) in moved {
            if s.pathToWd[path] == wd { s.pathToWd[path] = nil }
            var bytes = new.bytes
            bytes.append(contentsOf: path.bytes[old.bytes.count...])
            let newPath = PathBytes(bytes)
            s.wdToPath[wd] = newPath
            s.pathToWd[newPath] = wd
        }
        for root in s.roots.values where old.isWithin(root.path) {
            guard let relative = old.relative(to: root.path), root.filter.shouldDescend(relative) else { continue }
            s.output.append(.removed(root: root.path, directory: old))
        }
        let wanted = s.roots.values.contains { r in
            !r.missing && new.isWithin(r.path) && new.relative(to: r.path).map { r.filter.shouldDescend($0) } == true
        }
        if wanted {
            directoryAppeared(new, reason: "directory moved", &s)
        } else {
            removeWatches(under: new, &s)
        }
    }

    // MARK: - Roots

    /// Watches a root and emits `.rescan(root, root, reason)`; handles a missing root.
    private func startRoot(_ root: PathBytes, reason: String, _ s: inout State) {
        resync(root, directory: root, &s)
        s.output.append(.rescan(root: root, directory: root, reason: reason))
        if s.roots[root]?.missing == true {
            s.output.append(.problem(root: root, kind: .rootMissing, message: Self.missingMessage(root, options.fallbackRescanInterval)))
        }
        schedulePeriodic(root, &s)
    }

    private func rootVanished(_ root: PathBytes, _ s: inout State) {
        guard var r = s.roots[root], !r.missing else { return }
        logger.warning("project folder disappeared", metadata: ["watch.root": "\(root.display)"])
        r.missing = true
        r.degraded = false
        s.roots[root] = r
        removeWatches(under: root, &s)
        for other in s.roots.keys where other != root && (other.isWithin(root) || root.isWithin(other)) {
            if s.roots[other]?.missing == false { resync(other, directory: other, &s) }
        }
        s.output.append(.removed(root: root, directory: root))
        s.output.append(.problem(root: root, kind: .rootMissing, message: Self.missingMessage(root, options.fallbackRescanInterval)))
        scheduleRetry(root, &s)
    }

    /// The fallback timer: retries a missing or degraded root, else emits a fallback rescan.
    private func retryFired(_ root: PathBytes, _ s: inout State) {
        guard var r = s.roots[root] else { return }
        r.retry = nil
        s.roots[root] = r
        if r.missing {
            guard let st = Self.statFollowing(root), st.kind == .directory else {
                scheduleRetry(root, &s)
                return
            }
            s.roots[root]?.missing = false
            resync(root, directory: root, &s)
            if s.roots[root]?.missing == true {
                scheduleRetry(root, &s)
                return
            }
            s.output.append(.problemCleared(root: root))
            s.output.append(.rescan(root: root, directory: root, reason: "folder appeared"))
            if s.roots[root]?.degraded == true {
                s.output.append(.problem(root: root, kind: .watchLimit, message: Self.watchLimitMessage(options.fallbackRescanInterval)))
            }
            return
        }
        guard r.degraded else { return }
        // Try to complete the watches; `resync` keeps `degraded` set if the limit is still hit.
        s.roots[root]?.degraded = false
        resync(root, directory: root, &s, reportLimit: false)
        if s.roots[root]?.degraded == true {
            s.output.append(.rescan(root: root, directory: root, reason: "watch limit"))
            scheduleRetry(root, &s)
        } else {
            logger.info("watching the whole project again", metadata: ["watch.root": "\(root.display)"])
            s.output.append(.problemCleared(root: root))
            s.output.append(.rescan(root: root, directory: root, reason: "watching again"))
        }
    }

    // MARK: - Full rescans (overflow, unknown watch, periodic)

    private func requestFullRescan(_ root: PathBytes, reason: String, _ s: inout State) {
        guard var r = s.roots[root], !r.missing, r.delayedFullRescan == nil else { return }
        let now = ContinuousClock.now
        if let last = r.lastFullRescan {
            let since = last.duration(to: now)
            if since < r.gap {
                // Storm: do it once, later, and back off further.
                let wait = r.gap - since
                r.gap = min(r.gap * 2, options.maxFullRescanGap)
                let item = DispatchWorkItem { [weak self] in
                    self?.onQueue { watcher, s in
                        s.roots[root]?.delayedFullRescan = nil
                        watcher.performFullRescan(root, reason: reason, &s)
                    }
                }
                r.delayedFullRescan = item
                s.roots[root] = r
                queue.asyncAfter(deadline: .now() + Self.dispatchInterval(wait), execute: item)
                logger.info("full rescan delayed", metadata: ["watch.root": "\(root.display)", "watch.reason": "\(reason)"])
                return
            }
            if since > options.maxFullRescanGap { r.gap = options.minFullRescanGap }
            s.roots[root] = r
        }
        performFullRescan(root, reason: reason, &s)
    }

    private func performFullRescan(_ root: PathBytes, reason: String, _ s: inout State) {
        guard s.roots[root]?.missing == false else { return }
        s.roots[root]?.lastFullRescan = ContinuousClock.now
        resync(root, directory: root, &s, reportLimit: false)
        if s.roots[root]?.missing == false {
            s.output.append(.rescan(root: root, directory: root, reason: reason))
        }
    }

    private func schedulePeriodic(_ root: PathBytes, _ s: inout State) {
        guard let interval = rescanInterval, var r = s.roots[root] else { return }
        r.periodic?.cancel()
        let wait = interval * Double.random(in: 0.75...1.25)
        let item = DispatchWorkItem { [weak self] in
            self?.onQueue { watcher, s in
                guard let r = s.roots[root] else { return }
                if !r.missing {
                    s.roots[root]?.lastFullRescan = ContinuousClock.now
                    watcher.resync(root, directory: root, &s, reportLimit: false)
                    if s.roots[root]?.missing == false {
                        s.output.append(.rescan(root: root, directory: root, reason: "periodic"))
                    }
                }
                watcher.schedulePeriodic(root, &s)
            }
        }
        r.periodic = item
        s.roots[root] = r
        queue.asyncAfter(deadline: .now() + Self.dispatchInterval(wait), execute: item)
    }

    private func scheduleRetry(_ root: PathBytes, _ s: inout State) {
        guard var r = s.roots[root], r.retry == nil else { return }
        let item = DispatchWorkItem { [weak self] in
            self?.onQueue { watcher, s in watcher.retryFired(root, &s) }
        }
        r.retry = item
        s.roots[root] = r
        queue.asyncAfter(deadline: .now() + Self.dispatchInterval(options.fallbackRescanInterval), execute: item)
    }

    /// Runs `body` with the state locked, then flushes; for timer callbacks on the queue.
    private func onQueue(_ body: (TreeWatcher, inout State) -> Void) {
        state.withLock { s in
            guard !s.closed else { return }
            body(self, &s)
            flush(&s)
        }
    }

    // MARK: - Watches

    /// Makes the watches below `directory` match the disk and the filter: adds a watch to every
    /// wanted folder *before* listing it, removes watches of folders no longer there.
    private func resync(_ root: PathBytes, directory: PathBytes, _ s: inout State, reportLimit: Bool = true) {
        guard let r = s.roots[root] else { return }
        if directory != root {
            guard let relative = directory.relative(to: root), r.filter.shouldDescend(relative) else {
                removeWatches(under: directory, &s)
                return
            }
        }
        var visited: Set<WatchDescriptor> = []
        var stack: [PathBytes] = [directory]
        var hitLimit = false
        while let dir = stack.popLast() {
            let isRoot = dir == root
            let wd: WatchDescriptor
            do {
                wd = try addWatch(dir, isRoot: isRoot, &s)
            } catch {
                if error == .noSpace {
                    hitLimit = true
                    break
                }
                if isRoot && (error == .noEntry || error == .notDirectory) {
                    rootVanished(root, &s)
                    if s.roots[root]?.missing != true {
                        // Missing at startup: `rootVanished` guards on `missing`, so mark it here.
                        s.roots[root]?.missing = true
                    }
                    scheduleRetry(root, &s)
                    return
                }
                if error != .noEntry && error != .notDirectory {
                    logger.warning(
                        "cannot watch folder", metadata: ["watch.path": "\(dir.display)", "error": "\(error)"])
                }
                continue
            }
            visited.insert(wd)
            let entries: [DirectoryListing.Entry]
            do {
                entries = try DirectoryListing.entries(of: dir, followLink: isRoot)
            } catch {
                if error != .noEntry && error != .notDirectory {
                    logger.warning(
                        "cannot list folder", metadata: ["watch.path": "\(dir.display)", "error": "\(error)"])
                }
                continue
            }
            for entry in entries {
                guard entry.kind == .directory || entry.kind == nil, r.filter.acceptsDirectoryName(entry.name) else {
                    continue
                }
                let path = dir.appending(entry.name)
                if entry.kind == nil {
                    guard let st = FileSystem.lstatIfExists(path), st.kind == .directory else { continue }
                }
                guard let relative = path.relative(to: root), r.filter.shouldDescend(child: relative) else { continue }
                stack.append(path)
            }
        }
        if hitLimit {
            enterDegraded(root, report: reportLimit, &s)
            return
        }
        if directory == root, let wd = watchConfigFolder(of: root, &s) { visited.insert(wd) }
        // Sweep: watches below `directory` that the walk did not reach are stale.
        let stale = s.wdToPath.filter { wd, path in
            path.isWithin(directory) && !visited.contains(wd)
                && !s.roots.keys.contains { $0 != root && path.isWithin($0) }
        }
        for (wd, _) in stale { removeWatch(wd, &s) }
    }

    private func enterDegraded(_ root: PathBytes, report: Bool, _ s: inout State) {
        guard var r = s.roots[root] else { return }
        let wasDegraded = r.degraded
        r.degraded = true
        s.roots[root] = r
        if !wasDegraded && report {
            let message = Self.watchLimitMessage(options.fallbackRescanInterval)
            logger.error("inotify watch limit reached", metadata: ["watch.root": "\(root.display)"])
            s.output.append(.problem(root: root, kind: .watchLimit, message: message))
        }
        scheduleRetry(root, &s)
    }

    private func addWatch(_ dir: PathBytes, isRoot: Bool, _ s: inout State) throws(InotifyDescriptor.Errno)
        -> WatchDescriptor
    {
        if let limit = options.maxWatches, s.pathToWd[dir] == nil, s.wdToPath.count >= limit {
            throw .noSpace
        }
        var mask = InotifyEvent.Mask.agentDirectory
        if isRoot { mask.remove(.dontFollow) }  // the user may name a root through a link
        let wd = try fd.addWatch(dir, mask: mask)
        if let previous = s.wdToPath[wd], previous != dir, s.pathToWd[previous] == wd {
            s.pathToWd[previous] = nil
        }
        s.wdToPath[wd] = dir
        s.pathToWd[dir] = wd
        s.retired.remove(wd)
        return wd
    }

    static let configFolderName = Array(".tk".utf8)
    static let configName = Array("config.json".utf8)
    static let dictionaryName = Array("dictionary.txt".utf8)

    /// The root whose `.tk` folder `directory` is, if it is one.
    static func rootOfConfigFolder(_ directory: PathBytes) -> PathBytes? {
        guard directory.lastComponent.bytes == configFolderName else { return nil }
        return directory.parent
    }

    /// Watches `<root>/.tk` (not below it) so that edits of the project's `config.json` are seen.
    /// The agent's sidecar writes land in the same folder; their names are ignored.
    @discardableResult
    private func watchConfigFolder(of root: PathBytes, _ s: inout State) -> WatchDescriptor? {
        let folder = root.appending(PathBytes(Self.configFolderName))
        guard FileSystem.lstatIfExists(folder)?.kind == .directory else { return nil }
        return try? addWatch(folder, isRoot: false, &s)
    }

    private func removeWatches(under directory: PathBytes, _ s: inout State) {
        let doomed = s.wdToPath.filter { $0.value.isWithin(directory) }.map(\.key)
        for wd in doomed { removeWatch(wd, &s) }
    }

    private func removeWatch(_ wd: WatchDescriptor, _ s: inout State) {
        guard let path = s.wdToPath.removeValue(forKey: wd) else { return }
        if s.pathToWd[path] == wd { s.pathToWd[path] = nil }
        do {
            try fd.removeWatch(wd)
            s.retired.insert(wd)
        } catch {
            // EINVAL: the kernel already dropped it; its IN_IGNORED may still be queued.
            s.retired.insert(wd)
        }
    }

    // MARK: - Helpers

    static func normalized(_ root: PathBytes) -> PathBytes {
        var bytes = root.bytes
        while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        return PathBytes(bytes)
    }

    static func statFollowing(_ path: PathBytes) -> FileStat? {
        var st = stat()
        guard path.withCString({ stat($0, &st) }) == 0 else { return nil }
        let isDirectory = (st.st_mode & S_IFMT) == S_IFDIR
        return FileStat(
            kind: isDirectory ? .directory : .other, size: Int64(st.st_size), mtimeNs: 0, ctimeNs: 0,
            inode: UInt64(st.st_ino), device: UInt64(st.st_dev))
    }

    static func dispatchInterval(_ d: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = d.components
        let ns = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !ns.overflow else { return .never }
        return .nanoseconds(Int(clamping: ns.partialValue + attoseconds / 1_000_000_000))
    }

    static func readLimit(_ name: String) -> Int? {
        readLimit(PathBytes("/proc/sys/fs/inotify/\(name)"))
    }

    static func readLimit(_ path: PathBytes) -> Int? {
        guard let bytes = try? FileSystem.read(path, limit: 64) else { return nil }
        return Int(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func describe(_ d: Duration) -> String {
        let seconds = d.components.seconds
        if seconds >= 120 && seconds % 60 == 0 { return "\(seconds / 60) min" }
        if seconds >= 1 { return "\(seconds) s" }
        return "\(d.components.attoseconds / 1_000_000_000_000_000) ms"
    }

    /// The one-line remedy shown when `inotify_add_watch` fails with `ENOSPC`.
    static func watchLimitMessage(_ interval: Duration) -> String {
        // In a container the user namespace's own limit (`user.max_inotify_watches`) may be lower.
        let limits = [readLimit("max_user_watches"), readLimit(PathBytes("/proc/sys/user/max_inotify_watches"))]
        let current = limits.compactMap { $0 }.min()
        let limit = current.map { "fs.inotify.max_user_watches=\($0)" } ?? "fs.inotify.max_user_watches"
        let suggested = max(524_288, (current ?? 0) * 2)
        return "watch limit reached (\(limit)): run 'sudo sysctl fs.inotify.max_user_watches=\(suggested)'"
            + " (add it to /etc/sysctl.d/ to keep it); falling back to rescans every \(describe(interval))"
    }

    static func missingMessage(_ root: PathBytes, _ interval: Duration) -> String {
        "project folder \(root.display) is missing or not a folder; checking again every \(describe(interval))"
    }
}
