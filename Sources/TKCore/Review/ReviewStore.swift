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
    /// The document's row (`document.id`): nil until the round is stored.
    public var documentID: Int64?

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

    /// A round's columns, with its document's paths (`project`, `document`), from `joined`.
    static let columns = """
        t.id, p.path AS project, d.path AS document, t.document_id, t.status, t.manual, t.skip_quiet, t.reason, t.advisors,
        t.content_sha, t.prompt_hash, t.provider, t.model, t.input_tokens, t.output_tokens, t.cost_usd, t.attempts, t.tries,
        t.suggestions, t.unanchored, t.truncated, t.owner_pid, t.not_before, t.queued_at, t.started_at, t.finished_at, t.error
        """
    /// `review_round` (`t`) joined to its document (`d`) and project (`p`).
    static let joined = DocumentIdentity.joined("review_round")

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
            if var r = try ReviewRoundRecord.fetchOne(db.cachedStatement(sql: """
                SELECT \(Self.columns) FROM \(Self.joined) WHERE p.path = ? AND d.path = ? AND t.status IN ('queued', 'waiting')
                ORDER BY t.queued_at LIMIT 1
                """), arguments: [Data(project.bytes), Data(document.bytes)]) {
                r.manual = r.manual || manual
                r.skipQuiet = r.skipQuiet || skipQuiet
                if let advisors { r.advisors = advisors }
                try db.execute(sql: "UPDATE review_round SET manual = ?, skip_quiet = ?, advisors = ? WHERE id = ?",
                               arguments: [r.manual, r.skipQuiet, ReviewRoundRecord.advisorsText(r.advisors), r.id])
                return (r, false)
            }
            var r = ReviewRoundRecord(id: Self.newID(), project: project, document: document, manual: manual,
                                      skipQuiet: skipQuiet, advisors: advisors, queuedAt: RFC3339.string(now))
            r.documentID = try DocumentIdentity.ensure(db, project: project, path: document, now: now)
            try r.insert(db)
            return (r, true)
        }
    }

    /// Writes every field of a round.
    public func update(_ r: ReviewRoundRecord) throws {
        try database.writer.write { db in
            // A round no longer in the table stays gone (as with the plain UPDATE this replaced). The
            // document stays the round's own (a rename moved it, not the round).
            do { try r.update(db, columns: ReviewRoundRecord.fieldColumns) } catch RecordError.recordNotFound {}
        }
    }

    public func round(id: String) throws -> ReviewRoundRecord? {
        try database.writer.read { db in
            try ReviewRoundRecord.fetchOne(db, sql: "SELECT \(Self.columns) FROM \(Self.joined) WHERE t.id = ?", arguments: [id])
        }
    }

    /// Rounds that have not started, oldest first.
    public func pending() throws -> [ReviewRoundRecord] {
        try database.writer.read { db in
            try ReviewRoundRecord.fetchAll(db, sql: """
                SELECT \(Self.columns) FROM \(Self.joined) WHERE t.status IN ('queued', 'waiting') ORDER BY t.queued_at, t.rowid
                """)
        }
    }

    /// The rounds of one document, oldest first.
    public func rounds(project: PathBytes, document: PathBytes) throws -> [ReviewRoundRecord] {
        try database.writer.read { db in
            try ReviewRoundRecord.fetchAll(db.cachedStatement(sql: """
                SELECT \(Self.columns) FROM \(Self.joined) WHERE p.path = ? AND d.path = ? ORDER BY t.queued_at, t.rowid
                """), arguments: [Data(project.bytes), Data(document.bytes)])
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
            return try ReviewRoundRecord.fetchOne(db, sql: "SELECT \(Self.columns) FROM \(Self.joined) WHERE t.id = ?", arguments: [id])
        }
    }

    /// Puts rounds left `running` by a process that is gone (killed, crashed) back in the queue.
    /// - Returns: the rounds put back.
    public func recoverInterrupted(isAlive: (Int32) -> Bool) throws -> [ReviewRoundRecord] {
        try database.writer.write { db in
            let stale = try ReviewRoundRecord.fetchAll(db, sql: "SELECT \(Self.columns) FROM \(Self.joined) WHERE t.status = 'running'")
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
            try ReviewRoundRecord.fetchOne(db.cachedStatement(sql: """
                SELECT \(Self.columns) FROM \(Self.joined) WHERE p.path = ? AND d.path = ? AND t.content_sha = ?
                AND t.prompt_hash = ? AND t.status = 'done' ORDER BY t.finished_at DESC LIMIT 1
                """), arguments: [Data(project.bytes), Data(document.bytes), contentSha, promptHash])
        }
    }

    /// Forgets the pending rounds of a deleted document.
    public func cancelPending(project: PathBytes, document: PathBytes, reason: String, now: Date = Date()) throws -> [ReviewRoundRecord] {
        try database.writer.write { db in
            let rows = try ReviewRoundRecord.fetchAll(db.cachedStatement(sql: """
                SELECT \(Self.columns) FROM \(Self.joined) WHERE p.path = ? AND d.path = ? AND t.status IN ('queued', 'waiting')
                """), arguments: [Data(project.bytes), Data(document.bytes)])
            guard let id = try DocumentIdentity.find(db, project: project, path: document) else { return rows }
            try db.execute(sql: """
                UPDATE review_round SET status = 'failed', reason = ?, finished_at = ?
                WHERE document_id = ? AND status IN ('queued', 'waiting')
                """, arguments: [reason, RFC3339.string(now), id])
            return rows
        }
    }

    // MARK: Baselines

    /// The words the document's last successful round saw (empty for a document never reviewed).
    public func baseline(project: PathBytes, document: PathBytes) throws -> [UInt32] {
        try database.writer.read { db in
            let data = try Data.fetchOne(db, sql: "SELECT t.words FROM \(DocumentIdentity.joined("review_baseline")) WHERE p.path = ? AND d.path = ?",
                                         arguments: [Data(project.bytes), Data(document.bytes)])
            return data.map(ReviewPolicy.decode) ?? []
        }
    }

    public func setBaseline(project: PathBytes, document: PathBytes, contentSha: String, words: [UInt32], now: Date = Date()) throws {
        try database.writer.write { db in
            // INSERT … ON CONFLICT DO UPDATE of every column but the key (document_id), its only
            // uniqueness constraint.
            try ReviewBaselineRecord(documentId: try DocumentIdentity.ensure(db, project: project, path: document, now: now),
                                     contentSha: contentSha,
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
                    SELECT 1 FROM review_round n WHERE n.document_id = r.document_id
                    AND n.rowid != r.rowid AND n.queued_at >= r.queued_at AND n.status != 'failed')
                AND r.finished_at >= ?
                """, arguments: [RFC3339.string(now.addingTimeInterval(-86_400))]) ?? 0
            return q
        }
    }

    /// One line per waiting round: why it waits.
    public func waitingReasons() throws -> [String] {
        try database.writer.read { db in
            try ReviewWaitingRow.fetchAll(db, sql: "SELECT d.path AS document, t.reason FROM \(Self.joined) WHERE t.status = 'waiting' ORDER BY t.queued_at")
                .map { row in
                    let doc = PathBytes(Array(row.document)).display
                    return "review of \(doc) waiting: \(row.reason ?? "no reason recorded")"
                }
        }
    }
}
