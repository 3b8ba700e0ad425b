import Foundation
import Logging
import Synchronization

/// What happens to a document after the index took in a change: quick heuristics, the journey
/// and suggestion lifecycle, and the sidecar.
public struct DocumentPipeline: Sendable {
    public let database: AppDatabase
    public let logger: Logger
    public let sidecars: SidecarStore
    public let catalog: AdvisorCatalog
    /// Engines by options: building one (its phrase tables) costs far more than checking a document.
    private let engines = EngineCache()

    public init(database: AppDatabase, logger: Logger, sidecars: SidecarStore, catalog: AdvisorCatalog) {
        self.database = database
        self.logger = logger
        self.sidecars = sidecars
        self.catalog = catalog
    }

    /// Applies a batch of changes of one project.
    /// - Returns: problem updates keyed like the agent's project problems (`sidecar:<path>` → message or nil).
    public func apply(_ changes: [DocumentChange], root: PathBytes, config: Configuration) -> [String: String?] {
        var problems: [String: String?] = [:]
        for change in changes {
            switch change {
            case .updated(let rel, let doc, let sha, _):
                problems["sidecar:" + rel.display] = update(root: root, rel: rel, doc: doc, sha: sha, config: config)
            case .deleted(let rel, _):
                sidecars.remove(project: root, document: rel)
                problems["sidecar:" + rel.display] = .some(nil)
            case .moved(let from, let to, let doc, let sha):
                do { try sidecars.move(project: root, from: from, to: to) } catch {
                    logger.warning("sidecar move failed", metadata: ["from": "\(from.display)", "error": "\(error)"])
                }
                problems["sidecar:" + from.display] = .some(nil)
                problems["sidecar:" + to.display] = update(root: root, rel: to, doc: doc, sha: sha, config: config)
            }
        }
        return problems
    }

    /// Recomputes the quick findings and the journey of one document and writes its sidecar.
    /// - Returns: a problem line, or nil when all went well.
    func update(root: PathBytes, rel: PathBytes, doc: MarkdownDocument, sha: String, config: Configuration) -> String? {
        let findings = quickFindings(doc, config: config)
        do {
            let outcome = try sidecars.modify(project: root, document: rel, rebuild: {
                ReviewSidecar(document: rel.display, sha256: sha, updatedAt: "", words: doc.wordCount)
            }) { sidecar in
                sidecar.document = rel.display
                sidecar.sha256 = sha
                sidecar.words = doc.wordCount
                sidecar.quick = findings
                JourneyEngine.documentChanged(&sidecar, document: doc, config: config, catalog: catalog)
            }
            return outcome.problem
        } catch {
            return "cannot write the sidecar of \(rel.display): \(error)"
        }
    }

    /// The quick heuristics for a document, with the project's settings and its story type.
    public func quickFindings(_ doc: MarkdownDocument, config: Configuration) -> [Finding] {
        let storyType = doc.frontMatter.tk.storyType ?? config.storyType
        let advisors = doc.frontMatter.tk.advisors.isEmpty
            ? (config.advisors ?? catalog.storyType(storyType ?? "")?.defaultAdvisors ?? [])
            : doc.frontMatter.tk.advisors
        let tips = advisors.compactMap { catalog.role($0) }.flatMap { role in
            role.quickTips.map { tip in
                PhraseRule(phrase: tip.phrase, message: tip.message, category: tip.category,
                           rule: "tip.\(role.id)", replacements: tip.replacement.map { [$0] } ?? [])
            }
        }
        let options = HeuristicsOptions(configuration: config.heuristics, storyType: storyType, extraRules: tips)
        return engines.engine(for: options).findings(in: doc)
    }
}

/// A small cache of heuristics engines, shared by the pipeline's copies.
final class EngineCache: Sendable {
    private let entries = Mutex<[(HeuristicsOptions, HeuristicsEngine)]>([])

    func engine(for options: HeuristicsOptions) -> HeuristicsEngine {
        if let hit = entries.withLock({ list in list.first(where: { $0.0 == options })?.1 }) { return hit }
        let engine = HeuristicsEngine(options: options)
        entries.withLock { list in
            list.append((options, engine))
            if list.count > 16 { list.removeFirst() }
        }
        return engine
    }
}
