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

    /// Applies a batch of changes of one project (whose index rows are written already).
    /// - Returns: sidecar problem updates by document (message, or nil when it is fine again).
    public func apply(_ changes: [DocumentChange], root: PathBytes, config: Configuration) -> [PathBytes: String?] {
        apply(changes, project: projectInputs(root: root, config: config))
    }

    /// A project's inputs for a configuration given as a value (no layers: see `LoadedConfiguration.given`).
    public func projectInputs(root: PathBytes, config: Configuration) -> ProjectInputs {
        resolver.project(root, loaded: .given(config))
    }

    /// Applies a batch of changes of one project (whose index rows are written already), derived
    /// from `project`'s inputs.
    /// - Returns: sidecar problem updates by document (message, or nil when it is fine again).
    public func apply(_ changes: [DocumentChange], project: ProjectInputs) -> [PathBytes: String?] {
        var faults = Set<FaultRecovery.DiskFault>()
        do {
            return try commit(changes, index: nil, project: project, diskFaults: &faults).problems
        } catch {
            var problems: [PathBytes: String?] = [:]
            for change in changes { problems[change.path] = "\(error)" }
            return problems
        }
    }

    /// What `commit` did.
    public struct Committed: Sendable {
        /// Sidecar problem updates by document (message, or nil when it is fine again).
        public var problems: [PathBytes: String?] = [:]
        /// The goal notification progress asks for (title, body), shown by the caller.
        public var goal: (title: String, body: String)?
    }

    /// What a batch records of progress and history (nil: nothing).
    public struct HistoryInputs: Sendable {
        public var paths: Paths
        public init(paths: Paths) { self.paths = paths }
    }

    /// Commits one batch of a project: derives every document (quick findings, journey, the sidecar
    /// to write) without writing anything, then writes all of the batch's database state in **one
    /// transaction** (the index rows when given, the journey rows, progress and history), then the
    /// sidecars from what was committed, then tells the observers.
    ///
    /// A kill before the commit leaves nothing of the batch (the next scan finds it changed); a kill
    /// after it leaves sidecars that lag the database, which the next whole scan rewrites from it
    /// (`verifySidecars`). A sidecar another process wrote between the derivation and the write
    /// (an `accept`) is derived again under the lock and recorded on its own.
    /// - Parameters:
    ///   - index: the batch's index rows (`Indexer.sync(commit:)`); nil when they are written already.
    ///   - derive: the changes to derive (nil: all); the others are indexed and recorded in history
    ///     only (`index` leaves a big first derivation to the agent). Not used when `derived` is given.
    ///   - derived: the batch as `derive` made it (`Indexer.sync`'s `derive`); nil derives it here.
    ///   - history: where progress and history are recorded (nil: not recorded).
    ///   - diskFaults: collects the disk faults (full, read-only) behind failed sidecar writes, which
    ///     pass by themselves: the agent goes through the project again soon.
    ///   - lanes: documents derived at once (on as many threads).
    ///   - stop: once set, the documents not derived yet are left as they are: their recorded
    ///     derivation is not their content's, so the next scan derives them (`staleDerivations`).
    /// - Throws: when the transaction failed: nothing of the batch is in the database.
    func commit(_ changes: [DocumentChange], index: IndexBatch?, derive: ((DocumentChange) -> Bool)? = nil,
                derived: DerivedBatch? = nil, project: ProjectInputs, history: HistoryInputs? = nil,
                diskFaults: inout Set<FaultRecovery.DiskFault>, lanes: Int = 1, stop: StopFlag? = nil) throws -> Committed {
        let root = project.root
        var out = Committed()
        // 1. Each document's derivation, nothing written (done already when `derived` is given).
        let batch = derived ?? self.derive(changes, only: derive, project: project, lanes: lanes, stop: stop)
        let items = batch.work
        let prepared = batch.prepared
        let removed = batch.removed
        for w in items { if let source = w.source { out.problems[source] = .some(nil) } }
        // 2. One transaction: the index rows, the journey rows, progress and history.
        var entries: [DocumentStateStore.Entry] = []
        for p in prepared { if case .ready(let r) = p.state { entries.append(r.entry) } }
        try database.batchTransaction { db in
            try index?.write(db)
            for rel in removed { try states.removed(project: root, document: rel) }
            if !entries.isEmpty { try states.record(project: root, entries) }
            if let history {
                // Progress and history as before: a failure there is logged and undone, and the rest
                // of the batch is committed all the same.
                do {
                    try db.inSavepoint {
                        out.goal = try ProgressHooks.record(paths: history.paths, database: database, root: root,
                                                            changes: changes, config: project.config)
                        return .commit
                    }
                } catch {
                    logger.warning("cannot record progress and history", metadata: ["project.path": "\(root.display)", "error": "\(error)"])
                }
            }
        }
        // 3. The sidecars, from what was committed; then the observers.
        for rel in removed {
            sidecars.remove(project: root, document: rel)
            out.problems[rel] = .some(nil)
            owner.observers.emit(.removed(project: root, path: rel))
        }
        let ready = prepared.compactMap { p -> (Int, Ready)? in
            if case .ready(let r) = p.state { return (p.index, r) } else { return nil }
        }
        let written = sidecars.write(project: root, prepared: ready.map { $0.1.sidecar })
        for ((i, r), outcome) in zip(ready, written) {
            let w = items[i]
            var wrote = false
            switch outcome {
            case .done(let didWrite, let problem):
                wrote = didWrite
                out.problems[w.rel] = .some(problem)
                if let source = w.source { owner.observers.emit(.moved(project: root, from: source, to: w.rel)) }
            case .changedMeanwhile:
                // Another process changed the sidecar since it was read: derived again under the lock.
                if let source = w.source { try? owner.moved(project: root, from: source, to: w.rel) }
                let again = update(project: project, rel: w.rel, doc: w.doc, sha: w.sha, diskFaults: &diskFaults)
                out.problems[w.rel] = .some(again.problem)
                if w.isSave { owner.saved(project: root, document: w.rel, previousBytes: again.previous, previousSha256: w.change.previousSha256,
                                          newBytes: w.doc.bytes, sha256: w.sha) }
                continue
            case .failed(let error):
                if let f = FaultRecovery.diskFault(error) { diskFaults.insert(f) }
                out.problems[w.rel] = .some(DocumentStateError(step: .sidecar, document: w.rel, cause: error).description)
                continue
            }
            owner.announce(project: root, document: w.rel, cause: .contentIndexed, before: r.stageBefore, sidecar: r.sidecar.sidecar,
                           wrote: wrote)
            if w.isSave {
                owner.saved(project: root, document: w.rel, previousBytes: r.previous, previousSha256: w.change.previousSha256,
                            newBytes: w.doc.bytes, sha256: w.sha)
            }
            report(r.journey, rel: w.rel, project: project)
        }
        for p in prepared {
            if case .failed(let message, let fault) = p.state {
                out.problems[items[p.index].rel] = .some(message)
                if let fault { diskFaults.insert(fault) }
            }
        }
        return out
    }

    /// `commit` for a command (`tk-agent index`): the disk faults are its problems' to say.
    public func commit(_ changes: [DocumentChange], index: IndexBatch?, derive: ((DocumentChange) -> Bool)? = nil,
                       project: ProjectInputs, history: HistoryInputs?, lanes: Int) throws -> Committed {
        var faults = Set<FaultRecovery.DiskFault>()
        return try commit(changes, index: index, derive: derive, derived: index?.derived as? DerivedBatch, project: project,
                          history: history, diskFaults: &faults, lanes: lanes)
    }

    /// A batch's documents, derived (`derive`), for its `commit`.
    public struct DerivedBatch: Sendable {
        struct Work: Sendable {
            var change: DocumentChange
            /// Where the document is (its new path, for a move).
            var rel: PathBytes
            /// A moved document's old path.
            var source: PathBytes?
            var doc: MarkdownDocument
            var sha: String
            /// New bytes (not a move, nor a derivation of unchanged ones).
            var isSave: Bool
        }
        var work: [Work] = []
        /// `work`'s derivations, by index (those a stop left out are missing).
        var prepared: [Prepared] = []
        var removed: [PathBytes] = []
    }

    /// Derives a batch's documents (quick findings, journey, the sidecar to write, the row to record)
    /// on `lanes` threads, writing nothing: `Indexer.sync`'s `derive`, which runs while the batch
    /// before is committed.
    /// - Parameter only: the changes to derive (nil: all).
    public func derive(_ changes: [DocumentChange], only: ((DocumentChange) -> Bool)? = nil, project: ProjectInputs,
                       lanes: Int, stop: StopFlag? = nil) -> DerivedBatch {
        var batch = DerivedBatch()
        for change in changes {
            switch change {
            case .updated(let rel, let doc, let sha, let previousSha):
                if only?(change) ?? true {
                    batch.work.append(.init(change: change, rel: rel, source: nil, doc: doc, sha: sha, isSave: previousSha != sha))
                }
            case .deleted(let rel, _):
                batch.removed.append(rel)
            case .moved(let from, let to, let doc, let sha):
                batch.work.append(.init(change: change, rel: to, source: from, doc: doc, sha: sha, isSave: false))
            }
        }
        let slots = ResultSlots<Prepared>(count: batch.work.count)
        let width = max(1, min(lanes, batch.work.count))
        let items = batch.work
        DispatchQueue.concurrentPerform(iterations: width) { lane in
            for i in stride(from: lane, to: items.count, by: width) {
                if stop?.isSet == true { return }
                let w = items[i]
                slots.set(i, prepare(project: project, rel: w.rel, source: w.source, doc: w.doc, sha: w.sha, index: i))
            }
        }
        batch.prepared = slots.values()
        return batch
    }

    /// One document of a batch, derived (`prepare`).
    public struct Prepared: Sendable {
        enum State: Sendable {
            case ready(Ready)
            case failed(String, FaultRecovery.DiskFault?)
        }
        var index: Int
        var state: State
    }

    struct Ready: Sendable {
        var sidecar: SidecarStore.Prepared
        var entry: DocumentStateStore.Entry
        var stageBefore: JourneyStage?
        /// The bytes the sidecar's positions described before, when known.
        var previous: [UInt8]?
        var journey: JourneyUpdate
    }

    /// Derives one document: its quick findings and journey from its inputs, its sidecar to write
    /// and its row to record. Reads the sidecar and the database; writes nothing.
    func prepare(project: ProjectInputs, rel: PathBytes, source: PathBytes?, doc: MarkdownDocument, sha: String, index: Int) -> Prepared {
        let root = project.root
        // A moved document's row is still at its old path when the index rows are written in the
        // batch's transaction, at its new one when they were written before.
        let recorded = source.flatMap { states.previousContent(project: root, document: $0) }
            ?? states.previousContent(project: root, document: rel)
        var key = ""
        var journey = JourneyUpdate()
        var previousBytes: [UInt8]?
        var before: JourneyStage?
        do {
            let p = try sidecars.prepare(project: root, document: rel, source: source, rebuild: {
                if let source, let copy = states.load(project: root, document: source)?.sidecar { return copy }
                return states.rebuild(project: root, document: rel, fresh: {
                    ReviewSidecar(document: rel.display, sha256: sha, updatedAt: "", words: doc.wordCount)
                })
            }) { sidecar in
                before = sidecar.journey.stage
                (key, journey, previousBytes) = derive(&sidecar, project: project, rel: rel, doc: doc, sha: sha, recorded: recorded)
            }
            let pending = p.sidecar.suggestions.contains { $0.status == .pending }
            // The file's bytes once written: the new ones, or those it says already.
            let entry = DocumentStateStore.Entry(
                document: rel, sidecar: p.sidecar, fileBytes: p.bytes ?? p.read, content: pending ? doc.bytes : nil,
                contentSha256: sha, dropContent: !pending, derivedFrom: key)
            return Prepared(index: index, state: .ready(Ready(sidecar: p, entry: entry, stageBefore: before, previous: previousBytes, journey: journey)))
        } catch {
            return Prepared(index: index, state: .failed("\(error)", FaultRecovery.diskFault(error)))
        }
    }

    /// The transition of a sidecar for new bytes: the document's derivation (quick findings, words)
    /// and its journey, following pending suggestions through the edit.
    /// - Returns: the derivation key, the journey's update and the bytes the positions described before.
    func derive(_ sidecar: inout ReviewSidecar, project: ProjectInputs, rel: PathBytes, doc: MarkdownDocument, sha: String,
                recorded: (content: [UInt8], sha256: String)?) -> (String, JourneyUpdate, [UInt8]?) {
        // The bytes the sidecar's positions describe, when known.
        var previous: [UInt8]?
        if let recorded, recorded.sha256 == sidecar.sha256 {
            previous = recorded.content
        } else if sidecar.sha256 == sha {
            previous = doc.bytes
        }
        sidecar.document = rel.display
        sidecar.sha256 = sha
        let inputs = resolver.inputs(project: project, relative: rel, document: doc, sha256: sha,
                                     overrides: .some(sidecar.journey.overrides))
        let derived = resolver.derive(inputs)
        sidecar.words = derived.words
        sidecar.quick = derived.findings
        let journey = JourneyEngine.documentChanged(&sidecar, document: doc, config: project.config, catalog: catalog, previous: previous)
        return (inputs.key, journey, previous)
    }

    /// Logs what a document's journey did and sends the "ready" notification it asks for.
    func report(_ journey: JourneyUpdate, rel: PathBytes, project: ProjectInputs) {
        if !journey.transitions.isEmpty {
            logger.info("suggestions addressed", metadata: [
                "file.path": "\(rel.display)",
                "accepted": "\(journey.transitions.filter { $0.to == .accepted }.count)",
                "edited": "\(journey.transitions.filter { $0.to == .edited }.count)",
            ])
        }
        if journey.needsReadyNotification, let message = journey.readyMessage {
            logger.info("document ready for final or another round", metadata: ["file.path": "\(rel.display)"])
            if project.config.notifications.enabled { notify(rel.lastComponent.display, message, project.root.appending(rel).display) }
        }
    }

    /// Derives one document under the sidecar lock and records it on its own (`DocumentOwner.change`):
    /// for a sidecar another process wrote while its batch was derived.
    func update(project: ProjectInputs, rel: PathBytes, doc: MarkdownDocument, sha: String,
                diskFaults: inout Set<FaultRecovery.DiskFault>) -> (problem: String?, previous: [UInt8]?) {
        let root = project.root
        let recorded = states.previousContent(project: root, document: rel)
        var key = ""
        var journey = JourneyUpdate()
        var previousBytes: [UInt8]?
        do {
            let outcome = try owner.change(
                project: root, document: rel, cause: .contentIndexed,
                fresh: { ReviewSidecar(document: rel.display, sha256: sha, updatedAt: "", words: doc.wordCount) },
                record: { sidecar in
                    let pending = sidecar.suggestions.contains { $0.status == .pending }
                    return DocumentOwner.Record(content: pending ? doc.bytes : nil, contentSha256: sha, dropContent: !pending, derivedFrom: key)
                }
            ) { sidecar in
                (key, journey, previousBytes) = derive(&sidecar, project: project, rel: rel, doc: doc, sha: sha, recorded: recorded)
            }
            report(journey, rel: rel, project: project)
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
        // What each sidecar said when its state was committed (a batch commits, then writes them).
        let committed = (try? states.sidecarChecksums(project: root)) ?? [:]
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
                if let expected = committed[rel], expected != SidecarStore.checksum(ofWritten: bytes),
                   let rewritten = rewriteLagging(root: root, document: rel, onDisk: bytes) {
                    problems[rel] = rewritten
                }
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

    /// Rewrites a sidecar from the database when the database's copy is newer than the file (a kill
    /// came between a batch's commit and its sidecars). A file newer than the copy is left alone.
    /// - Returns: the problem update (nil when nothing was done).
    func rewriteLagging(root: PathBytes, document rel: PathBytes, onDisk bytes: [UInt8]) -> String?? {
        guard let copy = states.load(project: root, document: rel)?.sidecar,
              let file = try? JSON.decode(ReviewSidecar.self, from: bytes) else { return nil }
        let copyTime = RFC3339.date(copy.updatedAt), fileTime = RFC3339.date(file.updatedAt)
        // A file as new as the copy stays: the database may have missed a change the file kept (a
        // full disk, see `DocumentOwner.change`); the document's next change takes the file in.
        if let copyTime, let fileTime, copyTime <= fileTime { return nil }
        do {
            let fresh = try SidecarStore.encode(copy)
            let written = try sidecars.withLock { () throws -> Bool in
                let path = ReviewSidecar.path(project: root, document: rel)
                guard (try? FileSystem.read(path, limit: 64 << 20)) == bytes else { return false }
                try FileSystem.writeAtomically(fresh, to: path, mode: 0o644, durable: false)
                return true
            }
            if written {
                logger.info("sidecar rewritten from the database", metadata: ["file.path": "\(rel.display)"])
                return .some(nil)
            }
            return nil
        } catch {
            return .some("\(error)")
        }
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
