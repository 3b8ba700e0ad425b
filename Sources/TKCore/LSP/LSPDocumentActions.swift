import Foundation
import Logging
import Synchronization

/// Everything the language server changes outside its own buffers goes through here: suggestion
/// decisions, the journey, review rounds, the project dictionary, and reading sidecars.
///
/// Today these call the same code as the `accept`, `skip`, `journey set` and `review` commands
/// (`JourneyActions`, `RoundExecutor`). When one owner of document state exists, re-point the
/// bodies of this file at it; nothing else in `LSP/` touches sidecars or the queue.
public struct LSPDocumentActions: Sendable {
    public let paths: Paths
    public let environment: [String: String]
    let catalog: AdvisorCatalog
    /// The one resolver of a document's inputs (as the agent's and `check`'s).
    public let resolver: DocumentResolver
    private let recent = RecentProjectInputs()

    public init(paths: Paths, environment: [String: String] = ProcessEnvironment.current) {
        self.paths = paths
        self.environment = environment
        catalog = AdvisorCatalog.load(paths: paths)
        resolver = DocumentResolver(paths: paths, environment: environment, catalog: catalog)
    }

    /// A project's inputs (configuration given, dictionary, names), read again at most every
    /// `RecentProjectInputs.maxAge` while the writer types.
    public func projectInputs(_ root: PathBytes, loaded: LoadedConfiguration) -> ProjectInputs {
        recent.inputs(root, loaded: loaded) { resolver.project(root, loaded: loaded) }
    }

    /// Forgets a project's inputs read moments ago: after a change to them (a word added to its
    /// dictionary) the next lint reads them again.
    public func forgetProjectInputs(_ root: PathBytes) { recent.forget(root) }

    private func journey() -> JourneyActions {
        JourneyActions(paths: paths, database: try? AppDatabase.open(paths: paths), environment: environment)
    }

    /// The project and relative path of a document file (it must exist on disk).
    public func locate(file: PathBytes) -> DocumentLocation? {
        try? JourneyActions(paths: paths, database: nil, environment: environment).locate(file: file.display)
    }

    /// The project a file belongs to even when it does not exist yet (an unsaved new buffer).
    public func project(forFile file: PathBytes) -> PathBytes {
        locate(file: file)?.project ?? DocumentResolver.projectRoot(forFile: file)
    }

    /// The document's sidecar as it is on disk, nil when there is none or it cannot be read.
    public func sidecar(_ loc: DocumentLocation) -> ReviewSidecar? {
        if case .ok(let s, _) = SidecarStore.shared(paths: paths).read(project: loc.project, document: loc.relative) { return s }
        return nil
    }

    /// The sidecar file of a document (to watch).
    public func sidecarPath(_ loc: DocumentLocation) -> PathBytes {
        loc.project.appending(".tk").appending(PathBytes(loc.relative.display + ".review.json"))
    }

    /// The effective configuration of a project (its `.tk/config.json` over the user config).
    public func configuration(project: PathBytes) -> LoadedConfiguration {
        resolver.configuration(project: project)
    }

    /// Marks a suggestion accepted or skipped (the editor applies the wording itself).
    public func decide(_ loc: DocumentLocation, id: String, status: SuggestionStatus) throws -> JourneyActions.Result {
        let r = try journey().decide(id: id, at: loc, status: status, replacement: nil)
        _ = AgentLock.signal(paths: paths, SIGUSR1)
        return r
    }

    /// `journey set`: stage, story type, advisors, draft stage.
    public func journeySet(_ loc: DocumentLocation, stage: String?, storyType: String?, advisors: [String]?,
                           draftStage: String?) throws -> ReviewSidecar {
        // The same action as `tk-agent journey set`: the quick findings are derived again with the
        // new settings and recorded with their derivation key.
        let (outcome, _) = try journey().setJourney(loc, stage: stage, storyType: storyType, advisors: advisors,
                                                    draftStage: draftStage)
        _ = AgentLock.signal(paths: paths, SIGUSR1)
        return outcome.sidecar
    }

