import Foundation
import Logging

/// What the review queue needs from the outside world, as values and closures so that tests can
/// replace the provider, the clock and the notifications.
public struct ReviewEnvironment: Sendable {
    public var paths: Paths
    public var environment: [String: String]
    public var database: AppDatabase
    public var logger: Logger
    public var catalog: AdvisorCatalog
    public var sidecars: SidecarStore
    public var now: Now
    /// This process (the owner of the rounds it runs).
    public var pid: Int32
    public var nudge: StatusNudge?
    /// The configuration of a project (nil: the user-level configuration).
    public var loadConfig: @Sendable (PathBytes?) -> Configuration
    public var makeProvider: @Sendable (Configuration) async throws(LLMProviderError) -> any LLMProvider
    public var providerStatus: @Sendable (Configuration) async -> ProviderStatus
    /// The price of a call, when a price table knows the model: (provider, model, input tokens, output tokens).
    public var estimateCost: (@Sendable (String, String, Int, Int) -> Double?)?
    /// Shows a desktop notification: (config, title, body).
    public var notify: @Sendable (Configuration, String, String, String) async -> Void
    /// Whether a process is alive (crash recovery).
    public var isAlive: @Sendable (Int32) -> Bool
    /// Who hears of the rounds' changes to documents (the agent shares its owner's observers).
    public var observers = DocumentObservers()
    /// The one writer of sidecars and journey rows.
    public var owner: DocumentOwner { DocumentOwner(sidecars: sidecars, database: database, observers: observers) }

    public init(paths: Paths, environment: [String: String], database: AppDatabase, logger: Logger,
                catalog: AdvisorCatalog, sidecars: SidecarStore, now: Now = .system, pid: Int32 = getpid(),
                nudge: StatusNudge? = nil,
                loadConfig: @escaping @Sendable (PathBytes?) -> Configuration,
                makeProvider: @escaping @Sendable (Configuration) async throws(LLMProviderError) -> any LLMProvider,
                providerStatus: @escaping @Sendable (Configuration) async -> ProviderStatus,
                estimateCost: (@Sendable (String, String, Int, Int) -> Double?)? = nil,
                notify: @escaping @Sendable (Configuration, String, String, String) async -> Void = { _, _, _, _ in },
                isAlive: @escaping @Sendable (Int32) -> Bool = { kill($0, 0) == 0 || errno == EPERM }) {
        self.paths = paths; self.environment = environment; self.database = database; self.logger = logger
        self.catalog = catalog; self.sidecars = sidecars; self.now = now; self.pid = pid; self.nudge = nudge
        self.loadConfig = loadConfig; self.makeProvider = makeProvider; self.providerStatus = providerStatus
        self.estimateCost = estimateCost; self.notify = notify; self.isAlive = isAlive
    }

    /// The price of a call from the embedded price table, or nil when the model is not in it.
    public static let tablePrice: @Sendable (String, String, Int, Int) -> Double? = { _, model, input, output in
        guard CostTable.price(for: model) != nil else { return nil }
        return CostTable.cost(model: model, usage: LLMUsage(inputTokens: input, outputTokens: output))
    }

    /// The real thing: configuration from disk, `ProviderFactory`, `notify-send`.
    public static func live(paths: Paths, environment: [String: String], database: AppDatabase, logger: Logger,
                            nudge: StatusNudge? = nil) -> ReviewEnvironment {
        live(configurations: ConfigurationStore(paths: paths, environment: environment), database: database, logger: logger,
             nudge: nudge)
    }

    /// The real thing, reading configuration from `configurations` (the agent's, shared by its services).
    public static func live(configurations: ConfigurationStore, database: AppDatabase, logger: Logger,
                            nudge: StatusNudge? = nil) -> ReviewEnvironment {
        let paths = configurations.paths
        let environment = configurations.environment
        return ReviewEnvironment(
            paths: paths, environment: environment, database: database, logger: logger,
            catalog: AdvisorCatalog.load(paths: paths), sidecars: .shared(paths: paths), nudge: nudge,
            loadConfig: { project in configurations.load(project: project).config },
            makeProvider: { (config: Configuration) async throws(LLMProviderError) -> any LLMProvider in
                try await ProviderFactory.make(configuration: config, environment: environment, paths: paths, logger: logger)
            },
            providerStatus: { config in
                await ProviderFactory.status(configuration: config, environment: environment, paths: paths, logger: logger)
            },
            estimateCost: tablePrice,
            notify: { config, title, body, document in
                await Notifier(settings: config.notifications, environment: environment, logger: logger)
                    .notify(title: title, body: body, document: document)
            })
    }
}

