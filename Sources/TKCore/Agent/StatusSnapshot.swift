import Foundation

/// `status --json`, exactly as the contract names it (plus a few extra keys).
public struct StatusSnapshot: Codable, Sendable, Equatable {
    public struct Project: Codable, Sendable, Equatable {
        public var path: String
        public var documents: Int
        public var watching: Bool
        public var problems: [String]
        /// Extension: documents by journey stage and pending suggestions.
        public var journey: JourneySummary?
        public init(path: String, documents: Int, watching: Bool, problems: [String], journey: JourneySummary? = nil) {
            self.path = path; self.documents = documents; self.watching = watching; self.problems = problems
            self.journey = journey
        }
    }
    /// The index: `documents` done of `total` while a scan of a whole project runs (the same
    /// number otherwise), `pending` the documents and changes still to go through.
    public struct Index: Codable, Sendable, Equatable {
        public var documents: Int
        public var total: Int
        public var pending: Int

        public init(documents: Int, total: Int? = nil, pending: Int) {
            self.documents = documents
            self.total = total ?? documents
            self.pending = pending
        }

        enum CodingKeys: String, CodingKey { case documents, total, pending }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            documents = try c.decode(Int.self, forKey: .documents)
            // A status written by an older agent has no total.
            total = try c.decodeIfPresent(Int.self, forKey: .total) ?? documents
            pending = try c.decode(Int.self, forKey: .pending)
        }
    }
    public struct Queue: Codable, Sendable, Equatable {
        public var queued = 0
        public var waiting = 0
        public var running = 0
        public var failed = 0
        public init(queued: Int = 0, waiting: Int = 0, running: Int = 0, failed: Int = 0) {
            self.queued = queued; self.waiting = waiting; self.running = running; self.failed = failed
        }
    }
    public struct Provider: Codable, Sendable, Equatable {
        public var name: String?
        public var model: String?
        public var available: Bool
        public var reason: String?
        public init(name: String? = nil, model: String? = nil, available: Bool = false, reason: String? = nil) {
            self.name = name; self.model = model; self.available = available; self.reason = reason
        }
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(name, forKey: .name); try c.encode(model, forKey: .model)
            try c.encode(available, forKey: .available); try c.encode(reason, forKey: .reason)
        }
    }
    public struct Usage: Codable, Sendable, Equatable {
        public var todayUsd: Double
        public var monthUsd: Double
        public var budgetUsd: Double
        enum CodingKeys: String, CodingKey { case todayUsd = "today_usd", monthUsd = "month_usd", budgetUsd = "budget_usd" }
        public init(todayUsd: Double = 0, monthUsd: Double = 0, budgetUsd: Double = 0) {
            self.todayUsd = todayUsd; self.monthUsd = monthUsd; self.budgetUsd = budgetUsd
        }
    }

    public var running: Bool
    public var pid: Int32?
    public var version: String
    public var uptimeS: Int?
    public var startedAt: String?
    public var updatedAt: String?
    public var projects: [Project]
    public var index: Index
    public var queue: Queue
    public var provider: Provider
    public var usage: Usage
    /// Problems that belong to no single project (configuration, database).
    public var problems: [String]
    /// Background embedding for retrieval (`ask --project`), when the agent runs.
    public var embeddings: EmbeddingStatus?

    enum CodingKeys: String, CodingKey {
        case running, pid, version, projects, index, queue, provider, usage, problems, embeddings
        case uptimeS = "uptime_s", startedAt = "started_at", updatedAt = "updated_at"
    }

    public init(running: Bool, pid: Int32?, version: String = TKVersion.string, uptimeS: Int?, startedAt: String?,
                updatedAt: String?, projects: [Project], index: Index, queue: Queue = Queue(),
                provider: Provider = Provider(), usage: Usage = Usage(), problems: [String] = []) {
        self.running = running; self.pid = pid; self.version = version; self.uptimeS = uptimeS
        self.startedAt = startedAt; self.updatedAt = updatedAt; self.projects = projects; self.index = index
        self.queue = queue; self.provider = provider; self.usage = usage; self.problems = problems
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(running, forKey: .running); try c.encode(pid, forKey: .pid); try c.encode(version, forKey: .version)
        try c.encode(uptimeS, forKey: .uptimeS); try c.encodeIfPresent(startedAt, forKey: .startedAt)
        try c.encodeIfPresent(updatedAt, forKey: .updatedAt)
        try c.encode(projects, forKey: .projects); try c.encode(index, forKey: .index); try c.encode(queue, forKey: .queue)
        try c.encode(provider, forKey: .provider); try c.encode(usage, forKey: .usage); try c.encode(problems, forKey: .problems)
        try c.encodeIfPresent(embeddings, forKey: .embeddings)
    }

    /// The human-readable form of `tk-agent status`.
    public func text(color: Bool) -> String {
        func bold(_ s: String) -> String { color ? "\u{1B}[1m\(s)\u{1B}[0m" : s }
        func warn(_ s: String) -> String { color ? "\u{1B}[33m\(s)\u{1B}[0m" : s }
        var lines: [String] = []
        if running {
            let up = uptimeS.map { Self.duration($0) } ?? "?"
            lines.append("\(bold("tk-agent \(version)")): running (pid \(pid.map(String.init) ?? "?"), up \(up))")
        } else {
            lines.append("\(bold("tk-agent \(version)")): not running — index facts below (start it with `tk-agent run`)")
        }
        if index.total > index.documents {
            lines.append("Index: scanning, \(index.documents) of \(index.total) documents, \(index.pending) pending")
        } else {
            lines.append("Index: \(index.documents) documents\(index.pending > 0 ? ", \(index.pending) pending" : "")")
        }
        if projects.isEmpty { lines.append("Projects: none (add one with `tk-agent watch add PATH`)") }
        for p in projects {
            let state = running ? (p.watching ? "watching" : "not watching") : "idle"
            let journey = p.journey.map(\.text).flatMap { $0.isEmpty ? nil : " — " + $0 } ?? ""
            lines.append("  \(p.path)  \(p.documents) documents, \(state)\(journey)")
            for problem in p.problems { lines.append("    " + warn("! " + problem)) }
        }
        lines.append("Queue: \(queue.queued) queued, \(queue.waiting) waiting, \(queue.running) running, \(queue.failed) failed")
        if let name = provider.name {
            let avail = provider.available ? "available" : "unavailable" + (provider.reason.map { ": \($0)" } ?? "")
            lines.append("Provider: \(name)\(provider.model.map { " (\($0))" } ?? "") — \(avail)")
        } else {
            lines.append("Provider: none" + (provider.reason.map { " — \($0)" } ?? ""))
        }
        lines.append(String(format: "Usage: $%.4f today, $%.4f this month, daily budget $%.2f", usage.todayUsd, usage.monthUsd, usage.budgetUsd))
        if let e = embeddings { lines.append(EmbeddingStatus.line(e)) }
        for problem in problems { lines.append(warn("! " + problem)) }
        return lines.joined(separator: "\n")
    }

    static func duration(_ s: Int) -> String {
        if s < 60 { return "\(s)s" }
        if s < 3600 { return "\(s / 60)m\(s % 60)s" }
        return "\(s / 3600)h\((s % 3600) / 60)m"
    }
}
