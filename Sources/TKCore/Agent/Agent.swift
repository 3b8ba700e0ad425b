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

    public init(paths: Paths, explicitProjects: [PathBytes], environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.paths = paths
        self.explicitProjects = explicitProjects
        self.environment = environment
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
        self.indexer = Indexer(database: db, logger: logger)
        self.startedAt = Date()
        self.loaded = loaded
        self.nudge = nudge
        let environment = options.environment
        let notifications = loaded.config.notifications
        let observers = DocumentObservers()
        self.documentObservers = observers
        let catalog = AdvisorCatalog.load(paths: options.paths)
        self.pipeline = DocumentPipeline(
            database: db, logger: logger, sidecars: .shared(paths: options.paths),
            catalog: catalog, observers: observers,
            resolver: DocumentResolver(paths: options.paths, environment: options.environment, catalog: catalog),
            notify: { title, body, document in
                Task { await Notifier(settings: notifications, environment: environment, logger: logger).notify(title: title, body: body, document: document) }
            })
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
    /// extensions (the review queue), signals, indexing with the document pipeline, watching. The
    /// group starts them in this order and stops them in the reverse one.
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
        list += extensions.map { ExtensionService(agentExtension: $0) }
        list.append(SignalService(agent: self, watcher: watcher, signals: signals, extensions: extensions))
        list.append(IndexService(agent: self, settler: settler, database: database))
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
            let outcome: Result<(IndexReport, [PathBytes: String?], [IndexedChange], Set<FaultRecovery.DiskFault>), any Error> = await offload {
                var sidecarProblems: [PathBytes: String?] = [:]
                var diskFaults = Set<FaultRecovery.DiskFault>()
                var all: [IndexedChange] = []
                // The project's inputs (configuration, dictionary, names) as its files say now: a
                // document whose recorded derivation key differs is derived again.
                let project = pipeline.resolver.project(root, watched: true)
                let report = try indexer.sync(
                    root: root, projectID: state.id, scopes: scopes, filter: state.filter,
                    maxFileBytes: config.watch.maxFileBytes, refresh: refresh,
                    stale: pipeline.staleDerivations(project: project), progress: nil
                ) { changes in
                    for (k, v) in pipeline.apply(changes, project: project, diskFaults: &diskFaults) { sidecarProblems[k] = v }
                    ProgressHooks.documentsChanged(paths: paths, database: pipeline.database, root: root, changes: changes, config: config, logger: pipeline.logger, notify: { title, body in pipeline.notify(title, body, root.display) })
                    // A refresh of unchanged content is not news to the extensions (review queue). The
                    // parsed documents are not kept: a first scan would hold every one at once.
                    all.append(contentsOf: changes.lazy.filter { change in
                        if case .updated(_, _, let sha, let previous) = change { return sha != previous }
                        return true
                    }.map(\.indexed))
                }
                if scopes.contains(.folder(PathBytes([]))) {
                    for (k, v) in pipeline.verifySidecars(root: root) { sidecarProblems[k] = v }
                }
                // A change of the project-wide inputs (a name used a third time, the dictionary):
                // the whole project is gone through again, and the documents whose key changed re-derived.
                if report.updated + report.deleted > 0, pipeline.resolver.project(root).key != project.key {
                    settler?.touch(.folder(root: root, relative: PathBytes([])))
                }
                return (report, sidecarProblems, all, diskFaults)
            }
            switch outcome {
            case .success(let (report, sidecarProblems, changes, diskFaults)):
                if !changes.isEmpty {
                    for ext in extensions { await ext.documentsChanged(root: root, changes: changes, config: config) }
                }
                for (rel, problem) in report.problems { projects[root]?.problems[.document(rel)] = problem }
                clearVanishedProblems(root: root, scopes: scopes)
                for (rel, v) in sidecarProblems { projects[root]?.problems[.sidecar(rel)] = v }
                if !diskFaults.isEmpty { Task { [settler] in try? await Task.sleep(for: FaultRecovery.retryDelay); settler?.touch(.refresh(root: root)) } }
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
                Task { [settler] in try? await Task.sleep(for: FaultRecovery.retryDelay); settler?.touch(.folder(root: root, relative: PathBytes([]))) }
                logger.error("indexing failed", metadata: ["project.path": "\(root.display)", "error": "\(error)"])
            }
        }
        if let counts = try? database.counts() {
            for (root, n) in counts.perProject where projects[root] != nil { projects[root]?.documents = n }
        }
        markStatusDirty()
        return big
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
            return .init(path: root.display, documents: s.documents, watching: s.watching,
                         problems: s.problems.keys.sorted().compactMap { s.problems[$0] }, journey: journeys[root])
        }
        let total = projects.values.reduce(0) { $0 + $1.documents }
        var snap = StatusSnapshot(
            running: true, pid: getpid(), uptimeS: Int(now.timeIntervalSince(startedAt)),
            startedAt: RFC3339.string(startedAt), updatedAt: RFC3339.string(now), projects: projectList,
            index: .init(documents: total, pending: pendingCount + awaitingFirstScan.count), problems: globalProblems + loaded.problems)
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
}