/// Runs claimed rounds from start to end and keeps the database, the usage ledger and the sidecar in
/// step. Used by the agent's queue and by `tk-agent review` when no agent runs (the same code).
public struct RoundExecutor: Sendable {
    public let env: ReviewEnvironment
    public let store: ReviewStore
    public let ledger: UsageLedger
    public let runner: ReviewRunner
    /// How often a round that failed for a passing reason (rate limit, network) is sent in all.
    public static let maxTries = 3

    public init(env: ReviewEnvironment) {
        self.env = env
        self.store = ReviewStore(database: env.database)
        self.ledger = UsageLedger(database: env.database)
        self.runner = ReviewRunner(catalog: env.catalog, sidecars: env.sidecars, logger: env.logger)
    }

    /// Queues a round (merging into the document's round that has not started) and shows it in the sidecar.
    /// - Parameters:
    ///   - manual: asked for by the writer (`tk-agent review`): the journey hears of it.
    public func submit(project: PathBytes, document: PathBytes, manual: Bool, skipQuiet: Bool, advisors: [String]?)
        throws -> ReviewRoundRecord
    {
        let (rec, _) = try store.enqueue(project: project, document: document, manual: manual, skipQuiet: skipQuiet,
                                         advisors: advisors, now: env.now.date())
        writeSidecar(rec, requested: manual)
        env.nudge?.nudge()
        return rec
    }

    /// Puts rounds left `running` by a process that is gone (killed, crashed) back in the queue.
    /// - Returns: the rounds put back.
    @discardableResult
    public func recoverInterrupted() -> [ReviewRoundRecord] {
        do {
            let recovered = try store.recoverInterrupted(isAlive: env.isAlive)
            for rec in recovered {
                env.logger.info("review round interrupted earlier; queued again", metadata: ["round": "\(rec.id)"])
                writeSidecar(rec)
            }
            return recovered
        } catch {
            env.logger.error("cannot recover review rounds", metadata: ["error": "\(error)"])
            return []
        }
    }

