import Foundation
import GRDB

/// One row of the durable review queue.
public struct ReviewRoundRecord: Sendable, Equatable {
    public var id: String
    public var project: PathBytes
    public var document: PathBytes
    public var status: RoundStatus
    /// Asked for with `tk-agent review` (not an automatic round).
    public var manual: Bool
    /// `--now`: starts without waiting for the document to be quiet.
    public var skipQuiet: Bool
    public var reason: String?
    /// `--advisors`; nil uses the document's advisors.
    public var advisors: [String]?
    public var contentSha: String?
    public var promptHash: String?
    public var provider: String?
    public var model: String?
    public var inputTokens = 0
    public var outputTokens = 0
    public var costUsd = 0.0
    public var attempts = 0
    /// How many times the round was sent (a round that failed for a passing reason is tried again later).
    public var tries = 0
    public var suggestions: Int?
    public var unanchored: Int?
    public var truncated: Bool?
    /// The process running the round (the agent, or a CLI running it in-process).
    public var ownerPid: Int32?
    /// A waiting round retries no earlier than this (rate limits, network down).
    public var notBefore: String?
    public var queuedAt: String
    public var startedAt: String?
    public var finishedAt: String?
    public var error: String?

    public init(id: String, project: PathBytes, document: PathBytes, status: RoundStatus = .queued, manual: Bool,
                skipQuiet: Bool, advisors: [String]?, queuedAt: String) {
        self.id = id; self.project = project; self.document = document; self.status = status; self.manual = manual
        self.skipQuiet = skipQuiet; self.advisors = advisors; self.queuedAt = queuedAt
    }

    /// Whether the round is over.
    public var isFinished: Bool { status == .done || status == .failed }
}

/// A round is a row of `review_round`: paths as BLOBs, advisors as JSON text, flags as integers.
extension ReviewRoundRecord: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "review_round"

    public enum Columns {
        static let id = Column("id"), project = Column("project"), document = Column("document"), status = Column("status")
        static let manual = Column("manual"), skipQuiet = Column("skip_quiet"), reason = Column("reason"), advisors = Column("advisors")
        static let contentSha = Column("content_sha"), promptHash = Column("prompt_hash"), provider = Column("provider")
        static let model = Column("model"), inputTokens = Column("input_tokens"), outputTokens = Column("output_tokens")
        static let costUsd = Column("cost_usd"), attempts = Column("attempts"), tries = Column("tries")
        static let suggestions = Column("suggestions"), unanchored = Column("unanchored"), truncated = Column("truncated")
        static let ownerPid = Column("owner_pid"), notBefore = Column("not_before"), queuedAt = Column("queued_at")
        static let startedAt = Column("started_at"), finishedAt = Column("finished_at"), error = Column("error")
    }

    public init(row: Row) throws {
        let advisorsText: String? = row[Columns.advisors]
        self.init(id: row[Columns.id], project: PathBytes(Array(row[Columns.project] as Data)),
                  document: PathBytes(Array(row[Columns.document] as Data)),
                  status: RoundStatus(rawValue: row[Columns.status]) ?? .failed, manual: row[Columns.manual],
                  skipQuiet: row[Columns.skipQuiet],
                  advisors: advisorsText.flatMap { try? JSON.decode([String].self, from: Array($0.utf8)) },
                  queuedAt: row[Columns.queuedAt])
        reason = row[Columns.reason]; contentSha = row[Columns.contentSha]; promptHash = row[Columns.promptHash]
        provider = row[Columns.provider]; model = row[Columns.model]; inputTokens = row[Columns.inputTokens]
        outputTokens = row[Columns.outputTokens]; costUsd = row[Columns.costUsd]; attempts = row[Columns.attempts]
        tries = row[Columns.tries]; suggestions = row[Columns.suggestions]; unanchored = row[Columns.unanchored]
        truncated = (row[Columns.truncated] as Int?).map { $0 != 0 }
        ownerPid = (row[Columns.ownerPid] as Int64?).map { Int32(truncatingIfNeeded: $0) }
        notBefore = row[Columns.notBefore]; startedAt = row[Columns.startedAt]; finishedAt = row[Columns.finishedAt]
        error = row[Columns.error]
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container[Columns.id] = id
        container[Columns.project] = Data(project.bytes)
        container[Columns.document] = Data(document.bytes)
        container[Columns.status] = status.rawValue
        container[Columns.manual] = manual
        container[Columns.skipQuiet] = skipQuiet
        container[Columns.reason] = reason
        container[Columns.advisors] = advisors.map { JSON.string($0, pretty: false) }
        container[Columns.contentSha] = contentSha
        container[Columns.promptHash] = promptHash
        container[Columns.provider] = provider
        container[Columns.model] = model
        container[Columns.inputTokens] = inputTokens
        container[Columns.outputTokens] = outputTokens
        container[Columns.costUsd] = costUsd
        container[Columns.attempts] = attempts
        container[Columns.tries] = tries
        container[Columns.suggestions] = suggestions
        container[Columns.unanchored] = unanchored
        container[Columns.truncated] = truncated.map { $0 ? 1 : 0 }
        container[Columns.ownerPid] = ownerPid.map { Int64($0) }
        container[Columns.notBefore] = notBefore
        container[Columns.queuedAt] = queuedAt
        container[Columns.startedAt] = startedAt
        container[Columns.finishedAt] = finishedAt
        container[Columns.error] = error
    }
}

