import Foundation
import Synchronization

/// What the services tell the projects' state, in order, through one stream: the projects service
/// (`ProjectsService`) owns that state and is the stream's only reader; the watching, indexing and
/// signal services only send.
enum ProjectEvent: Sendable {
    /// The watcher has a problem with a project (the watch limit, its folder gone).
    case watchProblem(PathBytes, message: String, stopsWatching: Bool)
    /// The watcher's earlier problem with a project no longer applies.
    case watchProblemCleared(PathBytes)
    /// A project's configuration file changed (the watcher saw it), or may have (before each batch):
    /// a new `watch.ignore` re-adds the root to the watcher, new heuristics settings refresh its sidecars.
    case configurationMayHaveChanged(PathBytes)
    /// What waits in the settler changed (read by the owner, so that the last count it keeps is never
    /// older than the last event's).
    case pendingChanged
    /// SIGHUP: the user configuration and every project's read again, the roots applied again.
    case reload
    /// What a batch of a project did (`report` nil: it was stopped).
    case batchRecorded(PathBytes, scopes: [Indexer.Scope], sidecarProblems: [PathBytes: String?], report: IndexReport?)
    /// The last indexing run of a project failed.
    case indexFailed(PathBytes, problem: String)
    /// A settled batch is through: the index's document counts now (nil: not read) and the
    /// whole-project scans it ended, whose counts the index's take over from.
    case batchesDone(documentCounts: [PathBytes: Int]?, scansEnded: [PathBytes])
}

/// The sending end and the stream of `ProjectEvent`s.
struct ProjectEvents: Sendable {
    let stream: AsyncStream<ProjectEvent>
    private let continuation: AsyncStream<ProjectEvent>.Continuation

    init() {
        (stream, continuation) = AsyncStream<ProjectEvent>.makeStream()
    }

    func send(_ event: ProjectEvent) { continuation.yield(event) }

    /// No more events: the reader ends once it has taken those sent.
    func finish() { continuation.finish() }
}

/// The projects the agent watches now, with their ids: written by the projects' state as it applies
/// its roots, read by the indexing service for each batch (a project no longer watched is skipped).
final class WatchedProjects: Sendable {
    private let ids = Mutex<[PathBytes: Int64]>([:])

    func id(of root: PathBytes) -> Int64? { ids.withLock { $0[root] } }
    func set(_ root: PathBytes, id: Int64?) { ids.withLock { $0[root] = id } }
}