    /// Runs a round this process has claimed, to its end (done, failed, or waiting for the budget or a retry).
    /// - Returns: the round as it ended.
    @discardableResult
    public func run(_ claimed: ReviewRoundRecord) async -> ReviewRoundRecord {
        var rec = claimed
        let config = env.loadConfig(rec.project)
        let log = env.logger
        func end(_ status: RoundStatus, _ reason: String?, error: String? = nil) -> ReviewRoundRecord {
            rec.status = status
            rec.reason = reason
            rec.error = error
            rec.ownerPid = nil
            if status == .done || status == .failed { rec.finishedAt = RFC3339.string(env.now.date()) }
            // The sidecar first: whoever waits on the database then finds the sidecar up to date.
            writeSidecar(rec)
            save(rec)
            env.nudge?.nudge()
            if status == .failed {
                log.warning("review round failed", metadata: ["round": "\(rec.id)", "document": "\(rec.document.display)",
                                                             "reason": "\(reason ?? "")"])
            }
            return rec
        }

        var prepared: ReviewRunner.Prepared
        do {
            prepared = try runner.prepare(project: rec.project, document: rec.document, advisorsOverride: rec.advisors,
                                          config: config)
        } catch {
            return end(.failed, error.message, error: error.message)
        }
        if let exclusion = prepared.exclusion { return end(.failed, exclusion) }
        prepared = HistoryService(paths: env.paths, database: env.database).narrow(prepared, round: rec)
        rec.advisors = prepared.advisorIds
        rec.contentSha = prepared.contentSha

        let provider: any LLMProvider
        do { provider = try await env.makeProvider(config) } catch {
            return end(.failed, error.message, error: error.message)
        }
        rec.provider = provider.name
        rec.model = provider.model
        let hash = ReviewRunner.promptHash(prepared, provider: provider.name, model: provider.model)
        rec.promptHash = hash
        if let hit = try? store.cached(project: rec.project, document: rec.document, contentSha: prepared.contentSha,
                                       promptHash: hash), hit.id != rec.id {
            log.info("review skipped: same content and prompt", metadata: ["round": "\(rec.id)", "cached": "\(hit.id)"])
            rec.suggestions = 0
            return end(.done, "same content and prompt as round \(hit.id): no call made")
        }

        let local = ReviewPolicy.isLocal(providerName: provider.name, config: config)
        if !local {
            let now = env.now.date()
            let spent = (try? ledger.spentToday(now: now)) ?? 0
            let input = ReviewPolicy.estimatedTokens(prepared.prompt.system + prepared.prompt.user)
            let output = min(config.review.maxOutputTokens, 2048)
            let estimate = env.estimateCost?(provider.name, provider.model, input, output)
                ?? ((try? ledger.costPerInputToken(provider: provider.name, model: provider.model)) ?? nil).map { $0 * Double(input) }
            if let reason = ReviewPolicy.budgetReason(spentToday: spent, estimate: estimate,
                                                      budget: config.review.dailyBudgetUsd, local: false) {
                rec.notBefore = nil
                log.info("review waits for the budget", metadata: ["round": "\(rec.id)", "reason": "\(reason)"])
                return end(.waiting, reason)
            }
        }

        ProgressHooks.snapshot(paths: env.paths, database: env.database, project: rec.project, document: rec.document,
                               bytes: prepared.bytes, config: env.loadConfig(rec.project), reason: "review", logger: log)
        rec.status = .running
        rec.tries += 1
        rec.startedAt = RFC3339.string(env.now.date())
        save(rec)
        writeSidecar(rec)
        env.nudge?.nudge()
        log.info("review round started", metadata: ["round": "\(rec.id)", "document": "\(rec.document.display)",
                                                   "provider": "\(provider.name)", "model": "\(provider.model)"])
        let ledger = self.ledger
        do {
            var outcome = try await runner.execute(
                prepared, roundID: rec.id, project: rec.project, document: rec.document, config: config, provider: provider
            ) { response in
                do {
                    try ledger.record(provider: response.provider, model: response.model, usage: response.usage,
                                      costUsd: response.costUsd, kind: .round, local: local)
                } catch {
                    log.error("cannot record usage", metadata: ["error": "\(error)"])
                }
            }
            outcome.suggestions = ChangedScope.inFocus(outcome.suggestions, prepared, anchoredIn: outcome.anchoredIn)
            rec.provider = outcome.provider
            rec.model = outcome.model
            rec.inputTokens += outcome.usage.inputTokens
            rec.outputTokens += outcome.usage.outputTokens
            rec.costUsd += outcome.costUsd
            rec.attempts += outcome.attempts
            rec.suggestions = outcome.suggestions.count
            rec.unanchored = outcome.unanchored
            rec.truncated = outcome.truncated
            for p in outcome.problems { log.info("review note", metadata: ["round": "\(rec.id)", "note": "\(p)"]) }
            try? store.setBaseline(project: rec.project, document: rec.document, contentSha: prepared.contentSha,
                                   words: ReviewPolicy.wordBag(prepared.document), now: env.now.date())
            rec.status = .done
            rec.reason = outcome.truncated ? "the reply was cut at the output limit; the complete suggestions were kept" : nil
            rec.error = nil
            rec.ownerPid = nil
            rec.finishedAt = RFC3339.string(env.now.date())
            writeSidecar(rec, newSuggestions: outcome.suggestions, anchoredIn: outcome.anchoredIn)
            save(rec)
            env.nudge?.nudge()
            log.info("review round done", metadata: ["round": "\(rec.id)", "suggestions": "\(outcome.suggestions.count)",
                                                    "unanchored": "\(outcome.unanchored)"])
            let message = Notifier.roundMessage(document: rec.document.display, suggestions: outcome.suggestions)
            await env.notify(config, message.title, message.body, rec.project.appending(rec.document).display)
            return rec
        } catch {
            rec.inputTokens += error.usage.inputTokens
            rec.outputTokens += error.usage.outputTokens
            rec.costUsd += error.costUsd
            rec.attempts += error.attempts
            if Task.isCancelled || error.providerError == .cancelled {
                // The agent is stopping: the round runs again at the next start.
                rec.tries -= 1
                rec.skipQuiet = true
                return end(.queued, "interrupted when the agent stopped; runs again")
            }
            if let pe = error.providerError, pe.isRetryable, rec.tries < Self.maxTries {
                let delay = Self.retryDelay(pe, tries: rec.tries)
                let at = env.now.date().addingTimeInterval(delay)
                rec.notBefore = RFC3339.string(at)
                return end(.waiting, "\(error.message); tries again at \(RFC3339.string(at))")
            }
            return end(.failed, error.message, error: error.message)
        }
    }

    /// How long a round waits after a passing failure: the server's hint, else 2, 4… minutes.
    static func retryDelay(_ e: LLMProviderError, tries: Int) -> TimeInterval {
        switch e {
        case .rateLimited(_, let after?), .overloaded(_, let after?): return max(5, min(after, 3600))
        default: return 120 * Double(1 << min(max(0, tries - 1), 4))
        }
    }

