import Foundation
import Logging
import ServiceLifecycle

// The agent's parts, each a `Service` run by one `ServiceGroup` (see `Agent.services()`), which
// starts them in this order and shuts them down gracefully in the reverse one: the watcher stops
// first, the indexer drains what settled, and the status is written last (`running: false`).

/// Watching: turns the watcher's events into settled work for the indexer.
struct WatchService: Service {
    let agent: Agent
    let watcher: TreeWatcher
    let settler: Settler<Agent.Pending>

    func run() async throws {
        let watcher = self.watcher
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                for await event in watcher.events() { await agent.handle(event, settler: settler) }
            } onGracefulShutdown: {
                watcher.shutdown()
            }
        } onCancel: {
            watcher.shutdown()
        }
    }
}

/// Indexing and the document pipeline: each settled batch is indexed, then goes through the
/// pipeline and the document owner (quick heuristics, journey, sidecar, journey rows).
struct IndexService: Service {
    let agent: Agent
    let settler: Settler<Agent.Pending>
    let database: AppDatabase

    func run() async throws {
        let settler = self.settler
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                for await batch in settler.released {
                    if await agent.process(batch) {
                        // A big scan freed a lot of memory in small pieces; give it back to the system
                        // rather than keep the peak as the idle size for months.
                        database.releaseMemory()
                        releaseFreedMemory()
                        // A bulk load leaves the retrieval passages for later (`Indexer.sync`): written
                        // here, beside the indexing of further saves, then the memory given back again.
                        let database = self.database
                        Task.detached(priority: .background) {
                            let n = PassageBackfill.run(database: database)
                            if n > 0 {
                                database.releaseMemory()
                                releaseFreedMemory()
                            }
                        }
                    }
                    await agent.setPending(settler.pendingCount)
                }
            } onGracefulShutdown: {
                settler.finish()
            }
        } onCancel: {
            settler.finish()
        }
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
    let agent: Agent
    let watcher: TreeWatcher
    /// Made before the group starts, so that a SIGHUP never finds the default action (exit).
    let signals: SignalStream
    let extensions: [any AgentExtension]

    func run() async throws {
        let signals = self.signals
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                for await sig in signals.stream {
                    if sig == SIGHUP { await agent.reload(watcher: watcher) }
                    await agent.statusChanged()
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

/// Status: writes `status.json` when a part asks (`StatusNudge`: the agent, the review queue),
/// coalesced to one write per 100 ms, and, at the end, the final one with `running: false`.
struct StatusService: Service {
    let agent: Agent
    let nudge: StatusNudge
    let writer: StatusWriter

    func run() async throws {
        let nudge = self.nudge
        let writer = self.writer
        await withTaskCancellationHandler {
            await withGracefulShutdownHandler {
                // The stream keeps one pending request: whatever asks during the pause or the write
                // is served by the next write.
                for await _ in nudge.stream {
                    try? await Task.sleep(for: .milliseconds(100))
                    writer.write(await agent.fullSnapshot())
                }
            } onGracefulShutdown: {
                nudge.finish()
            }
        } onCancel: {
            nudge.finish()
        }
        var final = await agent.fullSnapshot()
        final.running = false
        writer.write(final)
        agent.logger.info("agent stopped")
    }
}

#if canImport(Glibc)
import CSystem

/// Returns the heap's free pages to the system (glibc keeps them otherwise).
func releaseFreedMemory() { _ = malloc_trim(0) }
#else
func releaseFreedMemory() {}
#endif
