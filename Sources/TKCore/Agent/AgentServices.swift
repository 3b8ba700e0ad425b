import Dispatch
import Foundation
import Logging
import ServiceLifecycle

// The agent's parts, each a `Service` run by one `ServiceGroup` (see `Agent.services()`), which
// starts them in this order and shuts them down gracefully in the reverse one: the watcher stops
// first, the indexer drains what settled, and the status is written last (`running: false`).
// They talk through streams: settled work (`Settler`), project events (`ProjectEvents`, read by the
// projects service alone), notifications, retries, backfill requests and status nudges.

/// Watching: turns the watcher's events into settled work for the indexer, and tells the projects
/// service of the watcher's problems and of changed project configurations.
struct WatchService: Service {
    let events: ProjectEvents
    let watcher: TreeWatcher
    let settler: Settler<PendingWork>
    let logger: Logger

    func run() async throws {
        let watcher = self.watcher
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                for await event in watcher.events() { handle(event) }
            } onGracefulShutdown: {
                watcher.shutdown()
            }
        } onCancel: {
            watcher.shutdown()
        }
    }

    func handle(_ event: WatchEvent) {
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
            events.send(.watchProblem(root, message: message, stopsWatching: kind.stopsWatching))
        case .problemCleared(let root):
            events.send(.watchProblemCleared(root))
        case .configChanged(let root):
            events.send(.configurationMayHaveChanged(root))
            // The project's inputs may have changed (the dictionary): a walk re-derives the
            // documents whose derivation key changed, and only those.
            settler.touch(.folder(root: root, relative: PathBytes([])))
        }
        events.send(.pendingChanged)
    }
}

/// Indexing and the document pipeline: each settled batch is indexed, then goes through the
/// pipeline and the document owner (quick heuristics, journey, sidecar, journey rows). Projects to
/// go through again after a pause (a full disk) wait here, as child tasks, cancelled with it.
///
/// On shutdown the settler stops releasing work and the stop flag is set: the scan in progress
/// finishes the batch it is writing and drops the rest, which the next start does.
struct IndexService: Service {
    let processor: BatchProcessor
    let events: ProjectEvents
    let settler: Settler<PendingWork>
    let database: AppDatabase
    let stop: StopFlag
    let retries: AsyncStream<PendingWork>
    let finishRetries: @Sendable () -> Void
    /// Asks the passage service for a backfill.
    let backfill: @Sendable () -> Void

    func run() async throws {
        let settler = self.settler
        let stop = self.stop
        let finishRetries = self.finishRetries
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withDiscardingTaskGroup { group in
                    let retries = self.retries
                    group.addTask {
                        await withDiscardingTaskGroup { waits in
                            for await item in retries {
                                waits.addTask {
                                    guard (try? await Task.sleep(for: FaultRecovery.retryDelay)) != nil else { return }
                                    settler.touch(item)
                                }
                            }
                            waits.cancelAll()
                        }
                    }
                    for await batch in settler.released {
                        if await processor.process(batch), !stop.isSet {
                            // A big scan freed a lot of memory in small pieces; give it back to the system
                            // rather than keep the peak as the idle size for months.
                            database.releaseMemory()
                            releaseFreedMemory()
                            // Documents of an older index may still lack their retrieval passages.
                            backfill()
                        }
                        events.send(.pendingChanged)
                    }
                    finishRetries()
                }
            } onGracefulShutdown: {
                stop.set()
                settler.finish()
                finishRetries()
            }
        } onCancel: {
            stop.set()
            settler.finish()
            finishRetries()
        }
    }
}

/// Retrieval passages of documents that have none (an index made before retrieval, or a bulk load
/// by `tk-agent index`), written after the agent's big scans, off the indexing thread; stops
/// between files when the agent does.
struct PassageService: Service {
    let database: AppDatabase
    let requests: AsyncStream<Void>
    let finish: @Sendable () -> Void

    func run() async throws {
        let stop = StopFlag()
        let finish = self.finish
        let database = self.database
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                for await _ in requests {
                    if stop.isSet { break }
                    let n = await runBlocking { PassageBackfill.run(database: database, stop: stop) }
                    if n > 0 && !stop.isSet {
                        database.releaseMemory()
                        releaseFreedMemory()
                    }
                }
            } onGracefulShutdown: {
                stop.set()
                finish()
            }
        } onCancel: {
            stop.set()
            finish()
        }
    }
}

/// Desktop notifications, one at a time, in order. On shutdown those not shown yet are dropped.
struct NotificationService: Service {
    let notifications: AsyncStream<DesktopNotification>
    let notifier: Notifier

    func run() async throws {
        let notifications = self.notifications
        let notifier = self.notifier
        await cancelWhenGracefulShutdown {
            for await n in notifications {
                if Task.isCancelled { break }
                _ = await notifier.notify(title: n.title, body: n.body, document: n.document)
            }
        }
        try? await gracefulShutdown()
    }
}

