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

    public init(paths: Paths, explicitProjects: [PathBytes], environment: [String: String] = ProcessEnvironment.current,
                scanProgress: (@Sendable (PathBytes, ScanProgress.Entry?) -> Void)? = nil) {
        self.paths = paths
        self.explicitProjects = explicitProjects
        self.environment = environment
        self.scanProgress = scanProgress
    }
}

/// The agent: watches the projects, keeps the index and the sidecars in line with every save,
/// and publishes its state to `status.json`.
///
/// This type is the wiring: it opens the database and builds the parts (the indexer, the document
/// pipeline, the extensions, the streams between the services, the projects' state), then hands them
/// to the services (`services()`), which own their work and state and talk through those streams;
/// none of them holds the agent, and the projects' state (`AgentProjects`) is the projects service's
/// alone, changed by the events the others send (`ProjectEvents`).
public final class Agent: Sendable {
    let options: AgentOptions
    let logger: Logger
    let database: AppDatabase
    /// Where every part of the agent reads the user's and the projects' configuration.
    let configurations: ConfigurationStore
    let indexer: Indexer
    let pipeline: DocumentPipeline
    /// The projects' state (what `status` says), handed to the projects service.
    let projects: AgentProjects
    /// What the watching, indexing and signal services tell the projects service.
    let projectEvents = ProjectEvents()
    /// The projects watched now and their ids (published by the projects' state for the indexing).
    let watched = WatchedProjects()
    let extensions: [any AgentExtension]
    let nudge: StatusNudge
    /// Who hears of every change to a document's state, from the pipeline and the review queue alike
    /// (see `DocumentOwner`): add observers before `run`.
    public let documentObservers: DocumentObservers
    /// Set when the agent stops: the scan in progress drops what it has not committed.
    let stop = StopFlag()
    /// Where the current whole-project scans stand (for `status` and the progress line).
    let scans: ScanProgress
    /// Desktop notifications to show, in order, by the notification service.
    let notifications: AsyncStream<DesktopNotification>
    /// Whole projects to go through again after a pause (a full disk, a failed index), by the
    /// indexing service.
    let retries: AsyncStream<PendingWork>
    let retryContinuation: AsyncStream<PendingWork>.Continuation
    /// Asks the passage service for a backfill (after a big scan).
    let backfills: AsyncStream<Void>
    let backfillContinuation: AsyncStream<Void>.Continuation

    public init(options: AgentOptions, logger: Logger) throws {
        self.options = options
        self.logger = logger
        let (db, recovered) = try AppDatabase.openRecovering(paths: options.paths, logger: logger)
        // The one place the agent reads configuration: its project state, the resolver, the review
        // queue, the embedding worker and the watcher's ignore rules all ask it.
        let configurations = ConfigurationStore(paths: options.paths, environment: options.environment)
        self.configurations = configurations
        let nudge = StatusNudge()
        self.database = db
        let startedAt = Date()
        self.nudge = nudge
        var indexer = Indexer(database: db, logger: logger)
        // Batches bounded by bytes keep the peak flat, and one batch is what a stop waits for.
        indexer.batchSize = 128
        indexer.batchBytes = 512 << 10
        self.indexer = indexer
        let (notifications, notify) = AsyncStream<DesktopNotification>.makeStream(bufferingPolicy: .bufferingNewest(32))
        self.notifications = notifications
        let retryPair = AsyncStream<PendingWork>.makeStream()
        self.retries = retryPair.stream
        self.retryContinuation = retryPair.continuation
        let backfillPair = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        self.backfills = backfillPair.stream
        self.backfillContinuation = backfillPair.continuation
        let onScan = options.scanProgress
        let scans = ScanProgress { root, entry in
            nudge.nudge()
            onScan?(root, entry)
        }
        self.scans = scans
        let observers = DocumentObservers()
        self.documentObservers = observers
        let catalog = AdvisorCatalog.load(paths: options.paths)
        self.pipeline = DocumentPipeline(
            database: db, logger: logger, sidecars: .shared(paths: options.paths),
            catalog: catalog, observers: observers,
            resolver: DocumentResolver(paths: options.paths, environment: options.environment, catalog: catalog,
                                       configurations: configurations),
            notify: { title, body, document in notify.yield(DesktopNotification(title: title, body: body, document: document)) })
        self.extensions = makeAgentExtensions(
            configurations: configurations, database: db, logger: logger, nudge: nudge, observers: observers)
        self.projects = AgentProjects(
            options: options, configurations: configurations, database: db, logger: logger, nudge: nudge, scans: scans,
            watched: watched, globalProblems: recovered.map { [$0] } ?? [], startedAt: startedAt)
    }

