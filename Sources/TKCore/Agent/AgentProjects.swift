import Foundation
import Logging

/// What the agent knows of its projects: each one's configuration, path filter, problems, whether
/// it is watched, its document count and whether its first whole scan is done; with the user
/// configuration, the global problems and the work pending, that is what `status` says.
///
/// Owned by the projects service (`ProjectsService`), which applies the other services' events to
/// it (`handle`: the watcher's problems and configuration changes, a batch's outcome, a SIGHUP) and
/// writes `status` from it; no other service holds it, and it calls none. When what `status` says
/// changes it asks for a write (`StatusNudge`), and a project whose heuristics settings changed gets
/// its sidecars refreshed through the settler. The roots it watches, with their ids, are published
/// in `watched` for the indexing service.
actor AgentProjects {
    struct ProjectState {
        var id: Int64
        var config: Configuration
        var filter: PathFilter
        var documents = 0
        var watching = false
        /// Keyed problems: what the problem is about → message.
        var problems: [ProblemKey: String] = [:]

        /// The configuration's problems (a broken file, a wrong type), as they stand in `problems`.
        var configProblems: Set<String> {
            Set(problems.keys.compactMap { if case .config(let p) = $0 { p } else { nil } })
        }
    }

    let options: AgentOptions
    let configurations: ConfigurationStore
    let logger: Logger
    let database: AppDatabase
    let startedAt: Date
    let nudge: StatusNudge
    /// Where the current whole-project scans stand: their counts stand in for the index's.
    let scans: ScanProgress
    /// The roots watched now and their ids, for the indexing service.
    let watched: WatchedProjects
    private(set) var loaded: LoadedConfiguration
    var projects: [PathBytes: ProjectState] = [:]
    var globalProblems: [String]
    var pendingCount = 0
    /// Roots whose first full scan has not finished yet (they count as pending work).
    var awaitingFirstScan = Set<PathBytes>()
    /// The last journey counts read for `status`, and when (see `journeySummary`).
    private var journeys: (at: ContinuousClock.Instant, value: [PathBytes: JourneySummary])?
    /// The watcher and the settler of the current run (set by `start`).
    private(set) var watcher: TreeWatcher?
    private(set) var settler: Settler<PendingWork>?

    init(options: AgentOptions, configurations: ConfigurationStore, database: AppDatabase, logger: Logger,
         nudge: StatusNudge, scans: ScanProgress, watched: WatchedProjects, globalProblems: [String], startedAt: Date = Date()) {
        self.options = options
        self.watched = watched
        self.configurations = configurations
        self.loaded = configurations.user()
        self.database = database
        self.logger = logger
        self.nudge = nudge
        self.scans = scans
        self.globalProblems = globalProblems
        self.startedAt = startedAt
    }

    /// Takes the run's watcher and settler and starts watching the projects.
    func start(watcher: TreeWatcher, settler: Settler<PendingWork>) throws {
        self.watcher = watcher
        self.settler = settler
        try applyProjects()
        markStatusDirty()
    }

    // MARK: Projects

    /// The project roots this run watches.
    func resolveRoots() -> [PathBytes] {
        if !options.explicitProjects.isEmpty { return options.explicitProjects }
        let configured = ProjectRegistry.configured(loaded.config)
        if !configured.isEmpty { return configured }
        return [FileSystem.absolute(".")]
    }

    /// Watches the roots this run wants and forgets those it no longer does (after `start`).
    func applyProjects() throws {
        guard let watcher else { return }
        let roots = resolveRoots()
        let wanted = Set(roots)
        for root in projects.keys where !wanted.contains(root) {
            watcher.removeRoot(root)
            projects[root] = nil
            watched.set(root, id: nil)
            awaitingFirstScan.remove(root)
            logger.info("project removed", metadata: ["project.path": "\(root.display)"])
        }
        for root in roots where projects[root] == nil {
            let projectLoaded = configurations.load(project: root)
            var state = ProjectState(
                id: try database.projectID(for: root), config: projectLoaded.config,
                filter: PathFilter(ignore: projectLoaded.config.watch.ignore))
            for p in projectLoaded.problems { state.problems[.config(p)] = p }
            // Problems of documents that will not be read again because they did not change.
            if let stored = try? database.documentProblems(projectID: state.id) {
                for (rel, message) in stored { state.problems[.document(rel)] = message }
            }
            watched.set(root, id: state.id)
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

    /// Takes in a project's configuration when it changed since it was loaded (its `.tk/config.json`
    /// or the user config: the store reads a file again only when its `stat` moved).
    ///
    /// Called when the watcher reports the file changed and, as a safety net, before each batch of
    /// that project (a `stat` of each file): `ProjectEvent.configurationMayHaveChanged`. New `watch.ignore` globs re-add the
    /// root to the watcher, which rescans it; new heuristics settings refresh every sidecar of the project.
    /// - Parameter force: take it in even when nothing changed (SIGHUP).
    func refreshProjectConfiguration(_ root: PathBytes, force: Bool = false) {
        guard var state = projects[root] else { return }
        let projectLoaded = configurations.load(project: root)
        guard force || projectLoaded.config != state.config || Set(projectLoaded.problems) != state.configProblems else { return }
        let old = state.config
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

    /// SIGHUP: the user configuration and every project's read again, the roots applied again.
    func reload() {
        loaded = configurations.user()
        // Projects already watched take in the user config's new values too.
        for root in projects.keys { refreshProjectConfiguration(root, force: true) }
        do { try applyProjects() } catch {
            logger.error("reload failed", metadata: ["error": "\(error)"])
        }
        markStatusDirty()
    }

    // MARK: Events

    /// Applies one of the services' events, then asks for a status write.
    func handle(_ event: ProjectEvent) {
        switch event {
        case .watchProblem(let root, let message, let stopsWatching):
            projects[root]?.problems[.watch] = message
            if stopsWatching { projects[root]?.watching = false }
        case .watchProblemCleared(let root):
            projects[root]?.problems[.watch] = nil
            projects[root]?.watching = true
        case .configurationMayHaveChanged(let root):
            refreshProjectConfiguration(root)
        case .pendingChanged:
            if let settler { pendingCount = settler.pendingCount }
        case .reload:
            reload()
        case .batchRecorded(let root, let scopes, let sidecarProblems, let report):
            recordBatch(root, scopes: scopes, sidecarProblems: sidecarProblems, report: report)
        case .indexFailed(let root, let problem):
            projects[root]?.problems[.index] = problem
        case .batchesDone(let counts, let ended):
            for (root, n) in counts ?? [:] where projects[root] != nil { projects[root]?.documents = n }
            // The scans are over: the counts above take over from their progress.
            for root in ended { scans.finish(root) }
        }
        markStatusDirty()
    }

    /// Records what a batch of a project did: the sidecar problems and the Vale lines always; the
    /// documents' problems, those of documents gone, the index problem cleared and the first scan
    /// done, when it was not stopped (`report` nil).
    func recordBatch(_ root: PathBytes, scopes: [Indexer.Scope], sidecarProblems: [PathBytes: String?], report: IndexReport?) {
        for (rel, v) in sidecarProblems { projects[root]?.problems[.sidecar(rel)] = v }
        refreshValeProblems(root)
        guard let report else { return }
        for (rel, problem) in report.problems { projects[root]?.problems[.document(rel)] = problem }
        clearVanishedProblems(root: root, scopes: scopes)
        projects[root]?.problems[.index] = nil
        if scopes.contains(.folder(PathBytes([]))) { awaitingFirstScan.remove(root) }
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

    // MARK: Status

    func snapshot() -> StatusSnapshot {
        let now = Date()
        let journeys = journeySummary()
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

    /// Each project's documents by stage, for `status`: read from the database for every write, except
    /// while a whole-project scan runs (up to ten writes a second, when the counts move with every
    /// batch): then at most once a second.
    private func journeySummary() -> [PathBytes: JourneySummary] {
        let clock = ContinuousClock()
        let scanning = projects.keys.contains { scans.entry($0) != nil }
        if scanning, let kept = journeys, clock.now - kept.at < .seconds(1) { return kept.value }
        let value = (try? database.journeySummary()) ?? [:]
        journeys = (clock.now, value)
        return value
    }

    /// Asks the status service for a write (it coalesces them to at most one every 100 ms).
    func markStatusDirty() { nudge.nudge() }
}
