import Dispatch
import Foundation
import Logging
import ServiceLifecycle

/// What `tk-agent run` was asked to do.
public struct AgentOptions: Sendable {
    public var paths: Paths
    /// The projects named on the command line; empty means the configured ones, else the cwd.
    public var explicitProjects: [PathBytes]
    public var environment: [String: String]
    /// Told where each whole-project scan stands (documents done of total; nil when it ended), from
    /// the indexing thread: `run` draws a progress line with it on a terminal.
    public var scanProgress: (@Sendable (PathBytes, ScanProgress.Entry?) -> Void)?

    public init(paths: Paths, explicitProjects: [PathBytes], environment: [String: String] = ProcessInfo.processInfo.environment,
                scanProgress: (@Sendable (PathBytes, ScanProgress.Entry?) -> Void)? = nil) {
        self.paths = paths
        self.explicitProjects = explicitProjects
        self.environment = environment
        self.scanProgress = scanProgress
    }
}

/// The agent: watches the projects, keeps the index and the sidecars in line with every save,
/// and publishes its state to `status.json`.
public actor Agent {
    struct ProjectState {
        var id: Int64
        var config: Configuration
        var filter: PathFilter
        var documents = 0
        var watching = false
        /// Keyed problems: what the problem is about → message.
        var problems: [ProblemKey: String] = [:]
        /// What `<root>/.tk/config.json` looked like when `config` was loaded (nil: absent).
        var configStamp: FileStat?
    }

    enum Pending: Hashable, Sendable {
        case file(root: PathBytes, relative: PathBytes)
        case folder(root: PathBytes, relative: PathBytes)
        /// Recompute every document's quick findings (the project's heuristics settings changed).
        case refresh(root: PathBytes)
    }

    let options: AgentOptions
    let logger: Logger
    let database: AppDatabase
    let indexer: Indexer
    let pipeline: DocumentPipeline
    let startedAt: Date
    var loaded: LoadedConfiguration
    var projects: [PathBytes: ProjectState] = [:]
    var globalProblems: [String] = []
    var pendingCount = 0
    /// Roots whose first full scan has not finished yet (they count as pending work).
    var awaitingFirstScan = Set<PathBytes>()
    let extensions: [any AgentExtension]
    let nudge: StatusNudge
    /// Who hears of every change to a document's state, from the pipeline and the review queue alike
    /// (see `DocumentOwner`): add observers before `run`.
    public nonisolated let documentObservers: DocumentObservers
    /// The latest facts the extensions contributed (queue, provider, usage).
    var extensionStatus: StatusSnapshot?
    /// Work runs here so that long rescans never block the cooperative pool.
    let workQueue = DispatchQueue(label: "tk-agent.index")
    /// Set when the agent stops: the scan in progress drops what it has not committed.
    let stop = StopFlag()
    /// Where the current whole-project scans stand (for `status` and the progress line).
    let scans: ScanProgress
    /// Desktop notifications to show, in order, by the notification service.
    let notifications: AsyncStream<DesktopNotification>
    /// Whole projects to go through again after a pause (a full disk, a failed index), by the
    /// indexing service.
    let retries: AsyncStream<Pending>
    let retryContinuation: AsyncStream<Pending>.Continuation
    /// Asks the passage service for a backfill (after a big scan).
    let backfills: AsyncStream<Void>
    let backfillContinuation: AsyncStream<Void>.Continuation

    /// A desktop notification: title, body, the document's absolute path.
    struct DesktopNotification: Sendable {
        var title: String
        var body: String
        var document: String
    }
    /// The watcher and the settler of the current run (set by `run`).
    var watcher: TreeWatcher?
    var settler: Settler<Pending>?

    public init(options: AgentOptions, logger: Logger) throws {
        self.options = options
        self.logger = logger
        let (db, recovered) = try AppDatabase.openRecovering(paths: options.paths, logger: logger)
        let loaded = ConfigurationLoader.load(paths: options.paths, environment: options.environment)
        let nudge = StatusNudge()
        self.database = db
        self.startedAt = Date()
        self.loaded = loaded
        self.nudge = nudge
        var indexer = Indexer(database: db, logger: logger)
        // Batches bounded by bytes keep the peak flat, and one batch is what a stop waits for.
        indexer.batchSize = 128
        indexer.batchBytes = 512 << 10
        self.indexer = indexer
        let (notifications, notify) = AsyncStream<DesktopNotification>.makeStream(bufferingPolicy: .bufferingNewest(32))
        self.notifications = notifications
        let retryPair = AsyncStream<Pending>.makeStream()
        self.retries = retryPair.stream
        self.retryContinuation = retryPair.continuation
        let backfillPair = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.backfills = backfillPair.stream
        self.backfillContinuation = backfillPair.continuation
        let onScan = options.scanProgress
        self.scans = ScanProgress { root, entry in
            nudge.nudge()
            onScan?(root, entry)
        }
        let observers = DocumentObservers()
        self.documentObservers = observers
        let catalog = AdvisorCatalog.load(paths: options.paths)
        self.pipeline = DocumentPipeline(
            database: db, logger: logger, sidecars: .shared(paths: options.paths),
            catalog: catalog, observers: observers,
            resolver: DocumentResolver(paths: options.paths, environment: options.environment, catalog: catalog),
            notify: { title, body, document in notify.yield(DesktopNotification(title: title, body: body, document: document)) })
        self.extensions = makeAgentExtensions(
            paths: options.paths, configuration: loaded, database: db, logger: logger, nudge: nudge, observers: observers)
        if let recovered { globalProblems.append(recovered) }
    }

    /// The project roots this run watches.
    func resolveRoots() -> [PathBytes] {
        if !options.explicitProjects.isEmpty { return options.explicitProjects }
        let configured = ProjectRegistry.configured(loaded.config)
        if !configured.isEmpty { return configured }
        return [FileSystem.absolute(".")]
    }

    /// The agent's parts as services for one `ServiceGroup` (`AgentServices.swift`): status,
    /// notifications, extensions (the review queue, embeddings), passages, signals, indexing with
    /// the document pipeline, watching. The group starts them in this order and stops them in the
    /// reverse one; each stops taking work at once and ends what it is doing (a batch) or drops it
    /// for the next start, so that nothing runs once the group has returned.
    public func services() throws -> [any Service] {
        let paths = options.paths
        let environment = options.environment
        let watcher = try TreeWatcher(
            filter: { root in
                PathFilter(ignore: ConfigurationLoader.load(paths: paths, project: root, environment: environment).config.watch.ignore)
            },
            rescanInterval: rescanInterval(loaded.config), logger: logger,
            options: watcherOptions(loaded.config))
        let settleMs = max(10, loaded.config.watch.settleMs)
        let settler = Settler<Pending>(
            settle: .milliseconds(settleMs),
            maxDelay: .milliseconds(max(settleMs, loaded.config.watch.maxSettleMs)))
        self.watcher = watcher
        self.settler = settler
        try applyProjects(watcher: watcher)
        markStatusDirty()
        let signals = SignalStream.make([SIGHUP, SIGUSR1])
        var list: [any Service] = [StatusService(agent: self, nudge: nudge, writer: StatusWriter(paths: paths))]
        list.append(NotificationService(
            notifications: notifications,
            notifier: Notifier(settings: loaded.config.notifications, environment: environment, logger: logger)))
        list += extensions.map { ExtensionService(agentExtension: $0) }
        list.append(PassageService(database: database, requests: backfills, finish: { [backfillContinuation] in backfillContinuation.finish() }))
        list.append(SignalService(agent: self, watcher: watcher, signals: signals, extensions: extensions))
        list.append(IndexService(agent: self, settler: settler, database: database, stop: stop, retries: retries,
                                 finishRetries: { [retryContinuation] in retryContinuation.finish() }, backfill: { [backfillContinuation] in backfillContinuation.yield() }))
        list.append(WatchService(agent: self, watcher: watcher, settler: settler))
        return list
    }

    // MARK: Projects

    func applyProjects(watcher: TreeWatcher) throws {
        let roots = resolveRoots()
        let wanted = Set(roots)
        for root in projects.keys where !wanted.contains(root) {
            watcher.removeRoot(root)
            projects[root] = nil
            awaitingFirstScan.remove(root)
            logger.info("project removed", metadata: ["project.path": "\(root.display)"])
        }
        for root in roots where projects[root] == nil {
            let stamp = Self.projectConfigStamp(root)
            let projectLoaded = ConfigurationLoader.load(paths: options.paths, project: root, environment: options.environment)
            var state = ProjectState(
                id: try database.projectID(for: root), config: projectLoaded.config,
                filter: PathFilter(ignore: projectLoaded.config.watch.ignore))
            state.configStamp = stamp
            for p in projectLoaded.problems { state.problems[.config(p)] = p }
            // Problems of documents that will not be read again because they did not change.
            if let stored = try? database.documentProblems(projectID: state.id) {
                for (rel, message) in stored { state.problems[.document(rel)] = message }
            }
            if !DirectoryWalker.isFolderFollowingLinks(root) {
                state.problems[.root] = "folder missing: \(root.display)"
                projects[root] = state
                continue
            }
            projects[root] = state
            awaitingFirstScan.insert(root)
            watcher.addRoot(root)
            projects[root]?.watching = true
            logger.info("watching project", metadata: ["project.path": "\(root.display)"])
        }
    }

    /// The `lstat` of a project's `.tk/config.json`, to tell whether it changed since it was loaded.
    static func projectConfigStamp(_ root: PathBytes) -> FileStat? {
        FileSystem.lstatIfExists(root.appending(".tk").appending("config.json"))
    }

    /// Reloads a project's configuration when its `.tk/config.json` changed since it was loaded.
    ///
    /// Called when the watcher reports the file changed (`.configChanged`) and, as a safety net,
    /// before each batch of that project (one `lstat`). New `watch.ignore` globs re-add the root to
    /// the watcher, which rescans it; new heuristics settings refresh every sidecar of the project.
    /// - Parameter force: reload even when the file did not change (the user config did: SIGHUP).
    func refreshProjectConfiguration(_ root: PathBytes, force: Bool = false) {
        guard var state = projects[root] else { return }
        let stamp = Self.projectConfigStamp(root)
        guard force || stamp != state.configStamp else { return }
        let projectLoaded = ConfigurationLoader.load(paths: options.paths, project: root, environment: options.environment)
        let old = state.config
        state.configStamp = stamp
        state.config = projectLoaded.config
        state.filter = PathFilter(ignore: projectLoaded.config.watch.ignore)
        for key in state.problems.keys { if case .config = key { state.problems[key] = nil } }
        for p in projectLoaded.problems { state.problems[.config(p)] = p }
        projects[root] = state
        logger.info("project configuration reloaded", metadata: ["project.path": "\(root.display)"])
        let new = projectLoaded.config
        if old.watch.ignore != new.watch.ignore, let watcher {
            watcher.removeRoot(root)
            watcher.addRoot(root)
        }
        if old.heuristics != new.heuristics || old.storyType != new.storyType || old.advisors != new.advisors
            || old.draftStage != new.draftStage || old.watch.maxFileBytes != new.watch.maxFileBytes
        {
            settler?.touch(.refresh(root: root))
        }
        markStatusDirty()
    }

    /// A missing root or one over the watch limit is checked again at least as often as the
    /// periodic rescan runs (every minute by default, never more than once a second).
    func watcherOptions(_ c: Configuration) -> TreeWatcherOptions {
        var interval = Duration.seconds(60)
        if let periodic = rescanInterval(c) { interval = max(.seconds(1), min(interval, periodic)) }
        return TreeWatcherOptions(fallbackRescanInterval: interval)
    }

    func rescanInterval(_ c: Configuration) -> Duration? {
        c.watch.rescanMinutes > 0 ? .seconds(c.watch.rescanMinutes * 60) : nil
    }

    func reload(watcher: TreeWatcher) {
        loaded = ConfigurationLoader.load(paths: options.paths, environment: options.environment)
        // Projects already watched take in the user config's new values too.
        for root in projects.keys { refreshProjectConfiguration(root, force: true) }
        do { try applyProjects(watcher: watcher) } catch {
            logger.error("reload failed", metadata: ["error": "\(error)"])
        }
        markStatusDirty()
    }

    // MARK: Events

    func handle(_ event: WatchEvent, settler: Settler<Pending>) {
        switch event {
        case .changed(let root, let path):
            guard let rel = path.relative(to: root) else { return }
            settler.touch(.file(root: root, relative: rel))
        case .rescan(let root, let dir, let reason):
            let rel = dir.relative(to: root) ?? PathBytes([])
            logger.debug("rescan", metadata: ["dir": "\(dir.display)", "reason": "\(reason)"])
            settler.touch(.folder(root: root, relative: rel))
        case .removed(let root, let dir):
            let rel = dir.relative(to: root) ?? PathBytes([])
            settler.touch(.folder(root: root, relative: rel))
        case .problem(let root, let kind, let message):
            projects[root]?.problems[.watch] = message
            if kind.stopsWatching { projects[root]?.watching = false }
        case .problemCleared(let root):
            projects[root]?.problems[.watch] = nil
            projects[root]?.watching = true
        case .configChanged(let root):
            refreshProjectConfiguration(root)
            // The project's inputs may have changed (the dictionary): a walk re-derives the
            // documents whose derivation key changed, and only those.
            settler.touch(.folder(root: root, relative: PathBytes([])))
        }
        pendingCount = settler.pendingCount
        markStatusDirty()
    }

    func setPending(_ n: Int) {
        if pendingCount != n {
            pendingCount = n
            markStatusDirty()
        }
    }

    /// Indexes a settled batch, project by project, then updates sidecars.
    /// - Returns: whether it was a big scan (many documents read and parsed): memory worth giving back.
    func process(_ batch: [Pending]) async -> Bool {
        var big = false
        var byRoot: [PathBytes: [Indexer.Scope]] = [:]
        var refreshRoots = Set<PathBytes>()
        for item in batch {
            switch item {
            case .file(let root, let rel): byRoot[root, default: []].append(.file(rel))
            case .folder(let root, let rel): byRoot[root, default: []].append(.folder(rel))
            case .refresh(let root):
                refreshRoots.insert(root)
                byRoot[root, default: []].append(.folder(PathBytes([])))
            }
        }
        for (root, scopes) in byRoot {
            refreshProjectConfiguration(root)
            guard let state = projects[root] else { continue }
            let indexer = self.indexer
            let pipeline = self.pipeline
            let config = state.config
            let refresh = refreshRoots.contains(root)
            let paths = options.paths
            let settler = self.settler
            let stop = self.stop
            let scans = self.scans
            let whole = scopes.contains(.folder(PathBytes([])))
            let lanes = max(1, ProcessInfo.processInfo.activeProcessorCount)
            if stop.isSet { break }
            let outcome: Result<(IndexReport, [PathBytes: String?], [IndexedChange], Set<FaultRecovery.DiskFault>, Bool), any Error> = await offload {
                var sidecarProblems: [PathBytes: String?] = [:]
                var diskFaults = Set<FaultRecovery.DiskFault>()
                var all: [IndexedChange] = []
                var report = IndexReport()
                var stopped = false
                // The project's inputs (configuration, dictionary, names) as its files say now: a
                // document whose recorded derivation key differs is derived again.
                let project = pipeline.resolver.project(root, watched: true)
                do {
                report = try indexer.sync(
                    root: root, projectID: state.id, scopes: scopes, filter: state.filter,
                    maxFileBytes: config.watch.maxFileBytes, refresh: refresh,
                    stale: pipeline.staleDerivations(project: project), progress: nil,
                    documents: whole ? SyncCounts { done, total in scans.update(root, done: done, total: total) } : nil,
                    stop: stop, passagesInBulk: true
                ) { changes in
                    for (k, v) in pipeline.apply(changes, project: project, diskFaults: &diskFaults, lanes: lanes, stop: stop) { sidecarProblems[k] = v }
                    ProgressHooks.documentsChanged(paths: paths, database: pipeline.database, root: root, changes: changes, config: config, logger: pipeline.logger, notify: { title, body in pipeline.notify(title, body, root.display) })
                    // A refresh of unchanged content is not news to the extensions (review queue). The
                    // parsed documents are not kept: a first scan would hold every one at once.
                    all.append(contentsOf: changes.lazy.filter { change in
                        if case .updated(_, _, let sha, let previous) = change { return sha != previous }
                        return true
                    }.map(\.indexed))
                }
                } catch is CancellationError {
                    // Stopping: the committed batches went through the pipeline; the rest is the
                    // next start's (changed or stale documents).
                    stopped = true
                }
                if whole && !stopped {
                    for (k, v) in pipeline.verifySidecars(root: root) { sidecarProblems[k] = v }
                }
                // A change of the project-wide inputs (a name used a third time, the dictionary):
                // the whole project is gone through again, and the documents whose key changed re-derived.
                if !stopped, report.updated + report.deleted > 0, pipeline.resolver.project(root).key != project.key {
                    settler?.touch(.folder(root: root, relative: PathBytes([])))
                }
                return (report, sidecarProblems, all, diskFaults, stopped)
            }
            switch outcome {
            case .success(let (report, sidecarProblems, changes, diskFaults, stopped)):
                if !changes.isEmpty {
                    for ext in extensions { await ext.documentsChanged(root: root, changes: changes, config: config) }
                }
                for (rel, v) in sidecarProblems { projects[root]?.problems[.sidecar(rel)] = v }
                refreshValeProblems(root)
                if stopped { break }
                for (rel, problem) in report.problems { projects[root]?.problems[.document(rel)] = problem }
                clearVanishedProblems(root: root, scopes: scopes)
                if !diskFaults.isEmpty { retryContinuation.yield(.refresh(root: root)) }
                projects[root]?.problems[.index] = nil
                if scopes.contains(.folder(PathBytes([]))) { awaitingFirstScan.remove(root) }
                // Documents read and parsed, new or again (sidecars derived after `index`): either
                // way the memory of the batches is worth giving back.
                if report.updated + report.reread > 256 { big = true }
                if report.updated + report.deleted > 0 {
                    logger.info("indexed", metadata: [
                        "project.path": "\(root.display)", "updated": "\(report.updated)", "deleted": "\(report.deleted)",
                    ])
                }
            case .failure(let error):
                projects[root]?.problems[.index] = FaultRecovery.indexProblem(error, dataDirectory: options.paths.dataDirectory)
                // Try the whole project again soon: the disk may have room again, the folder may be writable.
                retryContinuation.yield(.folder(root: root, relative: PathBytes([])))
                logger.error("indexing failed", metadata: ["project.path": "\(root.display)", "error": "\(error)"])
            }
        }
        if let counts = try? database.counts() {
            for (root, n) in counts.perProject where projects[root] != nil { projects[root]?.documents = n }
        }
        // The scans are over: the counts above take over from their progress.
        for root in byRoot.keys { scans.finish(root) }
        markStatusDirty()
        return big
    }

    /// The project's Vale lines in `status` (rules that do not load, rule types skipped), as the
    /// styles read now: the walk that follows a change of the ini or a rule file updates them.
    func refreshValeProblems(_ root: PathBytes) {
        guard var problems = projects[root]?.problems else { return }
        let engine = ValeEngine.discover(from: root.display)
        let lines = (engine?.problems ?? []) + (engine?.runtimeProblems ?? [])
        for key in problems.keys { if case .vale(let line) = key, !lines.contains(line) { problems[key] = nil } }
        for line in lines { problems[.vale(line)] = line }
        if problems != projects[root]?.problems { projects[root]?.problems = problems }
    }

    /// Drops the problems of documents that no longer exist below the rescanned folders (a deleted
    /// folder reports no single files, so their problems would otherwise stay in `status`).
    func clearVanishedProblems(root: PathBytes, scopes: [Indexer.Scope]) {
        guard let problems = projects[root]?.problems else { return }
        var folders: [PathBytes] = []
        for case .folder(let f) in scopes { folders.append(f) }
        guard !folders.isEmpty else { return }
        for case .document(let rel) in problems.keys {
            let inScope = folders.contains { f in f.isEmpty || rel == f || rel.isWithin(f) }
            guard inScope else { continue }
            if FileSystem.lstatIfExists(root.appending(rel))?.kind != .regular {
                projects[root]?.problems[.document(rel)] = nil
            }
        }
    }

    /// Runs blocking work on the index queue.
    func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async -> Result<T, any Error> {
        await withCheckedContinuation { cont in
            workQueue.async { cont.resume(returning: Result { try body() }) }
        }
    }

    // MARK: Status

    func snapshot() -> StatusSnapshot {
        let now = Date()
        let journeys = (try? database.journeySummary()) ?? [:]
        let projectList = projects.keys.sorted().compactMap { root -> StatusSnapshot.Project? in
            guard let s = projects[root] else { return nil }
            return .init(path: root.display, documents: scans.entry(root)?.done ?? s.documents, watching: s.watching,
                         problems: s.problems.keys.sorted().compactMap { s.problems[$0] }, journey: journeys[root])
        }
        // A project being scanned whole counts its documents done of those in scope; the others,
        // what the index holds. A first scan not started yet counts as one pending item.
        var done = 0, total = 0, remaining = 0
        for (root, s) in projects {
            if let scan = scans.entry(root) {
                done += scan.done
                total += scan.total
                remaining += max(0, scan.total - scan.done)
            } else {
                done += s.documents
                total += s.documents
                if awaitingFirstScan.contains(root) { remaining += 1 }
            }
        }
        var snap = StatusSnapshot(
            running: true, pid: getpid(), uptimeS: Int(now.timeIntervalSince(startedAt)),
            startedAt: RFC3339.string(startedAt), updatedAt: RFC3339.string(now), projects: projectList,
            index: .init(documents: done, total: total, pending: pendingCount + remaining), problems: globalProblems + loaded.problems)
        snap.usage.budgetUsd = loaded.config.review.dailyBudgetUsd
        return snap
    }

    /// Asks the status service for a write (it coalesces them to at most one every 100 ms).
    func markStatusDirty() { nudge.nudge() }

    /// The snapshot with the extensions' facts.
    func fullSnapshot() async -> StatusSnapshot {
        var snap = snapshot()
        for ext in extensions { await ext.contribute(to: &snap) }
        return snap
    }

    /// Lets an extension ask for a status refresh (a round started or finished).
    public func statusChanged() { markStatusDirty() }

    /// Interrupts the database statements running now (`AppDatabase.interrupt`): for a stop that
    /// has waited long enough for them.
    public nonisolated func interruptDatabaseWork() { database.interrupt() }
}

