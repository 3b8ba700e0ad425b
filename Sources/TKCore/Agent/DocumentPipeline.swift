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
    /// The database copy of each document's journey and the bytes it describes.
    public let states: DocumentStateStore
    /// Shows a desktop notification (title, body): a document's suggestions are all addressed. Called only
    /// when the document's project has `notifications.enabled`.
    public var notify: @Sendable (String, String) -> Void
    /// Engines by options: building one (its phrase tables) costs far more than checking a document.
    private let engines = EngineCache()

    public init(database: AppDatabase, logger: Logger, sidecars: SidecarStore, catalog: AdvisorCatalog,
                notify: @escaping @Sendable (String, String) -> Void = { _, _ in }) {
        self.database = database
        self.logger = logger
        self.sidecars = sidecars
        self.catalog = catalog
        self.states = DocumentStateStore(database: database)
        self.notify = notify
    }

    /// Applies a batch of changes of one project.
    /// - Returns: problem updates keyed like the agent's project problems (`sidecar:<path>` → message or nil).
    public func apply(_ changes: [DocumentChange], root: PathBytes, config: Configuration) -> [String: String?] {
        var problems: [String: String?] = [:]
        var records: [DocumentStateStore.Entry] = []
        defer {
            do { try states.record(project: root, records) } catch {
                logger.warning("cannot record the journeys", metadata: ["project.path": "\(root.display)", "error": "\(error)"])
            }
        }
        for change in changes {
            switch change {
            case .updated(let rel, let doc, let sha, _):
                problems["sidecar:" + rel.display] = update(root: root, rel: rel, doc: doc, sha: sha, config: config, records: &records)
            case .deleted(let rel, _):
                sidecars.remove(project: root, document: rel)
                states.removed(project: root, document: rel)
                problems["sidecar:" + rel.display] = .some(nil)
            case .moved(let from, let to, let doc, let sha):
                do { try sidecars.move(project: root, from: from, to: to) } catch {
                    logger.warning("sidecar move failed", metadata: ["from": "\(from.display)", "error": "\(error)"])
                }
                states.moved(project: root, from: from, to: to)
                problems["sidecar:" + from.display] = .some(nil)
                problems["sidecar:" + to.display] = update(root: root, rel: to, doc: doc, sha: sha, config: config, records: &records)
            }
        }
        return problems
    }

    /// Recomputes the quick findings and the journey of one document, follows its pending suggestions
    /// through the edit, writes its sidecar and records it in the database.
    /// - Returns: a problem line, or nil when all went well.
    /// - Parameter records: collects the state to record in the database (in one transaction per batch).
    func update(root: PathBytes, rel: PathBytes, doc: MarkdownDocument, sha: String, config: Configuration,
                records: inout [DocumentStateStore.Entry]) -> String? {
        let findings = quickFindings(doc, config: config, root: root)
        let recorded = states.previousContent(project: root, document: rel)
        let states = self.states
        var journey = JourneyUpdate()
        do {
            let outcome = try sidecars.modify(project: root, document: rel, rebuild: {
                states.rebuild(project: root, document: rel) {
                    ReviewSidecar(document: rel.display, sha256: sha, updatedAt: "", words: doc.wordCount)
                }
            }) { sidecar in
                // The bytes the sidecar's positions describe, when known.
                var previous: [UInt8]?
                if let recorded, recorded.sha256 == sidecar.sha256 {
                    previous = recorded.content
                } else if sidecar.sha256 == sha {
                    previous = doc.bytes
                }
                sidecar.document = rel.display
                sidecar.sha256 = sha
                sidecar.words = doc.wordCount
                sidecar.quick = findings
                journey = JourneyEngine.documentChanged(&sidecar, document: doc, config: config, catalog: catalog, previous: previous)
            }
            // The bytes are kept while suggestions are pending, to follow them through the next edit.
            let pending = outcome.sidecar.suggestions.contains { $0.status == .pending }
            records.append(DocumentStateStore.Entry(document: rel, sidecar: outcome.sidecar, content: pending ? doc.bytes : nil,
                                                    contentSha256: sha, dropContent: !pending))
            if !journey.transitions.isEmpty {
                logger.info("suggestions addressed", metadata: [
                    "file.path": "\(rel.display)",
                    "accepted": "\(journey.transitions.filter { $0.to == .accepted }.count)",
                    "edited": "\(journey.transitions.filter { $0.to == .edited }.count)",
                ])
            }
            if journey.needsReadyNotification, let message = journey.readyMessage {
                logger.info("document ready for final or another round", metadata: ["file.path": "\(rel.display)"])
                if config.notifications.enabled { notify(rel.lastComponent.display, message) }
            }
            return outcome.problem
        } catch {
            return "cannot write the sidecar of \(rel.display): \(error)"
        }
    }

    /// Checks every sidecar of a project (after a full scan): one broken or edited by hand whose
    /// document still exists is kept as `.review.json.bak` and rebuilt from the database.
    /// - Returns: problem updates keyed like `apply`'s.
    public func verifySidecars(root: PathBytes) -> [String: String?] {
        var problems: [String: String?] = [:]
        let tk = root.appending(".tk")
        let states = self.states
        for path in JourneyActions.sidecarFiles(under: tk) {
            guard let inTk = path.relative(to: tk) else { continue }
            let rel = PathBytes(Array(inTk.bytes.dropLast(".review.json".utf8.count)))
            guard FileSystem.lstatIfExists(root.appending(rel))?.kind == .regular else { continue }
            // A sealed sidecar whose checksum matches needs no parsing.
            if let bytes = try? FileSystem.read(path, limit: 64 << 20), SidecarStore.isSealed(bytes),
               !SidecarStore.editedByHand(bytes: bytes) {
                continue
            }
            guard case .broken = sidecars.read(project: root, document: rel) else { continue }
            do {
                let outcome = try sidecars.modify(project: root, document: rel, rebuild: {
                    states.rebuild(project: root, document: rel) {
                        ReviewSidecar(document: rel.display, sha256: "", updatedAt: "", words: 0)
                    }
                }) { _ in }
                try? states.record(project: root, document: rel, sidecar: outcome.sidecar)
                problems["sidecar:" + rel.display] = outcome.problem
            } catch {
                problems["sidecar:" + rel.display] = "cannot rebuild the sidecar of \(rel.display): \(error)"
            }
        }
        return problems
    }

    /// The quick heuristics for a document, with the project's settings and its story type.
    public func quickFindings(_ doc: MarkdownDocument, config: Configuration, root: PathBytes? = nil) -> [Finding] {
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
        return engines.engine(for: options).findings(in: doc, project: root.map { ProjectWords.cached(project: $0, ignore: config.watch.ignore) })
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
