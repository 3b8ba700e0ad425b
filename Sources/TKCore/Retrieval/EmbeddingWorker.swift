import Foundation
import Logging

/// `status --json` → `embeddings`: where the background embedding stands.
public struct EmbeddingStatus: Codable, Sendable, Equatable {
    public var provider: String?
    public var model: String?
    /// `off` (keyword-only retrieval), `embedding`, `idle` (everything embedded), `paused` (budget, errors).
    public var state: String
    /// Texts (passages, or windows of long ones) with an embedding from the current model.
    public var embedded: Int
    /// Texts still to embed (passages, windows, and passages not yet planned or written).
    public var pending: Int
    /// Passages of `tk: {review: false}` or `review.exclude` documents, kept from a remote provider.
    public var withheld: Int
    public var reason: String?

    public init(provider: String? = nil, model: String? = nil, state: String = "off", embedded: Int = 0, pending: Int = 0,
                withheld: Int = 0, reason: String? = nil) {
        self.provider = provider; self.model = model; self.state = state; self.embedded = embedded
        self.pending = pending; self.withheld = withheld; self.reason = reason
    }
}

/// Embeds passages in the background, incrementally: only digests without a vector from the
/// current model are sent, so a restart, a rename or an unchanged model sends nothing. Runs as an
/// agent extension (registered in `makeAgentExtensions`); keyword retrieval works meanwhile.
public actor EmbeddingWorker: AgentExtension {
    let paths: Paths
    let database: AppDatabase
    let logger: Logger
    let nudge: StatusNudge
    let environment: [String: String]
    /// Where the user's and each project's configuration is read (the agent's one store).
    let configurations: ConfigurationStore
    /// The user configuration as it stands (the embedding provider, the budget).
    var configuration: Configuration { configurations.user().config }
    var status = EmbeddingStatus()
    var wakeUp: AsyncStream<Void>.Continuation?
    var client: EmbeddingClient?
    var clientResolvedAt: Date?
    /// Project id → root (to read the project's `review.exclude`).
    var projectRoots: [Int64: PathBytes] = [:]

    public init(configurations: ConfigurationStore, database: AppDatabase, logger: Logger, nudge: StatusNudge) {
        self.paths = configurations.paths; self.configurations = configurations; self.database = database
        self.logger = logger; self.nudge = nudge; self.environment = configurations.environment
    }

    public func documentsChanged(root: PathBytes, changes: [IndexedChange], config: Configuration) async {
        guard !changes.isEmpty else { return }
        // Not idle any more until the next pass has looked at what changed, and never "nothing
        // pending" meanwhile: each changed document may bring passages to embed (the pass counts
        // them exactly; `test_status_never_says_nothing_is_pending_while_vectors_are_missing`).
        if client != nil, status.state == "idle" || status.pending == 0 {
            var s = status
            s.state = "embedding"
            s.pending = max(s.pending, changes.count)
            set(s)
        }
        wakeUp?.yield()
    }

    public func wake() async {
        clientResolvedAt = nil
        projectRoots = [:]
        wakeUp?.yield()
    }

    public func contribute(to snapshot: inout StatusSnapshot) async {
        snapshot.embeddings = status
    }

    public func run() async {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        wakeUp = continuation
        defer { continuation.finish() }
        // Every piece of work is a child of this task: cancelled with it (the agent stops), waited for.
        await withDiscardingTaskGroup { group in
            // Wakes the loop at least every 30 s (a provider that came up, a budget that reset).
            group.addTask {
                while (try? await Task.sleep(for: .seconds(30))) != nil { continuation.yield() }
            }
            var iterator = stream.makeAsyncIterator()
            while !Task.isCancelled {
                await pass()
                guard await iterator.next() != nil else { break }
                // Let a burst of saves settle before embedding what they changed.
                try? await Task.sleep(for: .milliseconds(200))
            }
            group.cancelAll()
        }
    }

    func set(_ s: EmbeddingStatus) {
        if s != status { status = s; nudge.nudge() }
    }

    /// One pass: backfill passages of old index entries, then embed everything pending.
    func pass() async {
        if clientResolvedAt == nil || (client == nil && Date().timeIntervalSince(clientResolvedAt ?? .distantPast) > 60) {
            clientResolvedAt = Date()
            switch await EmbeddingClientFactory.make(configuration: configuration, environment: environment, logger: logger) {
            case .client(let c):
                client = c
                logger.info("embeddings", metadata: ["provider": "\(c.provider)", "model": "\(c.model)", "remote": "\(c.isRemote)"])
            case .none(let why):
                client = nil
                set(EmbeddingStatus(state: "off", reason: why + "; retrieval is keyword-only"))
            }
        }
        if client != nil, let unwritten = try? database.unwrittenPassages(), unwritten > 0 {
            // Passages not written yet wait for a vector too: status never says nothing is pending
            // while they do (the count becomes exact once they are written).
            var s = status
            s.pending = max(s.pending, unwritten)
            s.state = "embedding"
            set(s)
        }
        await backfill()
        if Task.isCancelled { return }
        guard let client else { return }
        do {
            try await embedPending(client)
        } catch {
            logger.warning("embedding failed", metadata: ["error": "\(error)"])
            var s = status
            s.state = "paused"
            s.reason = "\(error)"
            set(s)
        }
    }

    /// Documents indexed before passages existed get theirs from the file (when it still matches).
    /// Stops between files when the agent does (the task is cancelled).
    func backfill() async {
        let database = self.database
        await StopFlag.whileRunning { stop in _ = PassageBackfill.run(database: database, stop: stop) }
    }

    func projectConfiguration(_ projectID: Int64) -> Configuration {
        if projectRoots[projectID] == nil, let all = try? database.projects() { for p in all { projectRoots[p.id] = p.root } }
        guard let root = projectRoots[projectID] else { return configuration }
        return configurations.load(project: root).config
    }

    /// Whether a passage may be sent to this client: a remote one never gets private documents.
    /// - Parameter config: its project's configuration.
    func mayEmbed(_ p: PendingPassage, _ client: EmbeddingClient, config: (Int64) -> Configuration) -> Bool {
        guard client.isRemote else { return true }
        if p.isPrivate { return false }
        var fm = FrontMatter()
        fm.tk.review = nil
        return ReviewPolicy.exclusion(frontMatter: fm, relative: p.path, config: config(p.projectID)) == nil
    }

    /// Plans the texts of every passage not yet planned for this client's window budget (a
    /// passage that fits is one text under its own digest; a longer one, overlapping windows), in
    /// batches, stopping with the agent.
    func planWindows(_ client: EmbeddingClient) throws {
        let budget = client.windowBudget
        let plan = EmbeddingWindows.plan(budget: budget)
        var planned = 0
        var after: Int64 = 0
        while !Task.isCancelled {
            let batch = try database.unplannedPassages(plan: plan, after: after)
            guard let last = batch.last else { break }
            after = last.id
            let items = batch.map { p -> (digest: Int64, keys: [Int64]) in
                let texts = EmbeddingWindows.texts(heading: p.heading, text: p.text, budget: budget)
                return (p.digest, texts.count == 1 ? [p.digest] : texts.map(EmbeddingWindows.key))
            }
            try database.storeWindows(plan: plan, items)
            planned += batch.count
            if status.state != "embedding" || status.pending < planned {
                var s = status
                s.state = "embedding"
                s.pending = max(s.pending, planned)
                set(s)
            }
        }
    }

    func embedPending(_ client: EmbeddingClient) async throws {
        let model = client.modelID
        let budget = client.windowBudget
        let plan = EmbeddingWindows.plan(budget: budget)
        try planWindows(client)
        if Task.isCancelled { return }
        let all = try database.passagesWithoutVectors(model: model, plan: plan)
        // Each project's configuration read once a pass, not once a passage.
        var configs: [Int64: Configuration] = [:]
        let allowed = all.filter { p in
            mayEmbed(p, client) { id in
                if let c = configs[id] { return c }
                let c = projectConfiguration(id)
                configs[id] = c
                return c
            }
        }
        let withheld = all.count - allowed.count
        let progress = try database.embeddingProgress(model: model, plan: plan)
        var s = EmbeddingStatus(provider: client.provider, model: client.model, state: allowed.isEmpty ? "idle" : "embedding",
                                embedded: progress.embedded, pending: allowed.count, withheld: withheld)
        set(s)
        var start = 0
        var sincePacked = 0
        let ledger = UsageLedger(database: database)
        while start < allowed.count {
            if Task.isCancelled { return }
            let batch = Array(allowed[start..<min(allowed.count, start + client.batchSize)])
            let texts = try database.embeddingTexts(batch, budget: budget)
            let items = batch.compactMap { p in texts[p.key].map { (p.key, $0) } }
            if client.usdPerMillionTokens > 0 {
                let estimate = Double(items.reduce(0) { $0 + ReviewPolicy.estimatedTokens($1.1) }) * client.usdPerMillionTokens / 1e6
                let config = configuration
                if let why = ReviewPolicy.budgetReason(spentToday: (try? ledger.spentToday()) ?? 0, estimate: estimate,
                                                       budget: config.review.dailyBudgetUsd, local: false) {
                    s.state = "paused"
                    s.reason = "embedding " + why
                    set(s)
                    return
                }
            }
            let (vectors, tokens) = try await client.embed(items.map(\.1), purpose: .document)
            try database.storeVectors(model: model, zip(items, vectors).map { ($0.0, QuantizedVector($1)) })
            // Questions read packed vectors (`VectorPacks`); a long run packs as it goes.
            sincePacked += items.count
            if sincePacked >= VectorPacks.workerThreshold {
                _ = try? database.packVectors(model: model)
                sincePacked = 0
            }
            let cost = Double(tokens) * client.usdPerMillionTokens / 1e6
            try? ledger.record(provider: client.provider, model: client.model, usage: LLMUsage(inputTokens: tokens),
                               costUsd: cost, kind: .embedding, local: !client.isRemote)
            start += batch.count
            s.embedded += items.count
            s.pending = allowed.count - start
            s.state = s.pending == 0 ? "idle" : "embedding"
            set(s)
        }
        if !allowed.isEmpty { try? database.pruneVectors() }
        // What this run stored or pruned, or what a database from before packs holds, goes into
        // packs (nothing to do most times: one look at an empty list).
        _ = try? database.packVectors()
    }
}

extension EmbeddingStatus {
    /// The line of `tk-agent status`.
    static func line(_ e: EmbeddingStatus) -> String {
        let who = [e.provider, e.model].compactMap { $0 }.joined(separator: "/")
        var s = "Embeddings: "
        switch e.state {
        case "off": s += "off" + (e.reason.map { " — \($0)" } ?? "")
        case "embedding": s += "\(who): embedding, \(e.embedded) done, \(e.pending) to go (keyword retrieval meanwhile)"
        case "paused": s += "\(who): paused, \(e.pending) to go" + (e.reason.map { " — \($0)" } ?? "")
        default: s += "\(who): \(e.embedded) passages embedded"
        }
        if e.withheld > 0 { s += "; \(e.withheld) private passages kept from the remote provider" }
        return s
    }
}
