import Foundation

/// Where a document lives: its project root and its path relative to it.
public struct DocumentLocation: Sendable, Equatable, Hashable {
    public var project: PathBytes
    public var relative: PathBytes
    public init(project: PathBytes, relative: PathBytes) { self.project = project; self.relative = relative }
    public var absolute: PathBytes { project.appending(relative) }
}

/// Why a suggestion or journey command failed; one actionable line.
public enum JourneyActionError: Error, CustomStringConvertible {
    /// The file named on the command line does not exist.
    case noSuchFile(String)
    case notARegularFile(String)
    case notMarkdown(String)
    /// No project folder holds it (the file is the root itself).
    case noProject(String)
    case unreadable(PathBytes, cause: FileSystemError)
    case unknownSuggestion(String)
    case notPending(id: String, status: SuggestionStatus)
    /// The suggestion's passage is no longer exactly where it was recorded.
    case passageMoved(id: String, line: Int, document: PathBytes)
    case nothingToWrite(PathBytes)
    case rewrite(DocumentRewriteError)
    /// An empty word (or one with a line break) for the project dictionary.
    case noWord
    case unwritable(PathBytes, cause: FileSystemError)

    public var description: String {
        switch self {
        case .noSuchFile(let f): "\(f): no such file"
        case .notARegularFile(let f): "\(f): not a regular file"
        case .notMarkdown(let f): "\(f): not a markdown document (.md or .markdown)"
        case .noProject(let f): "\(f): cannot tell its project folder"
        case .unreadable(let path, let cause): "cannot read \(path.display): \(cause)"
        case .unknownSuggestion(let id): JourneyError.unknownSuggestion(id).description
        case .notPending(let id, let status): "suggestion \(id) is \(status.rawValue), not pending: nothing to apply"
        case .passageMoved(let id, let line, let document):
            "the passage of \(id) is no longer exactly at line \(line) of \(document.display); nothing changed "
                + "(save the document and let the agent catch up, or edit it yourself)"
        case .nothingToWrite(let document): "nothing to write to \(document.display)"
        case .rewrite(let cause): "\(cause)"
        case .noWord: "nothing to add to the dictionary"
        case .unwritable(let path, let cause): "cannot write \(path.display): \(cause)"
        }
    }
}

/// What the suggestion and journey commands do, shared by the CLI and tests: find documents and
/// suggestions, change statuses, apply wording to a document, all under the sidecar lock.
public struct JourneyActions: Sendable {
    public let paths: Paths
    public let sidecars: SidecarStore
    public let states: DocumentStateStore?
    public let catalog: AdvisorCatalog
    public let environment: [String: String]
    /// The one writer of sidecars and journey rows.
    public let owner: DocumentOwner
    /// The one resolver of a document's inputs and its derivation.
    public let resolver: DocumentResolver

    public init(paths: Paths, database: AppDatabase?, sidecars: SidecarStore? = nil, catalog: AdvisorCatalog? = nil,
                environment: [String: String] = ProcessEnvironment.current,
                observers: DocumentObservers = DocumentObservers()) {
        self.paths = paths
        let sidecars = sidecars ?? .shared(paths: paths)
        self.sidecars = sidecars
        self.states = database.map { DocumentStateStore(database: $0) }
        let catalog = catalog ?? AdvisorCatalog.load(paths: paths)
        self.catalog = catalog
        self.environment = environment
        self.resolver = DocumentResolver(paths: paths, environment: environment, catalog: catalog)
        self.owner = DocumentOwner(sidecars: sidecars, database: database, observers: observers)
    }

    // MARK: Finding documents and suggestions

    /// The project roots to look in: the configured ones and those the index knows.
    public func knownRoots() -> [PathBytes] {
        var roots = ProjectRegistry.configured(resolver.configurations.user().config)
        if let db = states?.database, let indexed = try? db.projects() {
            for p in indexed where !roots.contains(p.root) { roots.append(p.root) }
        }
        return roots
    }

    /// The project and relative path of a document given on the command line.
    /// - Throws: when the file does not exist or is not a regular file.
    /// - Parameter deleted: also a deleted document the database still keeps (its history), so that
    ///   `history`, `diff` and `restore` reach it.
    public func locate(file: String, deleted: Bool = false) throws(JourneyActionError) -> DocumentLocation {
        let abs = FileSystem.absolute(file)
        guard let st = FileSystem.lstatIfExists(abs) else {
            guard deleted, abs.hasSuffix(".md") || abs.hasSuffix(".markdown") else { throw .noSuchFile(file) }
            let root = DocumentResolver.projectRoot(forFile: abs, known: knownRoots())
            guard let rel = abs.relative(to: root), !rel.isEmpty,
                  (try? states?.database.hasDocument(project: root, path: rel)) == true else { throw .noSuchFile(file) }
            return DocumentLocation(project: root, relative: rel)
        }
        guard st.kind == .regular else { throw .notARegularFile(file) }
        guard abs.hasSuffix(".md") || abs.hasSuffix(".markdown") else {
            throw .notMarkdown(file)
        }
        let root = DocumentResolver.projectRoot(forFile: abs, known: knownRoots())
        guard let rel = abs.relative(to: root), !rel.isEmpty else { throw .noProject(file) }
        return DocumentLocation(project: root, relative: rel)
    }

