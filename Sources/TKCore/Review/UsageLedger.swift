import Foundation
import GRDB

/// Token usage and cost of every model call, by UTC day and month: what `usage` shows and what the
/// daily review budget counts. Review rounds record their calls; CLI commands (suggest, ask…) record theirs.
public struct UsageLedger: Sendable {
    /// What made the call.
    public enum Kind: String, Sendable, Codable { case round, cli, embedding }

    /// Sums over a period.
    public struct Totals: Sendable, Equatable, Codable {
        public var calls: Int
        public var inputTokens: Int
        public var outputTokens: Int
        public var costUsd: Double
        enum CodingKeys: String, CodingKey {
            case calls, inputTokens = "input_tokens", outputTokens = "output_tokens", costUsd = "cost_usd"
        }
        public init(calls: Int = 0, inputTokens: Int = 0, outputTokens: Int = 0, costUsd: Double = 0) {
            self.calls = calls; self.inputTokens = inputTokens; self.outputTokens = outputTokens; self.costUsd = costUsd
        }
    }

    /// One row of a `usage` report: a day (`2026-11-23`), a month (`2026-11`) or a model.
    public struct Line: Sendable, Equatable, Codable {
        public var key: String
        public var provider: String?
        public var totals: Totals
    }

    public let database: AppDatabase

    public init(database: AppDatabase) { self.database = database }

    /// `2026-11-23` (UTC).
    public static func day(_ date: Date) -> String { String(RFC3339.string(date).prefix(10)) }
    /// `2026-11` (UTC).
    public static func month(_ date: Date) -> String { String(RFC3339.string(date).prefix(7)) }

    /// Records one call.
    /// - Parameters:
    ///   - local: a local model (Ollama, a localhost server): never counted against the budget.
    public func record(provider: String, model: String, usage: LLMUsage, costUsd: Double, kind: Kind,
                       local: Bool = false, at date: Date = Date()) throws {
        var call = UsageLedgerRecord(id: nil, at: RFC3339.string(date), day: Self.day(date), month: Self.month(date),
                                     provider: provider, model: model, inputTokens: usage.inputTokens,
                                     outputTokens: usage.outputTokens, costUsd: costUsd, kind: kind.rawValue, local: local)
        try database.writer.write { db in try call.insert(db) }
    }

    /// What was spent today and this month (UTC).
    public func totals(now: Date = Date()) throws -> (today: Totals, month: Totals) {
        try database.writer.read { db in
            (try Self.sum(db, where: "day = ?", [Self.day(now)]), try Self.sum(db, where: "month = ?", [Self.month(now)]))
        }
    }

    /// What non-local calls cost today: what the daily budget is measured against.
    public func spentToday(now: Date = Date()) throws -> Double {
        try database.writer.read { db in
            try Double.fetchOne(db, sql: "SELECT COALESCE(SUM(cost_usd), 0) FROM usage_ledger WHERE day = ? AND local = 0",
                                arguments: [Self.day(now)]) ?? 0
        }
    }

    /// The average cost per prompt token of a model over the recorded calls (output included), or nil when
    /// nothing was paid for it yet. Used to estimate a round before it is sent.
    public func costPerInputToken(provider: String, model: String) throws -> Double? {
        try database.writer.read { db in
            guard let row = try UsageCostRow.fetchOne(db, sql: """
                SELECT SUM(cost_usd) AS cost, SUM(input_tokens) AS input FROM usage_ledger
                WHERE provider = ? AND model = ? AND cost_usd > 0
                """, arguments: [provider, model]),
                let cost = row.cost, let input = row.input, input > 0
            else { return nil }
            return cost / Double(input)
        }
    }

    /// Sums by day (newest first, at most `days`), by month, and by provider and model.
    public func report(days: Int = 31) throws -> (days: [Line], months: [Line], models: [Line]) {
        try database.writer.read { db in
            let byDay = try UsageLineRow.fetchAll(db, sql: Self.grouped("day") + " ORDER BY day DESC LIMIT ?", arguments: [days])
                .map { Line(key: $0.k, provider: nil, totals: $0.totals) }
            let byMonth = try UsageLineRow.fetchAll(db, sql: Self.grouped("month") + " ORDER BY month DESC")
                .map { Line(key: $0.k, provider: nil, totals: $0.totals) }
            let byModel = try UsageLineRow.fetchAll(db, sql: """
                SELECT provider, model AS k, COUNT(*) AS calls, SUM(input_tokens) AS input, SUM(output_tokens) AS output,
                       SUM(cost_usd) AS cost FROM usage_ledger GROUP BY provider, model ORDER BY cost DESC, provider, model
                """).map { Line(key: $0.k, provider: $0.provider, totals: $0.totals) }
            return (byDay, byMonth, byModel)
        }
    }

    static func grouped(_ column: String) -> String {
        """
        SELECT \(column) AS k, COUNT(*) AS calls, SUM(input_tokens) AS input, SUM(output_tokens) AS output,
               SUM(cost_usd) AS cost FROM usage_ledger GROUP BY \(column)
        """
    }

    static func sum(_ db: Database, where clause: String, _ args: StatementArguments) throws -> Totals {
        guard let row = try UsageTotalsRow.fetchOne(db, sql: """
            SELECT COUNT(*) AS calls, COALESCE(SUM(input_tokens), 0) AS input, COALESCE(SUM(output_tokens), 0) AS output,
                   COALESCE(SUM(cost_usd), 0) AS cost FROM usage_ledger WHERE \(clause)
            """, arguments: args) else { return Totals() }
        return row.totals
    }
}
