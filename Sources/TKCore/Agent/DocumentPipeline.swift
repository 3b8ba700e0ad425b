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
    /// The one resolver of a document's inputs and its derivation (shared with `check`, the
    /// language server and `journey set`).
    public let resolver: DocumentResolver

    public init(database: AppDatabase, logger: Logger, sidecars: SidecarStore, catalog: AdvisorCatalog,
                observers: DocumentObservers = DocumentObservers(), resolver: DocumentResolver? = nil,
                notify: @escaping @Sendable (String, String, String) -> Void = { _, _, _ in }) {
        self.database = database
        self.logger = logger
        self.sidecars = sidecars
        self.catalog = catalog
        self.resolver = resolver ?? DocumentResolver(paths: Paths.resolve(), catalog: catalog)
        self.states = DocumentStateStore(database: database)
        self.owner = DocumentOwner(sidecars: sidecars, database: database, observers: observers)
        self.notify = notify
    }

    /// Applies a batch of changes of one project.
    /// - Returns: sidecar problem updates by document (message, or nil when it is fine again).
    public func apply(_ changes: [DocumentChange], root: PathBytes, config: Configuration) -> [PathBytes: String?] {
        var faults = Set<FaultRecovery.DiskFault>()
        return apply(changes, project: projectInputs(root: root, config: config), diskFaults: &faults)
    }

    /// A project's inputs for a configuration given as a value (no layers: see `LoadedConfiguration.given`).
    public func projectInputs(root: PathBytes, config: Configuration) -> ProjectInputs {
        resolver.project(root, loaded: .given(config))
    }

    /// Applies a batch of changes of one project.
    /// - Parameter diskFaults: collects the disk faults (full, read-only) behind failed writes, which
    ///   pass by themselves: the agent goes through the project again soon.
    /// Applies a batch of changes of one project, derived from `project`'s inputs.
    /// - Returns: sidecar problem updates by document (message, or nil when it is fine again).
    public func apply(_ changes: [DocumentChange], project: ProjectInputs) -> [PathBytes: String?] {
        var faults = Set<FaultRecovery.DiskFault>()
        return apply(changes, project: project, diskFaults: &faults)
    }

    /// - Parameter lanes: documents derived at once (on as many threads): each document is its own
    ///   sidecar and its own lock; the journey rows of the batch are recorded together after.
    /// - Parameter stop: once set, the documents not derived yet are left as they are: their recorded
    ///   derivation is not their content's, so the next scan derives them (`staleDerivations`).
    func apply(_ changes: [DocumentChange], project: ProjectInputs,
               diskFaults: inout Set<FaultRecovery.DiskFault>, lanes: Int = 1, stop: StopFlag? = nil) -> [PathBytes: String?] {
        let root = project.root
        var problems: [PathBytes: String?] = [:]
        var records: [DocumentStateStore.Entry] = []
        var saved: [(PathBytes, [UInt8]?, String?, MarkdownDocument, String)] = []
        var written: [(PathBytes, DocumentOwner.Outcome)] = []
        // Removals and moves first, in order (a moved document is derived under its new name below).
        var derive: [(rel: PathBytes, doc: MarkdownDocument, sha: String, previousSha: String?, isSave: Bool)] = []
        for change in changes {
            switch change {
            case .updated(let rel, let doc, let sha, let previousSha):
                derive.append((rel, doc, sha, previousSha, previousSha != sha))
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
                derive.append((to, doc, sha, nil, false))
            }
        }
        // Each document's derivation, on `lanes` threads; gathered in the batch's order.
        struct Derived {
            var problem: String?
            var previous: [UInt8]?
            var records: [DocumentStateStore.Entry] = []
            var written: [(PathBytes, DocumentOwner.Outcome)] = []
            var faults = Set<FaultRecovery.DiskFault>()
            var skipped = false
        }
        let slots = ResultSlots<Derived>(count: derive.count)
        let width = max(1, min(lanes, derive.count))
        let work = derive
        DispatchQueue.concurrentPerform(iterations: width) { lane in
            for i in stride(from: lane, to: work.count, by: width) {
                let d = work[i]
                var out = Derived()
                if stop?.isSet == true {
                    out.skipped = true
                    slots.set(i, out)
                    continue
                }
                (out.problem, out.previous) = update(project: project, rel: d.rel, doc: d.doc, sha: d.sha,
                                                     records: &out.records, written: &out.written, diskFaults: &out.faults)
                slots.set(i, out)
            }
        }
        for (d, out) in zip(derive, slots.values()) where !out.skipped {
            problems[d.rel] = out.problem
            records += out.records
            written += out.written
            diskFaults.formUnion(out.faults)
            if d.isSave { saved.append((d.rel, out.previous, d.previousSha, d.doc, d.sha)) }
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
    func update(project: ProjectInputs, rel: PathBytes, doc: MarkdownDocument, sha: String,
                records: inout [DocumentStateStore.Entry], written: inout [(PathBytes, DocumentOwner.Outcome)],
                diskFaults: inout Set<FaultRecovery.DiskFault>) -> (String?, [UInt8]?) {
        let root = project.root
        let config = project.config
        var key = ""
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
                let inputs = resolver.inputs(project: project, relative: rel, document: doc, sha256: sha,
                                             overrides: .some(sidecar.journey.overrides))
                let derived = resolver.derive(inputs)
                key = inputs.key
                sidecar.words = derived.words
                sidecar.quick = derived.findings
                journey = JourneyEngine.documentChanged(&sidecar, document: doc, config: config, catalog: catalog, previous: previous)
            }
            written.append((rel, outcome))
            // The bytes are kept while suggestions are pending, to follow them through the next edit.
            let pending = outcome.sidecar.suggestions.contains { $0.status == .pending }
            records.append(DocumentStateStore.Entry(document: rel, sidecar: outcome.sidecar, content: pending ? doc.bytes : nil,
                                                    contentSha256: sha, dropContent: !pending,
                                                    derivedFrom: key,
                                                    sidecarJSON: outcome.bytes.flatMap(SidecarStore.compactJSON(ofWritten:))
                                                        ?? (try? DocumentStateStore.Entry.json(outcome.sidecar))))
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

    /// The `stale` rule for `Indexer.sync`: unchanged documents whose recorded derivation key is not
    /// the one their indexed bytes and the project's inputs give now (or that have none). Comparing
    /// keys costs a read of the recorded ones: nothing is parsed.
    public func staleDerivations(project: ProjectInputs) -> ([PathBytes: String], Bool) throws -> Set<PathBytes> {
        let states = self.states
        let projectKey = project.key
        let root = project.root
        return { unchanged, wholeProject in
            let recorded = try states.derivations(project: root, paths: wholeProject ? nil : Array(unchanged.keys))
            var out = Set<PathBytes>()
            for (rel, sha) in unchanged where recorded[rel] != DocumentResolver.key(sha256: sha, project: projectKey) {
                out.insert(rel)
            }
            return out
        }
    }

    /// `staleDerivations(project:)` for a configuration given as a value.
    public func staleDerivations(root: PathBytes, config: Configuration) -> ([PathBytes: String], Bool) throws -> Set<PathBytes> {
        staleDerivations(project: projectInputs(root: root, config: config))
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