    /// The document whose sidecar holds the suggestion `id`, searching the known projects (and `extraRoots`).
    public func find(suggestion id: String, extraRoots: [PathBytes] = []) -> DocumentLocation? {
        for loc in states?.documents(mentioning: id) ?? [] {
            if case .ok(let s, _) = sidecars.read(project: loc.project, document: loc.relative), s.suggestions.contains(where: { $0.id == id }) {
                return loc
            }
        }
        var roots = knownRoots()
        for r in extraRoots where !roots.contains(r) { roots.append(r) }
        for root in roots {
            let tk = root.appending(".tk")
            for sidecarPath in Self.sidecarFiles(under: tk) {
                guard let relToTk = sidecarPath.relative(to: tk) else { continue }
                let bytes = (try? FileSystem.read(sidecarPath, limit: 64 << 20)) ?? []
                guard let s = try? JSON.decode(ReviewSidecar.self, from: bytes), s.suggestions.contains(where: { $0.id == id }) else {
                    continue
                }
                let rel = PathBytes(Array(relToTk.bytes.dropLast(".review.json".utf8.count)))
                return DocumentLocation(project: root, relative: rel)
            }
        }
        return nil
    }

    /// Every `*.review.json` below a `.tk` folder.
    static func sidecarFiles(under dir: PathBytes, depth: Int = 0) -> [PathBytes] {
        guard depth < 64, let entries = try? FileSystem.list(dir) else { return [] }
        var out: [PathBytes] = []
        for (name, type) in entries {
            let path = dir.appending(name)
            let kind = type ?? FileSystem.lstatIfExists(path)?.kind
            if kind == .directory {
                out += sidecarFiles(under: path, depth: depth + 1)
            } else if kind == .regular, name.bytes.count > 12, name.display.hasSuffix(".review.json") {
                out.append(path)
            }
        }
        return out.sorted()
    }

    // MARK: Reading and changing sidecars

    /// The configuration of a project.
    public func configuration(project: PathBytes) -> Configuration {
        resolver.configuration(project: project).config
    }

    /// The document's current sidecar, or the journey computed from the document when it has none yet.
    /// A sidecar broken or edited by hand is rebuilt (and the problem returned).
    public func current(_ loc: DocumentLocation) throws -> (sidecar: ReviewSidecar, problem: String?) {
        switch sidecars.read(project: loc.project, document: loc.relative) {
        case .ok(let s, _):
            return (s, nil)
        case .missing:
            return (try fresh(loc), nil)
        case .broken:
            let outcome = try modify(loc) { _ in }
            return (outcome.sidecar, outcome.problem)
        }
    }

