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

/// The review queue and per-document baselines in the database. Every process (the agent, the
/// CLI) goes through this; rows change state with single-statement updates, so two processes never
/// both start the same round.
public struct ReviewStore: Sendable {
    public let database: AppDatabase
    public init(database: AppDatabase) { self.database = database }

    static let columns = """
        id, project, document, status, manual, skip_quiet, reason, advisors, content_sha, prompt_hash, provider, model,
        input_tokens, output_tokens, cost_usd, attempts, tries, suggestions, unanchored, truncated, owner_pid, not_before,
        queued_at, started_at, finished_at, error
        """

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
            if var r = try ReviewRoundRecord.fetchOne(db, sql: """
                SELECT \(Self.columns) FROM review_round WHERE project = ? AND document = ? AND status IN ('queued', 'waiting')
                ORDER BY queued_at LIMIT 1
                """, arguments: [Data(project.bytes), Data(document.bytes)]) {
                r.manual = r.manual || manual
                r.skipQuiet = r.skipQuiet || skipQuiet
                if let advisors { r.advisors = advisors }
                try db.execute(sql: "UPDATE review_round SET manual = ?, skip_quiet = ?, advisors = ? WHERE id = ?",
                               arguments: [r.manual, r.skipQuiet, ReviewRoundRecord.advisorsText(r.advisors), r.id])
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
        try database.writer.write { db in
            // A round no longer in the table stays gone (as with the plain UPDATE this replaced).
            do { try r.update(db) } catch RecordError.recordNotFound {}
        }
    }

    public func round(id: String) throws -> ReviewRoundRecord? {
        try database.writer.read { db in
            try ReviewRoundRecord.fetchOne(db, sql: "SELECT \(Self.columns) FROM review_round WHERE id = ?", arguments: [id])
        }
    }

    /// Rounds that have not started, oldest first.
    public func pending() throws -> [ReviewRoundRecord] {
        try database.writer.read { db in
            try ReviewRoundRecord.fetchAll(db, sql: """
                SELECT \(Self.columns) FROM review_round WHERE status IN ('queued', 'waiting') ORDER BY queued_at, rowid
                """)
        }
    }

    /// The rounds of one document, oldest first.
    public func rounds(project: PathBytes, document: PathBytes) throws -> [ReviewRoundRecord] {
        try database.writer.read { db in
            try ReviewRoundRecord.fetchAll(db, sql: """
                SELECT \(Self.columns) FROM review_round WHERE project = ? AND document = ? ORDER BY queued_at, rowid
                """, arguments: [Data(project.bytes), Data(document.bytes)])
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
            return try ReviewRoundRecord.fetchOne(db, sql: "SELECT \(Self.columns) FROM review_round WHERE id = ?", arguments: [id])
        }
    }

    /// Puts rounds left `running` by a process that is gone (killed, crashed) back in the queue.
    /// - Returns: the rounds put back.
    public func recoverInterrupted(isAlive: (Int32) -> Bool) throws -> [ReviewRoundRecord] {
        try database.writer.write { db in
            let stale = try ReviewRoundRecord.fetchAll(db, sql: "SELECT \(Self.columns) FROM review_round WHERE status = 'running'")
                .filter { r in r.ownerPid.map { !isAlive($0) } ?? true }
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
            try ReviewRoundRecord.fetchOne(db, sql: """
                SELECT \(Self.columns) FROM review_round WHERE project = ? AND document = ? AND content_sha = ? AND prompt_hash = ?
                AND status = 'done' ORDER BY finished_at DESC LIMIT 1
                """, arguments: [Data(project.bytes), Data(document.bytes), contentSha, promptHash])
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
            let rows = try ReviewRoundRecord.fetchAll(db, sql: """
                SELECT \(Self.columns) FROM review_round WHERE project = ? AND document = ? AND status IN ('queued', 'waiting')
                """, arguments: [Data(project.bytes), Data(document.bytes)])
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
            // INSERT … ON CONFLICT DO UPDATE of every column but the key (project, document), its only
            // uniqueness constraint.
            try ReviewBaselineRecord(project: Data(project.bytes), document: Data(document.bytes), contentSha: contentSha,
                                     words: ReviewPolicy.encode(words), updatedAt: RFC3339.string(now)).upsert(db)
        }
    }

    // MARK: Status

    /// Queue counts for `status`. `failed` counts documents whose latest round failed.
    public func counts(now: Date = Date()) throws -> StatusSnapshot.Queue {
        try database.writer.read { db in
            var q = StatusSnapshot.Queue()
            for row in try ReviewStatusCount.fetchAll(db, sql: "SELECT status, COUNT(*) AS n FROM review_round GROUP BY status") {
                switch RoundStatus(rawValue: row.status) {
                case .queued: q.queued = row.n
                case .waiting: q.waiting = row.n
                case .running: q.running = row.n
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
            try ReviewWaitingRow.fetchAll(db, sql: "SELECT document, reason FROM review_round WHERE status = 'waiting' ORDER BY queued_at")
                .map { row in
                    let doc = PathBytes(Array(row.document)).display
                    return "review of \(doc) waiting: \(row.reason ?? "no reason recorded")"
                }
        }
    }
}