    /// What queueing a round did.
    public struct Queued: Sendable {
        public var round: String
        /// Whether a running agent takes it; otherwise `runHere` runs it in this process.
        public var agentRuns: Bool
    }

    /// Queues a review round for the document now (`review FILE --now`).
    public func queueReview(_ loc: DocumentLocation) throws -> Queued {
        let db = try AppDatabase.open(paths: paths)
        var logger = Logger(label: "tk-agent-lsp")
        logger.logLevel = .error
        let executor = RoundExecutor(env: .live(paths: paths, environment: environment, database: db, logger: logger))
        let rec = try executor.submit(project: loc.project, document: loc.relative, manual: true, skipQuiet: true, advisors: nil)
        let agentRuns = AgentLock.signal(paths: paths, SIGUSR1)
        return Queued(round: rec.id, agentRuns: agentRuns)
    }

    /// Runs a queued round in this process when no agent does (as `review --now` without an agent).
    /// - Returns: the round's final status and reason.
    public func runHere(round id: String) async -> (status: RoundStatus, reason: String?) {
        guard let db = try? AppDatabase.open(paths: paths) else { return (.failed, "cannot open the database") }
        var logger = Logger(label: "tk-agent-lsp")
        logger.logLevel = .error
        let executor = RoundExecutor(env: .live(paths: paths, environment: environment, database: db, logger: logger))
        for _ in 0..<RoundExecutor.maxTries + 1 {
            guard let current = try? executor.store.round(id: id) else { return (.failed, "the round disappeared") }
            if current.isFinished || current.status == .running { return (current.status, current.reason ?? current.error) }
            if current.status == .waiting, current.notBefore == nil { return (current.status, current.reason) }
            guard let claimed = try? executor.store.claim(id: id, pid: getpid()) else { continue }
            let ended = await executor.run(claimed)
            if ended.isFinished || ended.status == .waiting { return (ended.status, ended.reason ?? ended.error) }
        }
        return (.failed, "the round did not finish")
    }

    /// Appends a word to `<project>/.tk/dictionary.txt` (created when missing; a word already there is not repeated).
    public func addToDictionary(project: PathBytes, word: String) throws {
        let w = word.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !w.isEmpty, !w.contains("\n") else { throw JourneyActionError.noWord }
        let dir = project.appending(".tk")
        try? FileSystem.makeDirectories(dir)
        let file = dir.appending("dictionary.txt")
        var bytes = (try? FileSystem.read(file, limit: 16 << 20)) ?? []
        let existing = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).map(String.init)
        if existing.contains(w) { return }
        if let last = bytes.last, last != 10 { bytes.append(10) }
        bytes += Array((w + "\n").utf8)
        do { try FileSystem.writeAtomically(bytes, to: file, mode: 0o644, durable: false) } catch {
            throw JourneyActionError.unwritable(file, cause: error)
        }
    }

    /// The display name of an advisor ("the editor", "the creative writer").
    public func advisorName(_ id: String) -> String {
        let name = catalog.role(id)?.name ?? id.replacingOccurrences(of: "_", with: " ")
        return name.lowercased()
    }
}

/// The project inputs the language server read lately: a keystroke does not walk the project.
final class RecentProjectInputs: Sendable {
    static let maxAge = Duration.seconds(2)
    private let entries = Mutex<[PathBytes: (at: ContinuousClock.Instant, inputs: ProjectInputs)]>([:])

    func inputs(_ root: PathBytes, loaded: LoadedConfiguration, read: () -> ProjectInputs) -> ProjectInputs {
        let now = ContinuousClock.now
        if let hit = entries.withLock({ $0[root] }), now - hit.at < Self.maxAge,
           hit.inputs.loaded.config == loaded.config {
            return hit.inputs
        }
        let fresh = read()
        entries.withLock { e in
            if e.count > 16 { e.removeAll() }
            e[root] = (now, fresh)
        }
        return fresh
    }

    func forget(_ root: PathBytes) { entries.withLock { _ = $0.removeValue(forKey: root) } }
}
