import Dispatch
import Foundation
import Logging

/// Indexes the settled batches for the indexing service (`IndexService`): each project's scopes
/// through the indexer, the document pipeline and the extensions, its outcome sent to the projects
/// service (`ProjectEvents`).
struct BatchProcessor: Sendable {
    let events: ProjectEvents
    /// The projects watched now (a batch of one no longer watched is dropped).
    let watched: WatchedProjects
    let configurations: ConfigurationStore
    let paths: Paths
    let logger: Logger
    let database: AppDatabase
    let indexer: Indexer
    let pipeline: DocumentPipeline
    let extensions: [any AgentExtension]
    let settler: Settler<PendingWork>
    /// Set when the agent stops: the scan in progress drops what it has not committed.
    let stop: StopFlag
    /// Where the current whole-project scans stand (for `status` and the progress line).
    let scans: ScanProgress
    /// Whole projects to go through again after a pause (a full disk, a failed index).
    let retries: AsyncStream<PendingWork>.Continuation
    /// Work runs here so that long rescans never block the cooperative pool.
    let workQueue = DispatchQueue(label: "tk-agent.index")

    /// Indexes a settled batch, project by project, then updates sidecars.
    /// - Returns: whether it was a big scan (many documents read and parsed): memory worth giving back.
    func process(_ batch: [PendingWork]) async -> Bool {
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
            guard let projectID = watched.id(of: root) else { continue }
            // The configuration as its files say now (the store reads a file again when its `stat`
            // moved); the projects service compares it with what it had, as a safety net for a change
            // the watcher did not report (a new `watch.ignore`, new heuristics settings).
            events.send(.configurationMayHaveChanged(root))
            let config = configurations.load(project: root).config
            let filter = PathFilter(ignore: config.watch.ignore)
            let indexer = self.indexer
            let pipeline = self.pipeline
            let refresh = refreshRoots.contains(root)
            let paths = self.paths
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
                    root: root, projectID: projectID, scopes: scopes, filter: filter,
                    maxFileBytes: config.watch.maxFileBytes, refresh: refresh,
                    stale: pipeline.staleDerivations(project: project), progress: nil,
                    documents: whole ? SyncCounts { done, total in scans.update(root, done: done, total: total) } : nil,
                    stop: stop, passagesInBulk: true,
                    // Each batch derived while the one before is committed.
                    derive: { batch in pipeline.derive(batch.changes, project: project, lanes: lanes, stop: stop) }
                ) { batch in
                    // The batch's index rows, journey rows, progress and history in one transaction,
                    // then its sidecars.
                    let committed = try pipeline.commit(batch.changes, index: batch, derived: batch.derived as? DocumentPipeline.DerivedBatch,
                                                        project: project, history: .init(paths: paths),
                                                        diskFaults: &diskFaults, lanes: lanes, stop: stop)
                    for (k, v) in committed.problems { sidecarProblems[k] = v }
                    if let goal = committed.goal, config.notifications.enabled { pipeline.notify(goal.title, goal.body, root.display) }
                    let changes = batch.changes
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
                    settler.touch(.folder(root: root, relative: PathBytes([])))
                }
                return (report, sidecarProblems, all, diskFaults, stopped)
            }
            switch outcome {
            case .success(let (report, sidecarProblems, changes, diskFaults, stopped)):
                if !changes.isEmpty {
                    for ext in extensions { await ext.documentsChanged(root: root, changes: changes, config: config) }
                }
                events.send(.batchRecorded(root, scopes: scopes, sidecarProblems: sidecarProblems, report: stopped ? nil : report))
                if stopped { break }
                if !diskFaults.isEmpty { retries.yield(.refresh(root: root)) }
                // Documents read and parsed, new or again (sidecars derived after `index`): either
                // way the memory of the batches is worth giving back.
                if report.updated + report.reread > 256 { big = true }
                if report.updated + report.deleted > 0 {
                    logger.info("indexed", metadata: [
                        "project.path": "\(root.display)", "updated": "\(report.updated)", "deleted": "\(report.deleted)",
                    ])
                }
            case .failure(let error):
                events.send(.indexFailed(root, problem: FaultRecovery.indexProblem(error, dataDirectory: paths.dataDirectory)))
                // Try the whole project again soon: the disk may have room again, the folder may be writable.
                retries.yield(.folder(root: root, relative: PathBytes([])))
                logger.error("indexing failed", metadata: ["project.path": "\(root.display)", "error": "\(error)"])
            }
        }
        // The scans are over: the index's counts take over from their progress.
        events.send(.batchesDone(documentCounts: (try? database.counts())?.perProject, scansEnded: Array(byRoot.keys)))
        return big
    }

    /// Runs blocking work on the index queue.
    func offload<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async -> Result<T, any Error> {
        await withCheckedContinuation { cont in
            workQueue.async { cont.resume(returning: Result { try body() }) }
        }
    }
}