    /// The agent's parts as services for one `ServiceGroup` (`AgentServices.swift`): status,
    /// notifications, extensions (the review queue, embeddings), passages, signals, indexing with
    /// the document pipeline, watching. The group starts them in this order and stops them in the
    /// reverse one; each stops taking work at once and ends what it is doing (a batch) or drops it
    /// for the next start, so that nothing runs once the group has returned.
    public func services() async throws -> [any Service] {
        let paths = options.paths
        let environment = options.environment
        let loaded = await projects.loaded
        let configurations = self.configurations
        let watcher = try TreeWatcher(
            filter: { root in PathFilter(ignore: configurations.load(project: root).config.watch.ignore) },
            rescanInterval: Self.rescanInterval(loaded.config), logger: logger,
            options: Self.watcherOptions(loaded.config))
        let settleMs = max(10, loaded.config.watch.settleMs)
        let settler = Settler<PendingWork>(
            settle: .milliseconds(settleMs),
            maxDelay: .milliseconds(max(settleMs, loaded.config.watch.maxSettleMs)))
        try await projects.start(watcher: watcher, settler: settler)
        let signals = SignalStream.make([SIGHUP, SIGUSR1])
        let events = projectEvents
        var list: [any Service] = [ProjectsService(
            projects: projects, events: events, extensions: extensions, nudge: nudge, writer: StatusWriter(paths: paths), logger: logger)]
        list.append(NotificationService(
            notifications: notifications,
            notifier: Notifier(settings: loaded.config.notifications, environment: environment, logger: logger)))
        list += extensions.map { ExtensionService(agentExtension: $0) }
        list.append(PassageService(database: database, requests: backfills, finish: { [backfillContinuation] in backfillContinuation.finish() }))
        list.append(SignalService(events: events, nudge: nudge, signals: signals, extensions: extensions))
        let processor = BatchProcessor(
            events: events, watched: watched, configurations: configurations, paths: paths, logger: logger, database: database,
            indexer: indexer, pipeline: pipeline, extensions: extensions, settler: settler, stop: stop, scans: scans,
            retries: retryContinuation)
        list.append(IndexService(processor: processor, events: events, settler: settler, database: database, stop: stop, retries: retries,
                                 finishRetries: { [retryContinuation] in retryContinuation.finish() }, backfill: { [backfillContinuation] in backfillContinuation.yield() }))
        list.append(WatchService(events: events, watcher: watcher, settler: settler, logger: logger))
        return list
    }

    /// A missing root or one over the watch limit is checked again at least as often as the
    /// periodic rescan runs (every minute by default, never more than once a second).
    static func watcherOptions(_ c: Configuration) -> TreeWatcherOptions {
        var interval = Duration.seconds(60)
        if let periodic = rescanInterval(c) { interval = max(.seconds(1), min(interval, periodic)) }
        return TreeWatcherOptions(fallbackRescanInterval: interval)
    }

    static func rescanInterval(_ c: Configuration) -> Duration? {
        c.watch.rescanMinutes > 0 ? .seconds(c.watch.rescanMinutes * 60) : nil
    }

    /// Lets an extension ask for a status refresh (a round started or finished).
    public func statusChanged() { nudge.nudge() }

    /// Interrupts the database statements running now (`AppDatabase.interrupt`): for a stop that
    /// has waited long enough for them.
    public func interruptDatabaseWork() { database.interrupt() }
}