/// The review queue and per-document baselines in the database. Every process (the agent, the
/// CLI) goes through this; rows change state with single-statement updates, so two processes never
/// both start the same round.
public struct ReviewStore: Sendable {
    public let database: AppDatabase
    public init(database: AppDatabase) { self.database = database }

    /// The columns a round is read with (every column of `review_round`).
    static let columns = "*"

    static func record(_ row: Row) throws -> ReviewRoundRecord { try ReviewRoundRecord(row: row) }

    /// A new round id: `r` and 12 hex digits.
    public static func newID() -> String {
        "r" + SHA256Digest.hex(Array("\(UUID().uuidString) \(Date().timeIntervalSince1970)".utf8)).prefix(12)
    }

    /// Queues a round for a document, or merges the request into the document's round that has not started
    /// yet (saves and requests during a wait coalesce into one round).
    /// - Returns: the queued round and whether it is new.
    public func enqueue(project: PathBytes, document: PathBytes, manual: Bool, skipQuiet: Bool, advisors: [String]?,
                        now: Date = Date()) throws -> (round: ReviewRoundRecord, created: Bool) {
        try database.writer.write { db in
            if let row = try Row.fetchOne(db, sql: """
                SELECT \(Self.columns) FROM review_round WHERE project = ? AND document = ? AND status IN ('queued', 'waiting')
                ORDER BY queued_at LIMIT 1
                """, arguments: [Data(project.bytes), Data(document.bytes)]) {
                var r = try Self.record(row)
                r.manual = r.manual || manual
                r.skipQuiet = r.skipQuiet || skipQuiet
                if let advisors { r.advisors = advisors }
                try db.execute(sql: "UPDATE review_round SET manual = ?, skip_quiet = ?, advisors = ? WHERE id = ?",
                               arguments: [r.manual, r.skipQuiet, r.advisors.map { JSON.string($0, pretty: false) }, r.id])
                return (r, false)
            }
            let r = ReviewRoundRecord(id: Self.newID(), project: project, document: document, manual: manual,
                                      skipQuiet: skipQuiet, advisors: advisors, queuedAt: RFC3339.string(now))
            try r.insert(db)
            return (r, true)
        }
    }

    /// Writes every field of a round.
    public func update(_ r: ReviewRoundRecord) throws {
        try database.writer.write { db in try r.update(db) }
    }

