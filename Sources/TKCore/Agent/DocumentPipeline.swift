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
    /// The one writer of sidecars and journey rows, whose observers hear of every change.
    public let owner: DocumentOwner
    /// Shows a desktop notification (title, body, the document's absolute path): a document's suggestions are all addressed. Called only
    /// when the document's project has `notifications.enabled`.
    public var notify: @Sendable (String, String, String) -> Void
    /// Engines by options: building one (its phrase tables) costs far more than checking a document.
    private let engines = EngineCache()

    public init(database: AppDatabase, logger: Logger, sidecars: SidecarStore, catalog: AdvisorCatalog,
                observers: DocumentObservers = DocumentObservers(),
                notify: @escaping @Sendable (String, String, String) -> Void = { _, _, _ in }) {
        self.database = database
        self.logger = logger
        self.sidecars = sidecars
        self.catalog = catalog
        self.states = DocumentStateStore(database: database)
        self.owner = DocumentOwner(sidecars: sidecars, database: database, observers: observers)
        self.notify = notify
    }

    /// Applies a batch of changes of one project.
    /// - Returns: sidecar problem updates by document (message, or nil when it is fine again).
    public func apply(_ changes: [DocumentChange], root: PathBytes, config: Configuration) -> [PathBytes: String?] {
        var faults = Set<FaultRecovery.DiskFault>()
        return apply(changes, root: root, config: config, diskFaults: &faults)
    }

    /// Applies a batch of changes of one project.
    /// - Parameter diskFaults: collects the disk faults (full, read-only) behind failed writes, which
    ///   pass by themselves: the agent goes through the project again soon.
    func apply(_ changes: [DocumentChange], root: PathBytes, config: Configuration,
               diskFaults: inout Set<FaultRecovery.DiskFault>) -> [PathBytes: String?] {
        var problems: [PathBytes: String?] = [:]
        var records: [DocumentStateStore.Entry] = []
        var saved: [(PathBytes, [UInt8]?, String?, MarkdownDocument, String)] = []
        var written: [(PathBytes, DocumentOwner.Outcome)] = []
        for change in changes {
            switch change {
            case .updated(let rel, let doc, let sha, let previousSha):
                let (problem, previous) = update(root: root, rel: rel, doc: doc, sha: sha, config: config, records: &records,
                                                 written: &written, diskFaults: &diskFaults)
                problems[rel] = problem
                if previousSha != sha { saved.append((rel, previous, previousSha, doc, sha)) }
            case .deleted(let rel, _):
                do {
                    try owner.removed(project: root, document: rel)
                    problems[rel] = .some(nil)
                } catch {
                    if let f = FaultRecovery.diskFault(error) { diskFaults.insert(f) }
                    problems[rel] = "\(error)"
                }
            case .moved(let from, let to, let doc, let sha):
                problems[from] = .some(nil)
                do { try owner.moved(project: root, from: from, to: to) } catch {
                    logger.warning("sidecar move failed", metadata: ["from": "\(from.display)", "error": "\(error)"])
                }
                problems[to] = update(root: root, rel: to, doc: doc, sha: sha, config: config, records: &records,
                                      written: &written, diskFaults: &diskFaults).0
            }
        }
        // The journey rows of the batch go in one transaction; a failure is every document's problem.
        do { try owner.recordBatch(project: root, records) } catch {
            logger.warning("cannot record the journeys", metadata: ["project.path": "\(root.display)", "error": "\(error)"])
            if let f = FaultRecovery.diskFault(error) { diskFaults.insert(f) }
            for e in records { problems[e.document] = "\(error)" }
            return problems
        }
        for (rel, o) in written {
            owner.announce(project: root, document: rel, cause: .contentIndexed, before: o.stageBefore, sidecar: o.sidecar, wrote: o.wrote)
        }
        for (rel, previous, previousSha, doc, sha) in saved {
            owner.saved(project: root, document: rel, previousBytes: previous, previousSha256: previousSha,
                        newBytes: doc.bytes, sha256: sha)
        }
        return problems
    }

    /// Recomputes the quick findings and the journey of one document, follows its pending suggestions
    /// through the edit, writes its sidecar and records it in the database.
    /// - Returns: a problem line (nil when all went well) and the previous bytes, when known.
    /// - Parameter records: collects the state to record in the database (in one transaction per batch).
    func update(root: PathBytes, rel: PathBytes, doc: MarkdownDocument, sha: String, config: Configuration,
                records: inout [DocumentStateStore.Entry], written: inout [(PathBytes, DocumentOwner.Outcome)],
                diskFaults: inout Set<FaultRecovery.DiskFault>) -> (String?, [UInt8]?) {
        let recorded = states.previousContent(project: root, document: rel)
        var journey = JourneyUpdate()
        var previousBytes: [UInt8]?
        do {
            let outcome = try owner.change(
                project: root, document: rel, cause: .contentIndexed,
                fresh: { ReviewSidecar(document: rel.display, sha256: sha, updatedAt: "", words: doc.wordCount) },
                record: nil
            ) { sidecar in
                // The bytes the sidecar's positions describe, when known.
                var previous: [UInt8]?
                if let recorded, recorded.sha256 == sidecar.sha256 {
                    previous = recorded.content
                } else if sidecar.sha256 == sha {
                    previous = doc.bytes
                }
                previousBytes = previous
                sidecar.document = rel.display
                sidecar.sha256 = sha
                sidecar.words = doc.wordCount
                sidecar.quick = quickFindings(doc, config: config, overrides: sidecar.journey.overrides, root: root)
                // The team's Vale styles (issue 22), beside the quick heuristics.
                sidecar.quick += ValeEngine.findings(bytes: doc.bytes, projectRoot: root.display, relativePath: rel.display)
                journey = JourneyEngine.documentChanged(&sidecar, document: doc, config: config, catalog: catalog, previous: previous)
            }
            written.append((rel, outcome))
            // The bytes are kept while suggestions are pending, to follow them through the next edit.
            let pending = outcome.sidecar.suggestions.contains { $0.status == .pending }
            records.append(DocumentStateStore.Entry(document: rel, sidecar: outcome.sidecar, content: pending ? doc.bytes : nil,
                                                    contentSha256: sha, dropContent: !pending,
                                                    derivedFrom: Self.derivation(sha256: sha, config: config,
                                                                                 vale: ValeEngine.digest(projectRoot: root.display))))
            if !journey.transitions.isEmpty {
                logger.info("suggestions addressed", metadata: [
                    "file.path": "\(rel.display)",
                    "accepted": "\(journey.transitions.filter { $0.to == .accepted }.count)",
                    "edited": "\(journey.transitions.filter { $0.to == .edited }.count)",
                ])
            }
            if journey.needsReadyNotification, let message = journey.readyMessage {
                logger.info("document ready for final or another round", metadata: ["file.path": "\(rel.display)"])
                if config.notifications.enabled { notify(rel.lastComponent.display, message, root.appending(rel).display) }
            }
            return (outcome.problem, previousBytes)
        } catch {
            if let f = FaultRecovery.diskFault(error) { diskFaults.insert(f) }
            return ("\(error)", nil)
        }
    }

    /// Checks every sidecar of a project (after a full scan): one broken or edited by hand whose
    /// document still exists is kept as `.review.json.bak` and rebuilt from the database; one whose
    /// document is neither on disk nor indexed is removed (a kill between the two halves of a deletion).
    /// - Returns: problem updates keyed like `apply`'s.
    public func verifySidecars(root: PathBytes) -> [PathBytes: String?] {
        var problems: [PathBytes: String?] = [:]
        let tk = root.appending(".tk")
        let projectID = try? database.projectID(for: root)
        for path in JourneyActions.sidecarFiles(under: tk) {
            guard let inTk = path.relative(to: tk) else { continue }
            let rel = PathBytes(Array(inTk.bytes.dropLast(".review.json".utf8.count)))
            guard FileSystem.lstatIfExists(root.appending(rel))?.kind == .regular else {
                // The sidecar of a document that is neither on disk nor in the index: its deletion was
                // committed to the index, then a kill came before the sidecar went. Removed now, as
                // the deletion would have (a document still indexed is the indexer's to remove).
                if let projectID, FileSystem.lstatIfExists(root.appending(rel)) == nil,
                   Result(catching: { try database.fingerprints(projectID: projectID, exact: rel) }).isNotIndexed {
                    do {
                        try owner.removed(project: root, document: rel)
                        problems[rel] = .some(nil)
                    } catch {
                        problems[rel] = "\(error)"
                    }
                }
                continue
            }
            // A sealed sidecar whose checksum matches needs no parsing.
            if let bytes = try? FileSystem.read(path, limit: 64 << 20), SidecarStore.isSealed(bytes),
               !SidecarStore.editedByHand(bytes: bytes) {
                continue
            }
            guard case .broken = sidecars.read(project: root, document: rel) else { continue }
            do {
                let outcome = try owner.change(
                    project: root, document: rel, cause: .repaired,
                    fresh: { ReviewSidecar(document: rel.display, sha256: "", updatedAt: "", words: 0) }) { _ in }
                problems[rel] = outcome.problem
            } catch {
                problems[rel] = "\(error)"
            }
        }
        return problems
    }

    /// The quick heuristics for a document, with the settings `DocumentSettings.resolve` gives it.
    /// - Parameter overrides: what `journey set` recorded in its sidecar.
    public func quickFindings(_ doc: MarkdownDocument, config: Configuration, overrides: JourneyOverrides? = nil,
                              flags: DocumentSettings.Flags = .init(), root: PathBytes? = nil) -> [Finding] {
        let settings = DocumentSettings.resolve(flags: flags, frontMatter: doc.frontMatter.tk, overrides: overrides,
                                                config: config, catalog: catalog)
        // The project's words (its dictionary, the names it uses): the same as `check` reads.
        return engines.engine(for: settings.heuristics).findings(in: doc, project: root.map { ProjectWords.cached(project: $0) })
    }

    /// What a sidecar's derived parts (quick findings, journey settings) depend on besides the
    /// document's own sidecar: its bytes and the project settings.
    public static func derivation(sha256: String, config: Configuration, vale: String = "") -> String {
        sha256 + ":" + DocumentSettings.projectDigest(config) + (vale.isEmpty ? "" : ":vale-" + vale)
    }

    /// The `stale` rule for `Indexer.sync`: unchanged documents whose recorded derivation is not the
    /// one their indexed bytes and the project's settings give (or that have none).
    public func staleDerivations(root: PathBytes, config: Configuration) -> ([PathBytes: String], Bool) throws -> Set<PathBytes> {
        let states = self.states
        return { unchanged, wholeProject in
            let recorded = try states.derivations(project: root, paths: wholeProject ? nil : Array(unchanged.keys))
            var out = Set<PathBytes>()
            let vale = ValeEngine.digest(projectRoot: root.display)
            for (rel, sha) in unchanged where recorded[rel] != Self.derivation(sha256: sha, config: config, vale: vale) { out.insert(rel) }
            return out
        }
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

private extension Result where Success == Fingerprint?, Failure == any Error {
    /// The look-up succeeded and found no index entry (an error is not "not indexed").
    var isNotIndexed: Bool {
        if case .success(.none) = self { return true }
        return false
    }
}
