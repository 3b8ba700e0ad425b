import Foundation
import Logging

/// The one-line hooks from today's code into progress and history. Each takes plain values, so
/// that the document owner can call them from its events instead.
public enum ProgressHooks {
    /// Records what a batch of the indexer's changes of one project (every save, rename and removal it
    /// saw) did to progress and history, inside the batch's transaction (`DocumentPipeline.commit`).
    /// - Returns: the notification to show when today's goal was reached by this batch.
    static func record(paths: Paths, database: AppDatabase, root: PathBytes, changes: [DocumentChange],
                       config: Configuration) throws -> (title: String, body: String)? {
        var events: [HistoryEvent] = []
        let service = HistoryService(paths: paths, database: database)
        let firstSeen = (try? service.projectFirstSeen(root)) ?? Date()
        for change in changes {
            switch change {
            case .updated(let rel, let doc, let sha, let previous):
                // New to the index and modified after history first saw the project: a new document.
                let mtime = FileSystem.lstatIfExists(root.appending(rel)).map { Double($0.mtimeNs) / 1e9 } ?? 0
                let created = previous == nil && mtime > firstSeen.timeIntervalSince1970 + 1
                if sha != previous { events.append(.saved(path: rel, bytes: doc.bytes, created: created)) }
            case .moved(let from, let to, let doc, _):
                events.append(.moved(from: from, to: to, bytes: doc.bytes))
            case .deleted(let rel, _):
                events.append(.removed(path: rel))
            }
        }
        guard !events.isEmpty else { return nil }
        let goal = try ProgressReport.todayGoal(service: service, project: root, settings: config.progress)
        let observed = try service.observe(project: root, events: events, progress: config.progress,
                                           history: config.history, goal: goal)
        // A stage the journey moved to in this batch: the version that reached it is kept.
        var saved: [PathBytes: [UInt8]] = [:]
        for case .saved(let p, let b, _) in events { saved[p] = b }
        for case .moved(_, let p, let b) in events { saved[p] = b }
        for (p, stage) in service.journeyStages(project: root, paths: Array(saved.keys)) {
            if let bytes = saved[p] { try service.stageSeen(project: root, path: p, stage: stage, bytes: bytes, history: config.history) }
        }
        if let words = observed.goalReached, let goal {
            return ("Goal reached", "\(words) words written today in \(root.lastComponent.display) (goal \(goal))")
        }
        return nil
    }

    /// Keeps a snapshot of a document's current bytes before something writes to it or reads it
    /// (`reason`: review, stage, accept, pipe, restore, manual). Errors are logged, never thrown:
    /// a missing snapshot must not stop the write the writer asked for.
    /// - Parameter config: the project's configuration (its `history` settings and size limit).
    @discardableResult
    public static func snapshot(paths: Paths, database: AppDatabase, project: PathBytes, document: PathBytes,
                                bytes: [UInt8]? = nil, config: Configuration, reason: String, note: String? = nil,
                                logger: Logger? = nil) -> SnapshotRecord? {
        do {
            let content = try bytes ?? FileSystem.read(project.appending(document), limit: max(1, config.watch.maxFileBytes))
            return try HistoryService(paths: paths, database: database)
                .snapshot(project: project, path: document, bytes: content, reason: reason, note: note, history: config.history)
        } catch {
            logger?.warning("cannot keep a snapshot", metadata: ["file.path": "\(document.display)", "error": "\(error)"])
            return nil
        }
    }
}

/// `word_goal` (or `word-goal`) in a document's front matter.
public enum WordGoal {
    public static func read(_ bytes: [UInt8]) -> Int? { FrontMatter.parse(bytes).0.wordGoal }
}