    public func round(id: String) throws -> ReviewRoundRecord? {
        try database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.columns) FROM review_round WHERE id = ?", arguments: [id]).map { try Self.record($0) }
        }
    }

    /// Rounds that have not started, oldest first.
    public func pending() throws -> [ReviewRoundRecord] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.columns) FROM review_round WHERE status IN ('queued', 'waiting') ORDER BY queued_at, rowid
                """).map { try Self.record($0) }
        }
    }

    /// The rounds of one document, oldest first.
    public func rounds(project: PathBytes, document: PathBytes) throws -> [ReviewRoundRecord] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: """
                SELECT \(Self.columns) FROM review_round WHERE project = ? AND document = ? ORDER BY queued_at, rowid
                """, arguments: [Data(project.bytes), Data(document.bytes)]).map { try Self.record($0) }
        }
    }

    /// Marks a queued or waiting round as running by `pid`. Returns nil when it was not pending any more
    /// (another process took it, or it finished).
    public func claim(id: String, pid: Int32, now: Date = Date()) throws -> ReviewRoundRecord? {
        try database.writer.write { db in
            try db.execute(sql: """
                UPDATE review_round SET status = 'running', owner_pid = ?, started_at = ?, reason = NULL, not_before = NULL
                WHERE id = ? AND status IN ('queued', 'waiting')
                """, arguments: [Int64(pid), RFC3339.string(now), id])
            guard db.changesCount == 1 else { return nil }
            return try Row.fetchOne(db, sql: "SELECT \(Self.columns) FROM review_round WHERE id = ?", arguments: [id]).map { try Self.record($0) }
        }
    }

    /// Puts rounds left `running` by a process that is gone (killed, crashed) back in the queue.
    /// - Returns: the rounds put back.
    public func recoverInterrupted(isAlive: (Int32) -> Bool) throws -> [ReviewRoundRecord] {
        try database.writer.write { db in
            let stale = try Row.fetchAll(db, sql: "SELECT \(Self.columns) FROM review_round WHERE status = 'running'")
                .map { try Self.record($0) }.filter { r in r.ownerPid.map { !isAlive($0) } ?? true }
            var out: [ReviewRoundRecord] = []
            for var r in stale {
                r.status = .queued
                r.reason = "interrupted when its process stopped; runs again"
                r.skipQuiet = true
                r.ownerPid = nil
                try db.execute(sql: """
                    UPDATE review_round SET status = 'queued', reason = ?, skip_quiet = 1, owner_pid = NULL WHERE id = ?
                    """, arguments: [r.reason, r.id])
                out.append(r)
            }
            return out
        }
    }

    /// A finished round of the same document that saw the same content with the same prompt.
    public func cached(project: PathBytes, document: PathBytes, contentSha: String, promptHash: String) throws -> ReviewRoundRecord? {
        try database.writer.read { db in
            try Row.fetchOne(db, sql: """
                SELECT \(Self.columns) FROM review_round WHERE project = ? AND document = ? AND content_sha = ? AND prompt_hash = ?
                AND status = 'done' ORDER BY finished_at DESC LIMIT 1
                """, arguments: [Data(project.bytes), Data(document.bytes), contentSha, promptHash]).map { try Self.record($0) }
        }
    }

    /// Follows a renamed document.
    public func move(project: PathBytes, from old: PathBytes, to new: PathBytes) throws {
        try database.writer.write { db in
            try db.execute(sql: "UPDATE review_round SET document = ? WHERE project = ? AND document = ?",
                           arguments: [Data(new.bytes), Data(project.bytes), Data(old.bytes)])
            try db.execute(sql: "DELETE FROM review_baseline WHERE project = ? AND document = ?",
                           arguments: [Data(project.bytes), Data(new.bytes)])
            try db.execute(sql: "UPDATE review_baseline SET document = ? WHERE project = ? AND document = ?",
                           arguments: [Data(new.bytes), Data(project.bytes), Data(old.bytes)])
        }
    }

    /// Forgets the pending rounds of a deleted document.
    public func cancelPending(project: PathBytes, document: PathBytes, reason: String, now: Date = Date()) throws -> [ReviewRoundRecord] {
        try database.writer.write { db in
            let rows = try Row.fetchAll(db, sql: """
                SELECT \(Self.columns) FROM review_round WHERE project = ? AND document = ? AND status IN ('queued', 'waiting')
                """, arguments: [Data(project.bytes), Data(document.bytes)]).map { try Self.record($0) }
            try db.execute(sql: """
                UPDATE review_round SET status = 'failed', reason = ?, finished_at = ?
                WHERE project = ? AND document = ? AND status IN ('queued', 'waiting')
                """, arguments: [reason, RFC3339.string(now), Data(project.bytes), Data(document.bytes)])
            return rows
        }
    }

    // MARK: Baselines

    /// The words the document's last successful round saw (empty for a document never reviewed).
    public func baseline(project: PathBytes, document: PathBytes) throws -> [UInt32] {
        try database.writer.read { db in
            let data = try Data.fetchOne(db, sql: "SELECT words FROM review_baseline WHERE project = ? AND document = ?",
                                         arguments: [Data(project.bytes), Data(document.bytes)])
            return data.map(ReviewPolicy.decode) ?? []
        }
    }

    public func setBaseline(project: PathBytes, document: PathBytes, contentSha: String, words: [UInt32], now: Date = Date()) throws {
        try database.writer.write { db in
            try db.execute(sql: """
                INSERT INTO review_baseline(project, document, content_sha, words, updated_at) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(project, document) DO UPDATE SET content_sha = excluded.content_sha, words = excluded.words,
                updated_at = excluded.updated_at
                """, arguments: [Data(project.bytes), Data(document.bytes), contentSha, ReviewPolicy.encode(words), RFC3339.string(now)])
        }
    }

    // MARK: Status

    /// Queue counts for `status`. `failed` counts documents whose latest round failed.
    public func counts(now: Date = Date()) throws -> StatusSnapshot.Queue {
        try database.writer.read { db in
            var q = StatusSnapshot.Queue()
            for row in try Row.fetchAll(db, sql: "SELECT status, COUNT(*) AS n FROM review_round GROUP BY status") {
                let n: Int = row["n"]
                switch RoundStatus(rawValue: row["status"]) {
                case .queued: q.queued = n
                case .waiting: q.waiting = n
                case .running: q.running = n
                default: break
                }
            }
            q.failed = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM review_round r WHERE r.status = 'failed' AND NOT EXISTS (
                    SELECT 1 FROM review_round n WHERE n.project = r.project AND n.document = r.document
                    AND n.rowid != r.rowid AND n.queued_at >= r.queued_at AND n.status != 'failed')
                AND r.finished_at >= ?
                """, arguments: [RFC3339.string(now.addingTimeInterval(-86_400))]) ?? 0
            return q
        }
    }

    /// One line per waiting round: why it waits.
    public func waitingReasons() throws -> [String] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT document, reason FROM review_round WHERE status = 'waiting' ORDER BY queued_at")
                .map { row in
                    let doc = PathBytes(Array(row["document"] as Data)).display
                    return "review of \(doc) waiting: \((row["reason"] as String?) ?? "no reason recorded")"
                }
        }
    }
}