    /// A sidecar for a document nobody has processed yet.
    func fresh(_ loc: DocumentLocation) throws -> ReviewSidecar {
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(loc.absolute, limit: 64 << 20) } catch {
            throw JourneyActionError.unreadable(loc.absolute, cause: error)
        }
        let doc = MarkdownDocument(bytes: bytes, fileName: loc.relative.lastComponent.display)
        var s = ReviewSidecar(document: loc.relative.display, sha256: SHA256Digest.hex(bytes), updatedAt: "", words: doc.wordCount)
        _ = JourneyEngine.documentChanged(&s, document: doc, config: configuration(project: loc.project), catalog: catalog)
        return s
    }

    /// Changes a document's sidecar through the owner (under the cross-process lock) and records it
    /// in the database.
    /// - Parameter content: set by `body` to the document's new bytes when it rewrote the document.
    public func modify(_ loc: DocumentLocation, cause: DocumentCause = .other("command"),
                       _ body: (inout ReviewSidecar, inout [UInt8]?) throws -> Void) throws -> SidecarStore.Outcome {
        var content: [UInt8]?
        let outcome = try owner.change(
            project: loc.project, document: loc.relative, cause: cause, fresh: { try self.fresh(loc) },
            record: { _ in DocumentOwner.Record(content: content) }
        ) { sidecar in
            try body(&sidecar, &content)
        }
        return SidecarStore.Outcome(sidecar: outcome.sidecar, wrote: outcome.wrote, problem: outcome.problem)
    }

    /// Convenience for bodies that never rewrite the document.
    public func modify(_ loc: DocumentLocation, cause: DocumentCause = .other("command"),
                       _ body: (inout ReviewSidecar) throws -> Void) throws -> SidecarStore.Outcome {
        try modify(loc, cause: cause) { (s: inout ReviewSidecar, _: inout [UInt8]?) in try body(&s) }
    }

    /// `tk-agent journey set`: records the choices, resolves the settings again and, since the story
    /// type and advisors shape the quick heuristics, recomputes the quick findings of the bytes read here.
    /// - Returns: the outcome and the document's `tk:` block (which wins over what was set).
    public func setJourney(_ loc: DocumentLocation, stage: String?, storyType: String?, advisors: [String]?,
                           draftStage: String?) throws -> (SidecarStore.Outcome, TKBlock) {
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(loc.absolute, limit: 64 << 20) } catch {
            throw JourneyActionError.unreadable(loc.absolute, cause: error)
        }
        let doc = MarkdownDocument(bytes: bytes, fileName: loc.relative.lastComponent.display)
        let sha = SHA256Digest.hex(bytes)
        let project = resolver.project(loc.project)
        let config = project.config
        var derived: String?
        let outcome = try owner.change(
            project: loc.project, document: loc.relative, cause: .journeySet, fresh: { try self.fresh(loc) },
            record: { _ in DocumentOwner.Record(derivedFrom: derived) }
        ) { sidecar in
            try JourneyEngine.set(&sidecar, stage: stage, storyType: storyType, advisors: advisors,
                                  draftStage: draftStage, catalog: catalog)
            JourneyEngine.applySettings(&sidecar.journey, tk: doc.frontMatter.tk, config: config, catalog: catalog)
            // The quick findings follow the new settings, derived as the agent derives them (the
            // project's words included); the recorded key tells the agent they are current. A sidecar
            // of older bytes is left to the agent, which follows its suggestions through the edit.
            if sidecar.sha256 == sha {
                let inputs = resolver.inputs(project: project, relative: loc.relative, document: doc, sha256: sha,
                                             overrides: .some(sidecar.journey.overrides))
                let result = resolver.derive(inputs)
                sidecar.words = result.words
                sidecar.quick = result.findings
                derived = inputs.key
            }
        }
        return (SidecarStore.Outcome(sidecar: outcome.sidecar, wrote: outcome.wrote, problem: outcome.problem), doc.frontMatter.tk)
    }

    // MARK: Suggestion commands

    /// What a suggestion command did.
    public struct Result: Sendable {
        public var location: DocumentLocation
        public var suggestion: Suggestion
        public var previousStatus: SuggestionStatus
        /// Whether the document was rewritten.
        public var applied: Bool
        /// Set when this addressed the last open suggestion of the latest round.
        public var readyMessage: String?
        /// A sidecar broken or edited by hand that was rebuilt first.
        public var problem: String?
    }

    /// The text written into the document in place of a suggestion's passage.
    public enum Replacement: Sendable {
        /// The suggestion's own `suggested_text` (`accept --apply`).
        case suggested
        /// The writer's wording (`edit --text`).
        case text(String)
    }

    /// Sets a suggestion's status; with `replacement`, first rewrites the document: the suggestion's
    /// original passage must still stand exactly at its recorded position, else nothing changes.
    public func decide(id: String, at loc: DocumentLocation, status: SuggestionStatus, replacement: Replacement? = nil) throws -> Result {
        var previous: SuggestionStatus = .pending
        var ready: String?
        var applied = false
        let outcome = try modify(loc, cause: .suggestionDecided(id: id, status: status)) { sidecar, content in
            guard let i = sidecar.suggestions.firstIndex(where: { $0.id == id }) else {
                throw JourneyActionError.unknownSuggestion(id)
            }
            let s = sidecar.suggestions[i]
            previous = s.status
            if let replacement {
                let text: String
                switch replacement {
                case .suggested: text = s.suggestedText
                case .text(let t): text = t
                }
                let newBytes = try rewrite(loc, suggestion: s, with: text)
                let oldBytes = newBytes.old
                try JourneyEngine.mark(&sidecar, id: id, as: status)
                _ = JourneyEngine.followSuggestions(&sidecar, current: newBytes.new, previous: oldBytes)
                sidecar.sha256 = SHA256Digest.hex(newBytes.new)
                content = newBytes.new
                applied = true
            } else {
                try JourneyEngine.mark(&sidecar, id: id, as: status)
            }
            ready = JourneyEngine.readyMessage(&sidecar)
        }
        guard let s = outcome.sidecar.suggestions.first(where: { $0.id == id }) else {
            throw JourneyActionError.unknownSuggestion(id)
        }
        return Result(location: loc, suggestion: s, previousStatus: previous, applied: applied, readyMessage: ready,
                      problem: outcome.problem)
    }

    /// Replaces a pending suggestion's passage in the document, atomically, keeping the file's mode.
    /// - Throws: when the suggestion is not pending or its passage is no longer exactly where it was.
    func rewrite(_ loc: DocumentLocation, suggestion s: Suggestion, with text: String) throws -> (old: [UInt8], new: [UInt8]) {
        guard s.status == .pending, let start = s.start, let end = s.end else {
            throw JourneyActionError.notPending(id: s.id, status: s.status)
        }
        let original = Array(s.originalText.utf8)
        do {
            let written = try DocumentRewriter.rewrite(loc.absolute, limit: 64 << 20) { bytes in
                guard start >= 0, start <= end, end <= bytes.count, Array(bytes[start..<end]) == original else {
                    throw JourneyActionError.passageMoved(id: s.id, line: s.line ?? 0, document: loc.relative)
                }
                return Array(bytes[..<start]) + Array(text.utf8) + Array(bytes[end...])
            }
            guard let written else { throw JourneyActionError.nothingToWrite(loc.relative) }
            return written
        } catch let error as DocumentRewriteError { throw JourneyActionError.rewrite(error) }
    }
}