    func save(_ rec: ReviewRoundRecord) {
        do { try store.update(rec) } catch {
            env.logger.error("cannot save a review round", metadata: ["round": "\(rec.id)", "error": "\(error)"])
        }
    }

    // MARK: Sidecar

    /// Shows a round in its document's sidecar; with `newSuggestions`, adds them and tells the journey.
    /// - Parameter anchoredIn: the bytes `newSuggestions` were anchored in, recorded so that the next
    ///   save can follow them through the edit.
    /// - Returns: the sidecar's suggestions after the change, or nil when nothing was written.
    @discardableResult
    public func writeSidecar(_ rec: ReviewRoundRecord, newSuggestions: [Suggestion]? = nil, anchoredIn: [UInt8]? = nil,
                             requested: Bool = false) -> [Suggestion]? {
        let path = rec.project.appending(rec.document)
        guard FileSystem.lstatIfExists(path)?.kind == .regular else { return nil }
        let config = env.loadConfig(rec.project)
        let catalog = env.catalog
        // Stage and pending count for `documents` and `status` at once (not only at the next save).
        let content = (newSuggestions?.isEmpty ?? true) ? nil : anchoredIn.flatMap { $0.isEmpty ? nil : $0 }
        do {
            // A sidecar broken or edited by hand is rebuilt from the database copy of its journey.
            let outcome = try env.owner.change(
                project: rec.project, document: rec.document, cause: .round(id: rec.id, status: rec.status),
                fresh: {
                    let bytes = try FileSystem.read(path, limit: max(1, config.watch.maxFileBytes))
                    let doc = MarkdownDocument(bytes: bytes, fileName: rec.document.lastComponent.display)
                    var s = ReviewSidecar(document: rec.document.display, sha256: SHA256Digest.hex(bytes), updatedAt: "",
                                          words: doc.wordCount)
                    JourneyEngine.documentChanged(&s, document: doc, config: config, catalog: catalog)
                    return s
                },
                record: { _ in DocumentOwner.Record(content: content) }
            ) { s in
                if requested { JourneyEngine.reviewRequested(&s) }
                var round = Self.sidecarRound(rec, advisors: rec.advisors ?? s.journey.advisors)
                let index: Int
                if let i = s.rounds.firstIndex(where: { $0.id == rec.id }) {
                    round.cycle = s.rounds[i].cycle
                    s.rounds[i] = round
                    index = i
                } else {
                    round.cycle = s.journey.revisionCycle + 1
                    s.rounds.append(round)
                    index = s.rounds.count - 1
                }
                if let new = newSuggestions {
                    s.suggestions.removeAll { old in
                        old.round == rec.id
                            || (old.status == .pending && new.contains { Self.overlaps(old, $0) })
                    }
                    s.suggestions += new
                    JourneyEngine.roundFinished(&s, round: round, suggestions: new)
                    s.rounds[index].cycle = max(1, s.journey.revisionCycle)
                }
            }
            return outcome.sidecar.suggestions
        } catch {
            env.logger.error("cannot write the review round to the sidecar",
                             metadata: ["document": "\(rec.document.display)", "error": "\(error)"])
            return nil
        }
    }

    static func overlaps(_ a: Suggestion, _ b: Suggestion) -> Bool {
        guard let s1 = a.start, let e1 = a.end, let s2 = b.start, let e2 = b.end else { return false }
        return s1 < e2 && s2 < e1 || (s1 == s2 && e1 == e2)
    }

    /// The sidecar form of a round.
    public static func sidecarRound(_ rec: ReviewRoundRecord, advisors: [String]) -> Round {
        let started = rec.status == .running || rec.status == .done || rec.status == .failed
        let usage: RoundUsage? = (rec.tries > 0 || rec.inputTokens > 0)
            ? RoundUsage(inputTokens: rec.inputTokens, outputTokens: rec.outputTokens, costUsd: rec.costUsd) : nil
        return Round(
            id: rec.id, cycle: 0, status: rec.status, reason: rec.reason, provider: rec.provider, model: rec.model,
            advisors: advisors, queuedAt: rec.queuedAt, startedAt: started ? rec.startedAt : nil,
            finishedAt: rec.finishedAt, usage: usage, error: rec.status == .failed ? (rec.error ?? rec.reason) : nil,
            unanchored: rec.unanchored, truncated: rec.truncated)
    }
}
