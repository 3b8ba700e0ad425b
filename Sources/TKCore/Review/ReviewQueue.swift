import Foundation
import Logging

/// The agent's review queue: starts automatic rounds when a document has settled and changed enough,
/// runs queued rounds (from the agent or `tk-agent review`) up to `review.max_concurrent` at once,
/// and contributes the queue, provider and usage to `status`.
public actor ReviewQueue: AgentExtension {
    struct DocKey: Hashable, Sendable {
        var project: PathBytes
        var document: PathBytes
    }

    public nonisolated let executor: RoundExecutor
    var env: ReviewEnvironment { executor.env }
    /// When each document last changed, as the agent saw it.
    var lastChange: [DocKey: Date] = [:]
    /// Changed documents waiting to be quiet before an automatic round is considered, with their project's config.
    var autoPending: [DocKey: Configuration] = [:]
    /// Rounds running in this process: round id → document.
    var running: [String: DocKey] = [:]
    var tasks: [String: Task<Void, Never>] = [:]
    /// Rounds waiting for the budget, and when it was last checked (checked again every minute or on a wake).
    var budgetCheckedAt: [String: Date] = [:]
    var provider: (status: ProviderStatus, at: Date)?
    /// The provider look-up for `status` in flight (an Ollama probe is a request): cancelled and
    /// awaited with the rounds when the queue stops, so that none runs while the agent exits.
    var providerRefresh: Task<Void, Never>?
    var recovered = false
    /// The queue counts last read, shown (with a problem) if a later read fails.
    var lastQueue: StatusSnapshot.Queue?
    private var waiter: CheckedContinuation<Void, Never>?
    private var wakePending = false

    public init(env: ReviewEnvironment) {
        self.executor = RoundExecutor(env: env)
    }

    // MARK: AgentExtension

    public func documentsChanged(root: PathBytes, changes: [IndexedChange], config: Configuration) async {
        let now = env.now.date()
        for change in changes {
            switch change {
            case .updated(let rel, _, let previous):
                // Only edits start automatic rounds: a document seen for the first time (a new data folder,
                // a new project's first scan) is not sent until the writer changes it, and its file's
                // modification time says when it last changed (`quietReference`), so a first scan of
                // thousands of documents leaves nothing behind here.
                guard previous != nil else { continue }
                let key = DocKey(project: root, document: rel)
                lastChange[key] = now
                if config.review.auto { autoPending[key] = config }
            case .deleted(let rel, _):
                let key = DocKey(project: root, document: rel)
                lastChange[key] = nil
                autoPending[key] = nil
                _ = try? executor.store.cancelPending(project: root, document: rel, reason: "the document was deleted", now: now)
            case .moved(let from, let to, _):
                let old = DocKey(project: root, document: from)
                let new = DocKey(project: root, document: to)
                lastChange[new] = lastChange.removeValue(forKey: old) ?? now
                if let c = autoPending.removeValue(forKey: old) { autoPending[new] = c }
                // Its rounds and baseline are the document's by id: the index's rename moved them.
            }
        }
        fire()
    }

    public func run() async {
        recover()
        while !Task.isCancelled {
            await tick()
            let delay = nextDelay()
            await sleep(delay)
        }
        // The rounds in flight stop (each puts itself back in the queue) before the agent exits.
        let running = Array(tasks.values) + (providerRefresh.map { [$0] } ?? [])
        for task in running { task.cancel() }
        for task in running { await task.value }
    }

    public func wake() async {
        budgetCheckedAt = [:]
        provider = nil
        env.nudge?.nudge()
        fire()
    }

    public func contribute(to status: inout StatusSnapshot) async {
        let global = env.loadConfig(nil)
        lastQueue = Self.contribute(store: executor.store, ledger: executor.ledger, config: global, now: env.now.date(),
                                    lastKnown: lastQueue, to: &status)
        if let provider {
            status.provider = .init(name: provider.status.name, model: provider.status.model,
                                    available: provider.status.available, reason: provider.status.reason)
        } else {
            refreshProvider()
        }
    }

    /// The queue and usage facts for `status`, from the database alone (also used when no agent runs).
    /// When the rounds cannot be counted, the queue is the last one read (`lastKnown`) and a problem
    /// says so: never an empty queue while rounds may wait. Returns the queue shown.
    @discardableResult
    public static func contribute(store: ReviewStore, ledger: UsageLedger, config: Configuration, now: Date,
                                  lastKnown: StatusSnapshot.Queue? = nil,
                                  to status: inout StatusSnapshot) -> StatusSnapshot.Queue? {
        var shown = lastKnown
        do {
            shown = try store.counts(now: now)
        } catch {
            status.problems.append("review queue: the rounds could not be counted (\(error)); "
                + (lastKnown == nil ? "the queue is unknown" : "showing the last counts read"))
        }
        if let shown { status.queue = shown }
        if let t = try? ledger.totals(now: now) {
            status.usage.todayUsd = t.today.costUsd
            status.usage.monthUsd = t.month.costUsd
        }
        status.usage.budgetUsd = config.review.dailyBudgetUsd
        if let reasons = try? store.waitingReasons() { status.problems += reasons }
        return shown
    }

    // MARK: Scheduling

    /// Puts back rounds a stopped process left running (once, at start).
    func recover() {
        guard !recovered else { return }
        recovered = true
        executor.recoverInterrupted()
    }

    /// One pass: automatic rounds for quiet documents, then start what may start.
    public func tick() async {
        recover()
        let now = env.now.date()
        for (key, config) in autoPending {
            let last = lastChange[key] ?? now
            guard ReviewPolicy.isQuiet(lastChange: last, now: now, quietSeconds: config.review.quietSeconds) else { continue }
            autoPending[key] = nil
            considerAutomatic(key, config: config)
        }
        if provider == nil || now.timeIntervalSince(provider?.at ?? now) > 60 { refreshProvider() }
        startPending(now: now)
    }

    /// Queues an automatic round when the document may be sent and changed enough since its last round.
    func considerAutomatic(_ key: DocKey, config: Configuration) {
        let path = key.project.appending(key.document)
        guard let bytes = try? FileSystem.read(path, limit: max(1, config.watch.maxFileBytes)) else { return }
        let doc = MarkdownDocument(bytes: bytes, fileName: key.document.lastComponent.display)
        if let why = ReviewPolicy.exclusion(frontMatter: doc.frontMatter, relative: key.document, config: config) {
            env.logger.debug("no automatic review", metadata: ["document": "\(key.document.display)", "reason": "\(why)"])
            return
        }
        if case .ok(let sidecar, _) = env.sidecars.read(project: key.project, document: key.document),
           !JourneyEngine.allowsAutomaticReview(sidecar) {
            env.logger.debug("no automatic review: the document is final", metadata: ["document": "\(key.document.display)"])
            return
        }
        if let p = provider?.status, !p.available {
            env.logger.debug("no automatic review: no provider", metadata: ["document": "\(key.document.display)"])
            return
        }
        let base = (try? executor.store.baseline(project: key.project, document: key.document)) ?? []
        let changed = ReviewPolicy.changedWords(old: base, new: ReviewPolicy.wordBag(doc))
        guard changed >= max(1, config.review.minChangedWords) else {
            env.logger.debug("no automatic review: too few changed words",
                             metadata: ["document": "\(key.document.display)", "changed": "\(changed)"])
            return
        }
        do {
            let rec = try executor.submit(project: key.project, document: key.document, manual: false, skipQuiet: false,
                                          advisors: nil)
            env.logger.info("automatic review queued", metadata: ["round": "\(rec.id)", "document": "\(key.document.display)",
                                                                  "changed_words": "\(changed)"])
        } catch {
            env.logger.error("cannot queue a review", metadata: ["document": "\(key.document.display)", "error": "\(error)"])
        }
    }

    func startPending(now: Date) {
        let global = env.loadConfig(nil)
        let limit = max(1, global.review.maxConcurrent)
        guard running.count < limit else { return }
        let pending: [ReviewRoundRecord]
        do { pending = try executor.store.pending() } catch {
            env.logger.error("cannot read the review queue", metadata: ["error": "\(error)"])
            return
        }
        for rec in pending {
            if running.count >= limit { break }
            let key = DocKey(project: rec.project, document: rec.document)
            if running.values.contains(key) { continue }
            if rec.status == .waiting {
                if let nb = rec.notBefore.flatMap(RFC3339.date) {
                    if nb > now { continue }
                } else if let checked = budgetCheckedAt[rec.id], now.timeIntervalSince(checked) < 60 {
                    continue
                }
            }
            if !rec.skipQuiet {
                let config = env.loadConfig(rec.project)
                if !ReviewPolicy.isQuiet(lastChange: quietReference(key), now: now, quietSeconds: config.review.quietSeconds) {
                    continue
                }
            }
            guard let claimed = try? executor.store.claim(id: rec.id, pid: env.pid, now: now) else { continue }
            running[rec.id] = key
            budgetCheckedAt[rec.id] = nil
            let executor = self.executor
            tasks[rec.id] = Task { [weak self] in
                let ended = await executor.run(claimed)
                await self?.finished(ended)
            }
        }
    }

    func finished(_ rec: ReviewRoundRecord) {
        running[rec.id] = nil
        tasks[rec.id] = nil
        if rec.status == .waiting && rec.notBefore == nil { budgetCheckedAt[rec.id] = env.now.date() }
        fire()
    }

    /// When the document last changed: as the agent saw it, else its modification time.
    func quietReference(_ key: DocKey) -> Date? {
        if let d = lastChange[key] { return d }
        guard let st = FileSystem.lstatIfExists(key.project.appending(key.document)) else { return nil }
        return Date(timeIntervalSince1970: Double(st.mtimeNs) / 1e9)
    }

    /// How long to sleep before the next pass (a wake cuts it short).
    func nextDelay() -> Duration {
        let now = env.now.date()
        var next = now.addingTimeInterval(60)
        for (key, config) in autoPending {
            let at = ReviewPolicy.quietAt(lastChange: lastChange[key] ?? now, quietSeconds: config.review.quietSeconds)
            next = min(next, at)
        }
        if let pending = try? executor.store.pending() {
            for rec in pending {
                if let nb = rec.notBefore.flatMap(RFC3339.date) { next = min(next, nb) }
                if !rec.skipQuiet, let last = quietReference(DocKey(project: rec.project, document: rec.document)) {
                    let q = env.loadConfig(rec.project).review.quietSeconds
                    next = min(next, ReviewPolicy.quietAt(lastChange: last, quietSeconds: q))
                }
            }
        }
        let seconds = max(0.05, next.timeIntervalSince(now))
        return .milliseconds(Int64(seconds * 1000))
    }

    func refreshProvider() {
        guard providerRefresh == nil else { return }
        let env = self.env
        providerRefresh = Task { [weak self] in
            let status = await env.providerStatus(env.loadConfig(nil))
            await self?.providerRefreshed(status, cancelled: Task.isCancelled)
        }
    }

    func providerRefreshed(_ status: ProviderStatus, cancelled: Bool) {
        providerRefresh = nil
        // A look-up cut short by a stop says nothing of the provider.
        guard !cancelled else { return }
        let changed = provider?.status != status
        provider = (status, env.now.date())
        if changed { env.nudge?.nudge() }
    }

    // MARK: Waking

    private func sleep(_ delay: Duration) async {
        if wakePending {
            wakePending = false
            return
        }
        let timer = Task { [weak self] in
            try? await Task.sleep(for: delay)
            if !Task.isCancelled { await self?.fire() }
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                if Task.isCancelled { c.resume() } else { waiter = c }
            }
        } onCancel: {
            Task { [weak self] in await self?.fire() }
        }
        timer.cancel()
    }

    func fire() {
        if let w = waiter {
            waiter = nil
            w.resume()
        } else {
            wakePending = true
        }
    }

    /// Waits until no round runs in this process (tests, shutdown).
    public func drain() async {
        while let task = tasks.values.first {
            await task.value
        }
    }

    /// How many rounds run in this process now.
    public var runningCount: Int { running.count }
}