/// Runs blocking work on a thread of its own and waits for it (the cooperative pool is not blocked).
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { cont in
        DispatchQueue.global(qos: .utility).async { cont.resume(returning: body()) }
    }
}

/// The review queue (and any other `AgentExtension`): runs until shutdown.
struct ExtensionService: Service {
    let agentExtension: any AgentExtension

    func run() async throws {
        await cancelWhenGracefulShutdown { await agentExtension.run() }
        // An extension with nothing to run returns at once: stay until shutdown, as a service that
        // returns would end the whole group.
        try? await gracefulShutdown()
    }
}

/// SIGHUP reloads the configuration; SIGUSR1 (from the CLI) wakes the extensions and refreshes status.
struct SignalService: Service {
    let events: ProjectEvents
    let nudge: StatusNudge
    /// Made before the group starts, so that a SIGHUP never finds the default action (exit).
    let signals: SignalStream
    let extensions: [any AgentExtension]

    func run() async throws {
        let signals = self.signals
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                for await sig in signals.stream {
                    if sig == SIGHUP { events.send(.reload) }
                    nudge.nudge()
                    for ext in extensions { await ext.wake() }
                }
            } onGracefulShutdown: {
                signals.cancel()
            }
        } onCancel: {
            signals.cancel()
        }
    }
}

/// The projects' state and `status.json`: the only holder of the projects' state (`AgentProjects`),
/// which it changes by the events the other services send (`ProjectEvents`), in order; and the
/// writer of the status when a part asks (`StatusNudge`: the projects' state, the indexing, the
/// review queue), coalesced to one write per 100 ms, and, at the end, the final one with
/// `running: false`. Started first and stopped last: when it stops, the other services have, and
/// the events they sent are taken in before the final status.
struct ProjectsService: Service {
    let projects: AgentProjects
    let events: ProjectEvents
    /// Their facts (queue, provider, usage) join the projects' in each snapshot.
    let extensions: [any AgentExtension]
    let nudge: StatusNudge
    let writer: StatusWriter
    let logger: Logger

    func run() async throws {
        let nudge = self.nudge
        let events = self.events
        let projects = self.projects
        let writer = self.writer
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                await withDiscardingTaskGroup { group in
                    group.addTask {
                        for await event in events.stream { await projects.handle(event) }
                    }
                    // The stream keeps one pending request: whatever asks during the pause or the write
                    // is served by the next write.
                    for await _ in nudge.stream {
                        try? await Task.sleep(for: .milliseconds(100))
                        writer.write(await fullSnapshot())
                    }
                }
            } onGracefulShutdown: {
                nudge.finish()
                events.finish()
            }
        } onCancel: {
            nudge.finish()
            events.finish()
        }
        var final = await fullSnapshot()
        final.running = false
        writer.write(final)
        logger.info("agent stopped")
    }

    /// The projects' snapshot with the extensions' facts.
    func fullSnapshot() async -> StatusSnapshot {
        var snap = await projects.snapshot()
        for ext in extensions { await ext.contribute(to: &snap) }
        return snap
    }
}

#if canImport(Glibc)
import CSystem

/// Returns the heap's free pages to the system (glibc keeps them otherwise).
func releaseFreedMemory() { _ = malloc_trim(0) }

/// Fixed allocator thresholds for a process that runs for months. glibc raises its mmap threshold
/// after the first big block is freed (up to 32 MB) and its trim threshold with it (to 64 MB): from
/// then on a dictionary's big tables come from a thread's arena, and a thread arena's free top is
/// given back only past that threshold (`malloc_trim` trims the main arena's top alone). Fixed values
/// keep big blocks in their own mappings, returned when freed, and trim an arena past 1 MB free.
/// (Measured on the medium corpus: 71 → 62 MiB idle.)
public func tuneAllocatorForLongRun() {
    _ = mallopt(M_MMAP_THRESHOLD, 256 * 1024)
    _ = mallopt(M_TRIM_THRESHOLD, 1024 * 1024)
}
#else
func releaseFreedMemory() {}
public func tuneAllocatorForLongRun() {}
#endif

// ServiceLifecycle logs each service with `"\(service)"` (at debug level). The default description
// reflects every stored property, an environment with API keys among them: each service names
// itself instead, so that no secret reaches a log.
extension WatchService: CustomStringConvertible { var description: String { "WatchService" } }
extension IndexService: CustomStringConvertible { var description: String { "IndexService" } }
extension PassageService: CustomStringConvertible { var description: String { "PassageService" } }
extension NotificationService: CustomStringConvertible { var description: String { "NotificationService" } }
extension ExtensionService: CustomStringConvertible { var description: String { "ExtensionService" } }
extension SignalService: CustomStringConvertible { var description: String { "SignalService" } }
extension ProjectsService: CustomStringConvertible { var description: String { "ProjectsService" } }
