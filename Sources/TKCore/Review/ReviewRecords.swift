import Foundation
import GRDB

// The review subsystem's tables as GRDB records (`AppDatabase.registerReviewMigrations`).

/// `review_round`: the round is its own record; its stored form differs from its fields (the
/// document by id, read joined to its paths; advisors as JSON text; flags as integers), so it reads
/// and writes its row by hand.
extension ReviewRoundRecord: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "review_round"

    enum CodingKeys: String, CodingKey {
        case id, project, document, documentId = "document_id", status, manual, reason, advisors, provider, model, attempts, tries, suggestions
        case unanchored, truncated, error
        case skipQuiet = "skip_quiet", contentSha = "content_sha", promptHash = "prompt_hash"
        case inputTokens = "input_tokens", outputTokens = "output_tokens", costUsd = "cost_usd", ownerPid = "owner_pid"
        case notBefore = "not_before", queuedAt = "queued_at", startedAt = "started_at", finishedAt = "finished_at"
    }

    public enum Columns {
        static let id = Column(CodingKeys.id)
        /// `project.path` and `document.path`, joined (`ReviewStore.joined`): not columns of the table.
        static let project = Column(CodingKeys.project)
        static let document = Column(CodingKeys.document)
        static let documentId = Column(CodingKeys.documentId)
        static let status = Column(CodingKeys.status)
        static let manual = Column(CodingKeys.manual)
        static let skipQuiet = Column(CodingKeys.skipQuiet)
        static let reason = Column(CodingKeys.reason)
        static let advisors = Column(CodingKeys.advisors)
        static let contentSha = Column(CodingKeys.contentSha)
        static let promptHash = Column(CodingKeys.promptHash)
        static let provider = Column(CodingKeys.provider)
        static let model = Column(CodingKeys.model)
        static let inputTokens = Column(CodingKeys.inputTokens)
        static let outputTokens = Column(CodingKeys.outputTokens)
        static let costUsd = Column(CodingKeys.costUsd)
        static let attempts = Column(CodingKeys.attempts)
        static let tries = Column(CodingKeys.tries)
        static let suggestions = Column(CodingKeys.suggestions)
        static let unanchored = Column(CodingKeys.unanchored)
        static let truncated = Column(CodingKeys.truncated)
        static let ownerPid = Column(CodingKeys.ownerPid)
        static let notBefore = Column(CodingKeys.notBefore)
        static let queuedAt = Column(CodingKeys.queuedAt)
        static let startedAt = Column(CodingKeys.startedAt)
        static let finishedAt = Column(CodingKeys.finishedAt)
        static let error = Column(CodingKeys.error)
    }

    public init(row: Row) throws {
        let advisorsText = try row.decode(String?.self, forColumn: Columns.advisors)
        // Advisors that cannot be read as a list are taken as none (the document's advisors).
        let advisors = advisorsText.flatMap { try? JSON.decode([String].self, from: Array($0.utf8)) }
        // An unknown status (from a newer version) reads as failed.
        let status = RoundStatus(rawValue: try row.decode(String.self, forColumn: Columns.status)) ?? .failed
        self.init(id: try row.decode(forColumn: Columns.id),
                  project: PathBytes(Array(try row.decode(Data.self, forColumn: Columns.project))),
                  document: PathBytes(Array(try row.decode(Data.self, forColumn: Columns.document))),
                  status: status, manual: try row.decode(forColumn: Columns.manual),
                  skipQuiet: try row.decode(forColumn: Columns.skipQuiet), advisors: advisors,
                  queuedAt: try row.decode(forColumn: Columns.queuedAt))
        documentID = row.hasColumn("document_id") ? try row.decode(forColumn: Columns.documentId) : nil
        reason = try row.decode(forColumn: Columns.reason)
        contentSha = try row.decode(forColumn: Columns.contentSha)
        promptHash = try row.decode(forColumn: Columns.promptHash)
        provider = try row.decode(forColumn: Columns.provider)
        model = try row.decode(forColumn: Columns.model)
        inputTokens = try row.decode(forColumn: Columns.inputTokens)
        outputTokens = try row.decode(forColumn: Columns.outputTokens)
        costUsd = try row.decode(forColumn: Columns.costUsd)
        attempts = try row.decode(forColumn: Columns.attempts)
        tries = try row.decode(forColumn: Columns.tries)
        suggestions = try row.decode(forColumn: Columns.suggestions)
        unanchored = try row.decode(forColumn: Columns.unanchored)
        truncated = try row.decode(Int?.self, forColumn: Columns.truncated).map { $0 != 0 }
        ownerPid = try row.decode(Int64?.self, forColumn: Columns.ownerPid).map { Int32(truncatingIfNeeded: $0) }
        notBefore = try row.decode(forColumn: Columns.notBefore)
        startedAt = try row.decode(forColumn: Columns.startedAt)
        finishedAt = try row.decode(forColumn: Columns.finishedAt)
        error = try row.decode(forColumn: Columns.error)
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container[Columns.id] = id
        // Set by `ReviewStore.enqueue` before the insert; an update leaves it (`ReviewStore.update`).
        if let documentID { container[Columns.documentId] = documentID }
        container[Columns.status] = status.rawValue
        container[Columns.manual] = manual
        container[Columns.skipQuiet] = skipQuiet
        container[Columns.reason] = reason
        container[Columns.advisors] = Self.advisorsText(advisors)
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

    /// The columns a round's own fields are stored in (all but the document's).
    static let fieldColumns: [Column] = [
        Columns.status, Columns.manual, Columns.skipQuiet, Columns.reason, Columns.advisors, Columns.contentSha,
        Columns.promptHash, Columns.provider, Columns.model, Columns.inputTokens, Columns.outputTokens, Columns.costUsd,
        Columns.attempts, Columns.tries, Columns.suggestions, Columns.unanchored, Columns.truncated, Columns.ownerPid,
        Columns.notBefore, Columns.queuedAt, Columns.startedAt, Columns.finishedAt, Columns.error,
    ]

    /// `advisors` as stored: compact JSON, NULL for the document's own advisors.
    static func advisorsText(_ advisors: [String]?) -> String? { advisors.map { JSON.string($0, pretty: false) } }
}

