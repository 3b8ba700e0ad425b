import Foundation
import GRDB
import Synchronization

/// Why a document's state changed: what a caller tells the owner, and what observers are told.
public enum DocumentCause: Sendable, Equatable {
    /// The bytes were indexed (a save, a rescan, `tk-agent index`), or derived again because the
    /// settings changed or the recorded derivation was stale.
    case contentIndexed
    /// A broken or hand-edited sidecar was rebuilt.
    case repaired
    /// A review round was queued, started, finished or failed (`status` is the round's new one).
    case round(id: String, status: RoundStatus)
    /// A suggestion was accepted, edited or skipped from the CLI (or a language server).
    case suggestionDecided(id: String, status: SuggestionStatus)
    /// `tk-agent journey set` (or `journey reset`).
    case journeySet
    /// Anything else a command changed through `DocumentOwner.change`.
    case other(String)
}

/// What observers of the owner are told, after the sidecar and the database rows are written.
public enum DocumentEvent: Sendable {
    /// New bytes of a document were taken in (`previousSha256` nil: a new document). `bytes` and
    /// `sha256` are the bytes read once by the indexer; `previousBytes` are the bytes the sidecar's
    /// positions described before, when the database kept them (pending suggestions).
    case saved(project: PathBytes, path: PathBytes, previousBytes: [UInt8]?, previousSha256: String?,
               newBytes: [UInt8], sha256: String)
    /// A document's sidecar changed for `cause` (also sent after `.saved`).
    case sidecarChanged(project: PathBytes, path: PathBytes, cause: DocumentCause, sidecar: ReviewSidecar)
    /// The journey stage moved (after any cause).
    case stageChanged(project: PathBytes, path: PathBytes, from: JourneyStage, to: JourneyStage, cause: DocumentCause)
    /// A round started (the sidecar shows it running).
    case roundStarted(project: PathBytes, path: PathBytes, roundID: String)
    /// A document was renamed; its sidecar and database rows followed it.
    case moved(project: PathBytes, from: PathBytes, to: PathBytes)
    /// A document is gone; so are its sidecar and journey row.
    case removed(project: PathBytes, path: PathBytes)
}

/// Why the owner could not record a change. The cause is kept as a value (the `FileSystemError`
/// with its errno, GRDB's `DatabaseError` with its SQLite code), never flattened into text.
public struct DocumentStateError: Error, CustomStringConvertible {
    public enum Step: String, Sendable { case sidecar = "write the sidecar of", database = "record the state of",
                                            move = "move the sidecar of", remove = "remove the state of" }
    public var step: Step
    public var document: PathBytes
    public var cause: any Error
    public var description: String { "cannot \(step.rawValue) \(document.display): \(cause)" }
}

/// The observers of a `DocumentOwner`: a list of callbacks every copy of the owner shares.
public final class DocumentObservers: Sendable {
    private let list = Mutex<[@Sendable (DocumentEvent) -> Void]>([])
    public init() {}
    /// Adds an observer; it is called synchronously, on the thread that made the change, after the
    /// sidecar and the database rows are written (keep it short: hand heavy work to your own queue).
    public func add(_ observer: @escaping @Sendable (DocumentEvent) -> Void) { list.withLock { $0.append(observer) } }
    func emit(_ event: DocumentEvent) {
        for o in list.withLock({ $0 }) { o(event) }
    }
}

/// The one owner of every document's state: its sidecar `.tk/<path>.review.json` and its
/// `journey_state` row.
///
/// Every event that changes what tk-agent knows about a document goes through here: a save or a
/// rescan (`DocumentPipeline`, for the agent), a round queued/started/finished/failed
/// (`RoundExecutor`), a suggestion accepted/edited/skipped and `journey set` (`JourneyActions`, for
/// the CLI), a move, a removal. `change` takes the document's lock (the cross-process sidecar lock),
/// reads the sidecar or rebuilds it by one rule (the database copy, else what the file still says,
/// else `fresh`), lets the caller apply its transition, writes the sidecar if it changed, records the
/// database row, and only then tells the observers. Failures are thrown as `DocumentStateError`.
///
/// Extension point: `observers.add { event in ... }` subscribes to `DocumentEvent`s (saved,
/// sidecarChanged, stageChanged, roundStarted, moved, removed) without touching this file: history
/// snapshots on `.roundStarted`/`.stageChanged`, progress on `.saved`, passage indexing on `.saved`.
/// Copies of an owner share their observers; the agent makes one and hands it to its pipeline and
/// its review queue.
public struct DocumentOwner: Sendable {
    public let sidecars: SidecarStore
    /// Nil when the CLI has no database (the sidecar is still written).
    public let states: DocumentStateStore?
    public let observers: DocumentObservers

    public init(sidecars: SidecarStore, database: AppDatabase?, observers: DocumentObservers = DocumentObservers()) {
        self.sidecars = sidecars
        self.states = database.map { DocumentStateStore(database: $0) }
        self.observers = observers
    }

    /// What `change` did.
    public struct Outcome: Sendable {
        /// The sidecar as written (or as it already was).
        public var sidecar: ReviewSidecar
        public var wrote: Bool
        /// A sidecar broken or edited by hand that was kept as `.bak` and rebuilt.
        public var problem: String?
        /// The journey stage before the change (nil: the sidecar was new).
        public var stageBefore: JourneyStage?
        /// The sidecar's bytes as written (nil when the file already said it).
        public var bytes: [UInt8]? = nil
    }

