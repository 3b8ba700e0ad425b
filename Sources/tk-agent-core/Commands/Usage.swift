import ArgumentParser
import Foundation
import TKCore

extension TKAgent {
    struct Usage: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "usage",
            abstract: "Token usage and cost by day, month and model.",
            discussion: "Days and months are UTC. Local models (Ollama, a localhost server) cost nothing and never count against review.daily_budget_usd."
        )
        @Option(name: .long, parsing: .unconditional, help: "How many days to list (1 or more).") var days = 31
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if days < 1 { throw usageError("--days must be 1 or more (got \(days))") }
        }

        struct Row: Encodable {
            var day: String?
            var month: String?
            var provider: String?
            var model: String?
            var calls: Int
            var inputTokens: Int
            var outputTokens: Int
            var costUsd: Double
            enum CodingKeys: String, CodingKey {
                case day, month, provider, model, calls
                case inputTokens = "input_tokens", outputTokens = "output_tokens", costUsd = "cost_usd"
            }
            init(_ t: UsageLedger.Totals, day: String? = nil, month: String? = nil, provider: String? = nil, model: String? = nil) {
                self.day = day; self.month = month; self.provider = provider; self.model = model
                calls = t.calls; inputTokens = t.inputTokens; outputTokens = t.outputTokens; costUsd = t.costUsd
            }
        }

        struct Report: Encodable {
            var today: Row
            var month: Row
            var budgetUsd: Double
            var days: [Row]
            var months: [Row]
            var models: [Row]
            enum CodingKeys: String, CodingKey { case today, month, days, months, models, budgetUsd = "budget_usd" }
        }

        func run() async throws {
            let paths = Paths.resolve()
            let config = ConfigurationStore(paths: paths).user().config
            let ledger = UsageLedger(database: try openDatabase())
            let now = Date()
            let report: Report
            do {
                let totals = try ledger.totals(now: now)
                let r = try ledger.report(days: days)
                report = Report(
                    today: Row(totals.today, day: UsageLedger.day(now)), month: Row(totals.month, month: UsageLedger.month(now)),
                    budgetUsd: config.review.dailyBudgetUsd,
                    days: r.days.map { Row($0.totals, day: $0.key) }, months: r.months.map { Row($0.totals, month: $0.key) },
                    models: r.models.map { Row($0.totals, provider: $0.provider, model: $0.key) })
            } catch {
                throw CLIError("cannot read the usage ledger: \(error)")
            }
            if output.json {
                print(JSON.string(report))
                return
            }
            func line(_ label: String, _ r: Row) -> String {
                String(format: "%@  %4ld call%@  %9ld in  %8ld out  $%.4f", label, r.calls, r.calls == 1 ? " " : "s",
                       r.inputTokens, r.outputTokens, r.costUsd)
            }
            print(String(format: "Today (%@ UTC): $%.4f of the $%.2f daily review budget", report.today.day ?? "",
                         report.today.costUsd, report.budgetUsd))
            print(String(format: "This month (%@): $%.4f", report.month.month ?? "", report.month.costUsd))
            if report.days.isEmpty {
                print("No model calls recorded yet.")
                return
            }
            print("\nBy day:")
            for r in report.days { print("  " + line(r.day ?? "", r)) }
            print("\nBy month:")
            for r in report.months { print("  " + line((r.month ?? "").padding(toLength: 10, withPad: " ", startingAt: 0), r)) }
            print("\nBy model:")
            let width = report.models.map { "\($0.provider ?? "")/\($0.model ?? "")".count }.max() ?? 0
            for r in report.models {
                print("  " + line("\(r.provider ?? "")/\(r.model ?? "")".padding(toLength: width, withPad: " ", startingAt: 0), r))
            }
        }
    }
}
