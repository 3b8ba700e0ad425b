import Foundation
import Logging
import TKCore

/// What `review --dry-run` adds: the changed-scope narrowing and the estimated tokens and cost.
struct ReviewEstimate {
    var inputTokens: Int
    var outputTokens: Int
    var costUsd: Double?
    var provider: String?
    var model: String?
    var scopeNote: String

    var text: String {
        var s = "\(scopeNote)\nestimated input: \(inputTokens) tokens"
        guard let provider else {
            return s + "; no LLM provider is available, so nothing would be sent (`tk-agent doctor` says how to set one up)"
        }
        let who = provider + (model.map { "/\($0)" } ?? "")
        if let costUsd {
            s += String(format: "; cost about $%.4f with up to %ld output tokens (", costUsd, outputTokens) + who + ")"
        } else {
            s += "; cost unknown (" + who + " is not in the price table)"
        }
        return s
    }

    static func make(_ p: ReviewRunner.Prepared, project: PathBytes, rel: PathBytes, scope: String?, paths: Paths,
                     config: Configuration, environment: [String: String], logger: Logger) async throws -> (ReviewRunner.Prepared, ReviewEstimate) {
        var prepared = p
        var note = "scope: full document"
        if let db = try? AppDatabase.open(paths: paths) {
            let previous = HistoryService(paths: paths, database: db).lastRoundText(project: project, path: rel)
            prepared = ChangedScope.apply(p, previous: previous, scope: scope.flatMap(ChangedScope.Scope.init(rawValue:)),
                                          manual: true, documentPath: rel.display)
            if prepared.focus != nil {
                note = "scope: \(prepared.focus?.count ?? 0) changed paragraph(s) since the last round, with context"
            } else if scope == "changed" {
                note = previous == nil ? "scope: full document (no earlier round to compare with)"
                    : "scope: full document (nothing, or more than half, changed since the last round)"
            }
        }
        let input = ReviewPolicy.estimatedTokens(prepared.prompt.system + prepared.prompt.user)
        let output = min(config.review.maxOutputTokens, 2048)
        let status = await ProviderFactory.status(configuration: config, environment: environment, paths: paths, logger: logger)
        let name = status.name ?? config.provider
        let local = ReviewPolicy.isLocal(providerName: name, config: config)
        let cost = local ? 0 : status.model.flatMap { ReviewEnvironment.tablePrice(name, $0, input, output) }
        return (prepared, ReviewEstimate(inputTokens: input, outputTokens: output, costUsd: cost, provider: status.name,
                                         model: status.model, scopeNote: note))
    }
}