    /// What to record in the database besides the sidecar.
    public struct Record: Sendable {
        /// The bytes the sidecar's positions describe (kept while suggestions are pending); nil keeps
        /// what was recorded before.
        public var content: [UInt8]?
        public var contentSha256: String?
        /// Forget the recorded bytes.
        public var dropContent: Bool
        /// The derivation key (`DocumentInputs.key`) of the inputs the sidecar was derived from.
        public var derivedFrom: String?
        public init(content: [UInt8]? = nil, contentSha256: String? = nil, dropContent: Bool = false, derivedFrom: String? = nil) {
            self.content = content; self.contentSha256 = contentSha256; self.dropContent = dropContent
            self.derivedFrom = derivedFrom
        }
    }

    /// Changes one document's state: the one place that writes a sidecar.
    /// - Parameters:
    ///   - fresh: the sidecar of a document nobody processed yet (used when neither the file nor the
    ///     database has one).
    ///   - record: given the sidecar as written, what to record with it; nil records nothing and
    ///     tells no observer (a caller that records itself then calls `announce`).
    ///   - body: the transition; may throw to leave everything as it was.
    @discardableResult
    public func change(
        project: PathBytes, document rel: PathBytes, cause: DocumentCause,
        fresh: () throws -> ReviewSidecar,
        record: ((ReviewSidecar) -> Record?)? = { _ in Record() },
        _ body: (inout ReviewSidecar) throws -> Void
    ) throws -> Outcome {
        var freshError: (any Error)?
        var databaseDown: DocumentStateError?
        var before: JourneyStage?
        let states = self.states
        let outcome: SidecarStore.Outcome
        do {
            outcome = try sidecars.modify(project: project, document: rel, rebuild: {
                func make() -> ReviewSidecar {
                    do { return try fresh() } catch {
                        freshError = error
                        return ReviewSidecar(document: rel.display, sha256: "", updatedAt: "", words: 0)
                    }
                }
                guard let states else { return make() }
                return states.rebuild(project: project, document: rel, fresh: make)
            }, beforeWrite: { sidecar, bytes in
                // The database first, then the file: a sidecar is not ahead of its database copy.
                // Except when the database's disk is full or cannot be written: then the file still
                // keeps what the writer did (a paid round, an accept) rather than lose it, and the
                // database takes it in at the document's next change (the file is read first).
                guard let states, let record, let r = record(sidecar) else { return }
                do {
                    try states.record(project: project, [DocumentStateStore.Entry(
                        document: rel, sidecar: sidecar, fileBytes: bytes, content: r.content, contentSha256: r.contentSha256,
                        dropContent: r.dropContent, derivedFrom: r.derivedFrom)])
                } catch {
                    let failure = DocumentStateError(step: .database, document: rel, cause: error)
                    guard Self.databaseCannotWrite(error) else { throw failure }
                    databaseDown = failure
                }
            }) { sidecar in
                if let freshError { throw freshError }
                before = sidecar.journey.stage
                try body(&sidecar)
            }
        } catch let error as FileSystemError {
            throw DocumentStateError(step: .sidecar, document: rel, cause: error)
        }
        if let databaseDown { throw databaseDown }
        // A caller recording a batch itself announces once the batch is recorded (`announce`).
        if record != nil {
            announce(project: project, document: rel, cause: cause, before: before, sidecar: outcome.sidecar, wrote: outcome.wrote)
        }
        return Outcome(sidecar: outcome.sidecar, wrote: outcome.wrote, problem: outcome.problem, stageBefore: before, bytes: outcome.bytes)
    }

    /// Whether a database error says its disk cannot take writes now (full, read-only, failing).
    static func databaseCannotWrite(_ error: any Error) -> Bool {
        if FaultRecovery.diskFault(error) != nil { return true }
        return (error as? DatabaseError)?.resultCode == .SQLITE_IOERR
    }

    /// Tells the observers about new bytes (called by the pipeline once the sidecar is written).
    public func saved(project: PathBytes, document rel: PathBytes, previousBytes: [UInt8]?, previousSha256: String?,
                      newBytes: [UInt8], sha256: String) {
        observers.emit(.saved(project: project, path: rel, previousBytes: previousBytes, previousSha256: previousSha256,
                              newBytes: newBytes, sha256: sha256))
    }

    /// A document was renamed: its sidecar and journey row follow it.
    public func moved(project: PathBytes, from old: PathBytes, to new: PathBytes) throws {
        do { try sidecars.move(project: project, from: old, to: new) } catch {
            throw DocumentStateError(step: .move, document: old, cause: error)
        }
        do { try states?.moved(project: project, from: old, to: new) } catch {
            throw DocumentStateError(step: .move, document: old, cause: error)
        }
        observers.emit(.moved(project: project, from: old, to: new))
    }

    /// A document is gone: so are its sidecar and journey row.
    public func removed(project: PathBytes, document rel: PathBytes) throws {
        sidecars.remove(project: project, document: rel)
        do { try states?.removed(project: project, document: rel) } catch {
            throw DocumentStateError(step: .remove, document: rel, cause: error)
        }
        observers.emit(.removed(project: project, path: rel))
    }

    /// Tells the observers what a `change` did (done by `change` itself unless `record` was nil).
    public func announce(project: PathBytes, document rel: PathBytes, cause: DocumentCause, before: JourneyStage?,
                         sidecar: ReviewSidecar, wrote: Bool) {
        guard wrote else { return }
        observers.emit(.sidecarChanged(project: project, path: rel, cause: cause, sidecar: sidecar))
        if let before, before != sidecar.journey.stage {
            observers.emit(.stageChanged(project: project, path: rel, from: before, to: sidecar.journey.stage, cause: cause))
        }
        if case .round(let id, .running) = cause {
            observers.emit(.roundStarted(project: project, path: rel, roundID: id))
        }
    }
}
