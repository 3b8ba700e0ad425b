import Foundation
import Logging

/// A part of the agent that reacts to indexed changes and may run work of its own (the review
/// queue). The agent's services call these (indexing, signals, status); implementations do their
/// own synchronisation.
public protocol AgentExtension: Sendable {
    /// Documents of a project changed (after the index and the sidecars were updated). The changes
    /// carry paths and digests, not the bytes (`IndexedChange`): read the file when needed.
    func documentsChanged(root: PathBytes, changes: [IndexedChange], config: Configuration) async
    /// Long-running work; returns when the task is cancelled (graceful shutdown).
    func run() async
    /// Something outside asked for attention (SIGUSR1 from the CLI, a configuration reload).
    func wake() async
    /// Adds this part's facts to the live status (queue, provider, usage).
    func contribute(to status: inout StatusSnapshot) async
}

extension AgentExtension {
    public func run() async {}
    public func wake() async {}
    public func contribute(to status: inout StatusSnapshot) async {}
}

/// Lets an extension tell the agent that its part of the status changed (written within ~100 ms).
public final class StatusNudge: Sendable {
    let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    public init() {
        (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    public func nudge() { continuation.yield() }
    func finish() { continuation.finish() }
}

/// The extensions `tk-agent run` starts with. The review subsystem registers its queue here.
public func makeAgentExtensions(
    configurations: ConfigurationStore, database: AppDatabase, logger: Logger, nudge: StatusNudge,
    observers: DocumentObservers = DocumentObservers()
) -> [any AgentExtension] {
    var env = ReviewEnvironment.live(configurations: configurations, database: database, logger: logger, nudge: nudge)
    env.observers = observers
    return [ReviewQueue(env: env),
            EmbeddingWorker(configurations: configurations, database: database, logger: logger, nudge: nudge)]
}
