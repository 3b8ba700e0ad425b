import ArgumentParser
import Foundation
import Logging
import Synchronization
import TKCore

extension TKAgent {
    struct Index: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "index",
            abstract: "Bring the index up to date without the agent (progress on a terminal)."
        )
        @Argument(help: "Project folders (default: the configured projects, else the current folder).", completion: .directory)
        var paths: [String] = []
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let resolved = Paths.resolve()
            let loaded = ConfigurationStore(paths: resolved).user()
            for p in loaded.problems { printError(p) }
            var roots = paths.map { FileSystem.absolute($0) }
            if roots.isEmpty { roots = ProjectRegistry.configured(loaded.config) }
            if roots.isEmpty { roots = [FileSystem.absolute(".")] }
            for r in roots where !DirectoryWalker.isFolderFollowingLinks(r) {
                throw CLIError("\(r.display) is not a folder; give the root folder of a writing project")
            }
            let db = try openDatabase()
            let logger = Logger(label: "tk-agent")
            let indexer = Indexer(database: db, logger: logger)
            // The agent's derivation: documents whose derivation key changed (their bytes, or the
            // project's inputs: configuration, dictionary, names, story types, rules) are derived
            // again and their sidecars written, as a start of the agent would.
            let resolver = DocumentResolver(paths: resolved)
            let pipeline = DocumentPipeline(database: db, logger: logger, sidecars: .shared(paths: resolved),
                                            catalog: resolver.catalog, resolver: resolver)
            let showProgress = isatty(STDERR_FILENO) != 0 && !output.json
            var results: [IndexSummary] = []
            for root in roots {
                let started = Date()
                let inputs = resolver.project(root, watched: true)
                let config = inputs.config
                let label = root.lastComponent.display
                // More than `deriveLimit` documents to derive at once (a first index of a big folder, or
                // every document after a change of the project's inputs): the index is built now and the
                // derivation left to the agent's start, which finds their keys missing or changed.
                let total = IndexTotal()
                let showing = showProgress
                let draw: @Sendable (Int, Int) -> Void = { done, all in
                    total.value.withLock { $0 = max($0, all) }
                    if showing { ProgressBar.draw(label: label, done: done, total: all) }
                }
                let stale = pipeline.staleDerivations(project: inputs)
                var deferred = 0
                let report = try indexer.sync(
                    root: root, projectID: try db.projectID(for: root), scopes: [.folder(PathBytes([]))],
                    filter: PathFilter(ignore: config.watch.ignore), maxFileBytes: config.watch.maxFileBytes,
                    stale: { unchanged, whole in
                        let found = try stale(unchanged, whole)
                        if found.count > Self.deriveLimit { deferred += found.count; return [] }
                        return found
                    },
                    progress: draw,
                    // Each batch derived while the one before is committed (its updates not at all
                    // when there are too many: see `deriveLimit`).
                    derive: { batch in
                        let deferAll = total.value.withLock({ $0 }) > Self.deriveLimit
                        return pipeline.derive(batch.changes, only: deferAll ? { if case .updated = $0 { false } else { true } } : nil,
                                               project: inputs, lanes: max(1, ProcessInfo.processInfo.activeProcessorCount))
                    }
                ) { batch in
                    // The index rows, the derived state and history of the batch: one transaction.
                    if total.value.withLock({ $0 }) > Self.deriveLimit {
                        deferred += batch.changes.filter { if case .updated = $0 { return true } else { return false } }.count
                    }
                    let committed = try pipeline.commit(batch.changes, index: batch, project: inputs, history: .init(paths: resolved),
                                                        lanes: max(1, ProcessInfo.processInfo.activeProcessorCount))
                    for (rel, problem) in committed.problems {
                        if let problem { printError("\(rel.display): \(problem)") }
                    }
                }
                _ = pipeline.verifySidecars(root: root)
                if deferred > 0 && !output.json {
                    printError("note: \(root.display): the quick findings of \(deferred) documents are derived when the agent starts (tk-agent run)")
                }
                if showProgress { ProgressBar.finish() }
                var problems: [String] = []
                for key in report.problems.keys.sorted() {
                    if let message = report.problems[key], let message { problems.append(message) }
                }
                for p in problems { printError(p) }
                let secs = Date().timeIntervalSince(started)
                results.append(IndexSummary(
                    project: root.display, scanned: report.scanned, updated: report.updated, deleted: report.deleted,
                    unchanged: report.unchanged, problems: problems, seconds: (secs * 1000).rounded() / 1000))
                if !output.json {
                    printError(String(format: "%@: %d documents (%d updated, %d removed, %d unchanged) in %.2f s",
                                      root.display, report.scanned, report.updated, report.deleted, report.unchanged, secs))
                }
            }
            // Segments left by earlier runs and saves (a bulk load merges its own): merged, once.
            _ = try? db.tidyFullText()
            if output.json { print(JSON.string(results)) }
        }
    }
}

extension TKAgent.Index {
    /// At most this many documents are derived by `index` in one run; more are left to the agent.
    static let deriveLimit = 2_048
}

/// The number of documents a sync reads (from its progress reports).
final class IndexTotal: Sendable {
    let value = Mutex(0)
}

/// One project's line of `index --json`.
struct IndexSummary: Codable {
    var project: String
    var scanned: Int
    var updated: Int
    var deleted: Int
    var unchanged: Int
    var problems: [String]
    var seconds: Double
}

/// A one-line progress bar on standard error.
enum ProgressBar {
    static func draw(label: String, done: Int, total: Int) {
        let width = 30
        let frac = total == 0 ? 1.0 : Double(done) / Double(total)
        let filled = Int(frac * Double(width))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) \(bar) \(done)/\(total)".utf8))
    }
    static func finish() { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
}