/// `review_baseline`: the words a document's last successful round saw.
struct ReviewBaselineRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "review_baseline"
    /// The document (`document.id`).
    var documentId: Int64
    var contentSha: String
    /// `ReviewPolicy.encode` of the words.
    var words: Data
    var updatedAt: String

    enum CodingKeys: String, CodingKey {
        case words
        case documentId = "document_id", contentSha = "content_sha", updatedAt = "updated_at"
    }

    enum Columns {
        static let documentId = Column(CodingKeys.documentId)
        static let contentSha = Column(CodingKeys.contentSha)
        static let words = Column(CodingKeys.words)
        static let updatedAt = Column(CodingKeys.updatedAt)
    }
}

/// `review_round` counted by status (`ReviewStore.counts`).
struct ReviewStatusCount: Decodable, FetchableRecord {
    var status: String
    var n: Int
}

/// A waiting round's document and reason (`ReviewStore.waitingReasons`).
struct ReviewWaitingRow: Decodable, FetchableRecord {
    var document: Data
    var reason: String?
}

/// `usage_ledger`: one model call.
struct UsageLedgerRecord: Codable, Sendable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "usage_ledger"
    var id: Int64?
    /// RFC 3339.
    var at: String
    var day: String
    var month: String
    var provider: String
    var model: String
    var inputTokens: Int
    var outputTokens: Int
    var costUsd: Double
    /// `UsageLedger.Kind`.
    var kind: String
    var local: Bool

    enum CodingKeys: String, CodingKey {
        case id, at, day, month, provider, model, kind, local
        case inputTokens = "input_tokens", outputTokens = "output_tokens", costUsd = "cost_usd"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let at = Column(CodingKeys.at)
        static let day = Column(CodingKeys.day)
        static let month = Column(CodingKeys.month)
        static let provider = Column(CodingKeys.provider)
        static let model = Column(CodingKeys.model)
        static let inputTokens = Column(CodingKeys.inputTokens)
        static let outputTokens = Column(CodingKeys.outputTokens)
        static let costUsd = Column(CodingKeys.costUsd)
        static let kind = Column(CodingKeys.kind)
        static let local = Column(CodingKeys.local)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

/// Sums over `usage_ledger` calls (`calls`, `input`, `output`, `cost`; NULL sums over no call).
struct UsageTotalsRow: Decodable, FetchableRecord {
    var calls: Int?
    var input: Int?
    var output: Int?
    var cost: Double?

    var totals: UsageLedger.Totals {
        UsageLedger.Totals(calls: calls ?? 0, inputTokens: input ?? 0, outputTokens: output ?? 0, costUsd: cost ?? 0)
    }
}

/// One group of a `usage` report: its key (`k`: day, month or model), the provider when grouped by
/// model (absent otherwise), and the group's sums.
struct UsageLineRow: Decodable, FetchableRecord {
    var k: String
    var provider: String?
    var calls: Int?
    var input: Int?
    var output: Int?
    var cost: Double?

    var totals: UsageLedger.Totals { UsageTotalsRow(calls: calls, input: input, output: output, cost: cost).totals }
}

/// What was paid for a model's calls and the prompt tokens they took (`UsageLedger.costPerInputToken`).
struct UsageCostRow: Decodable, FetchableRecord {
    var cost: Double?
    var input: Int?
}
