import ArgumentParser
import Foundation
import Logging
import Synchronization
import ServiceLifecycle
import TKCore

extension TKAgent {
    struct Run: AsyncParsableCommand {
        /// How long a stop waits for running database statements before interrupting them.
        static let stopGrace: Duration = .milliseconds(500)

        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Run the agent in the foreground (what systemd runs).",
            discussion: "PATHs are this run's projects; without them the configured projects (`tk-agent watch list`), else the current folder.",
            aliases: ["daemon"]
        )
        @Argument(help: "Project folders to watch for this run.", completion: .directory) var paths: [String] = []
        @Option(name: .long, help: "trace, debug, info, notice, warning, error or critical.") var logLevel: String = "info"

        func validate() throws {
            if Logger.Level(rawValue: logLevel) == nil {
                throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical.")
            }
        }

        func run() async throws {
            let level = Logger.Level(rawValue: logLevel) ?? .info
            LoggingSystem.bootstrap { label in
                var h = StreamLogHandler.standardError(label: label)
                h.logLevel = level
                return h
            }
            let logger = Logger(label: "tk-agent")
            tuneAllocatorForLongRun()
            // SIGTERM and SIGINT from the first moment: one that comes while the agent starts (before
            // the service group runs) stops it as cleanly as one that comes later, exit 0.
            let stopSignals = SignalStream.make([SIGTERM, SIGINT])
            let resolved = Paths.resolve()
            var roots: [PathBytes] = []
            for p in paths {
                let abs = FileSystem.absolute(p)
                guard DirectoryWalker.isFolderFollowingLinks(abs) else {
                    throw CLIError("\(abs.display) is not a folder; give the root folder of a writing project")
                }
                roots.append(abs)
            }
            let lock: AgentLock
            do { lock = try AgentLock.acquire(paths: resolved) } catch { throw CLIError(error.description) }
            let agent: Agent
            do {
                // On a terminal, a progress line while a project is scanned whole (as `index` draws).
                let progress: (@Sendable (PathBytes, ScanProgress.Entry?) -> Void)? =
                    isatty(STDERR_FILENO) != 0 ? { @Sendable root, entry in ScanProgressLine.shared.show(root, entry) } : nil
                agent = try Agent(options: AgentOptions(paths: resolved, explicitProjects: roots, scanProgress: progress), logger: logger)
            } catch {
                throw CLIError("cannot start: \(error)")
            }
            let services: [any Service]
            do { services = try await agent.services() } catch {
                throw CLIError("cannot start: \(error)")
            }
            let group = ServiceGroup(services: services, logger: logger)
            try await withThrowingDiscardingTaskGroup { tasks in
                tasks.addTask {
                    var signals = stopSignals.stream.makeAsyncIterator()
                    guard await signals.next() != nil else { return }
                    await group.triggerGracefulShutdown()
                    // Services stop between files and batches; a database statement that runs long
                    // (a big query, a large write) would still hold the stop. After half a second
                    // it is interrupted: its transaction is rolled back and the next start does it.
                    do { try await Task.sleep(for: Self.stopGrace) } catch { return }
                    logger.info("stopping: interrupting the database statements still running")
                    agent.interruptDatabaseWork()
                }
                try await group.run()
                stopSignals.cancel()
                tasks.cancelAll()
            }
            withExtendedLifetime(lock) {}
        }
    }
}

/// The progress line `run` draws on a terminal: at most ten times a second, cleared when a scan ends.
final class ScanProgressLine: Sendable {
    static let shared = ScanProgressLine()
    private let lastDraw = Mutex<ContinuousClock.Instant?>(nil)

    func show(_ root: PathBytes, _ entry: ScanProgress.Entry?) {
        guard let entry else {
            lastDraw.withLock { $0 = nil }
            ProgressBar.finish()
            return
        }
        let now = ContinuousClock.now
        let due = lastDraw.withLock { last -> Bool in
            if let l = last, now - l < .milliseconds(100), entry.done < entry.total { return false }
            last = now
            return true
        }
        if due { ProgressBar.draw(label: "scanning \(root.lastComponent.display)", done: entry.done, total: entry.total) }
    }
}
