import Foundation
import Synchronization

/// Everything a project contributes to the derived state of each of its documents: the merged
/// configuration (user config under the project's `.tk/config.json`), the project's words (its
/// dictionary and the names it uses), the advisors and story types (their table of limits and
/// tips), and any further rule sources. `key` digests all of it with the rule engine's version.
public struct ProjectInputs: Sendable {
    public let root: PathBytes
    public let loaded: LoadedConfiguration
    public let words: ProjectWords
    public let catalog: AdvisorCatalog
    /// Further rule sources by name (a rule pack, a house style) with a digest of what they say.
    /// A source added here is part of every document's derivation key.
    public let ruleSources: [String: String]
    /// The team's Vale styles (the `.vale.ini` Vale finds from the project root), nil without one.
    /// Its digest (ini and rule files) is the rule source "vale".
    public let vale: ValeEngine?
    /// The digest of everything above that a derived result can depend on.
    public let key: String

    public var config: Configuration { loaded.config }

    public init(root: PathBytes, loaded: LoadedConfiguration, words: ProjectWords, catalog: AdvisorCatalog,
                catalogDigest: String? = nil, ruleSources: [String: String] = [:], vale: ValeEngine? = nil) {
        self.root = root; self.loaded = loaded; self.words = words; self.catalog = catalog
        var ruleSources = ruleSources
        if let vale { ruleSources["vale"] = vale.digest }
        self.ruleSources = ruleSources
        self.vale = vale
        self.key = Self.key(loaded: loaded, words: words, catalogDigest: catalogDigest ?? Self.digest(catalog),
                            ruleSources: ruleSources)
    }

    /// Bumped whenever the quick heuristics change what they find on the same inputs.
    public static let rulesVersion = "1"

    static func key(loaded: LoadedConfiguration, words: ProjectWords, catalogDigest: String, ruleSources: [String: String]) -> String {
        let c = loaded.config
        let h = c.heuristics
        let configured = loaded.configured.filter { $0.hasPrefix("heuristics.") }.sorted()
        var text = [
            "v:\(rulesVersion):\(TKVersion.string)",
            "h:\(h.maxSentenceWords):\(h.maxGrade):\(h.disabled.sorted()):\(h.allow):\(h.spelling):\(h.lang):\(configured)",
            "s:\(c.storyType ?? "")", "a:\(c.advisors ?? [])", "d:\(c.draftStage ?? "")",
            "w:\(c.watch.maxFileBytes)", "c:\(catalogDigest)", "p:\(words.digest)",
        ]
        for name in ruleSources.keys.sorted() { text.append("r:\(name):\(ruleSources[name] ?? "")") }
        return String(SHA256Digest.hex(Array(text.joined(separator: "\n").utf8)).prefix(16))
    }

    /// A digest of the story types and roles (their limits, default advisors and tips). The
    /// built-in part, when the catalog starts with it unchanged, is the digest of the files it was
    /// decoded from (encoding it took a millisecond or two of every command's start); the rest,
    /// custom roles, is encoded.
    public static func digest(_ catalog: AdvisorCatalog) -> String {
        func encoded<T: Encodable>(_ value: T) -> Data {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return (try? encoder.encode(value)) ?? Data()
        }
        let builtIn = BuiltInCatalog.shared
        let n = builtIn.catalog.roles.count
        if catalog.storyTypes == builtIn.catalog.storyTypes, catalog.roles.count >= n,
           catalog.roles[..<n].elementsEqual(builtIn.catalog.roles) {
            var bytes = Array("b:\(builtIn.bytesDigest)".utf8)
            if catalog.roles.count > n {
                bytes += [0] + Array(encoded(Array(catalog.roles[n...])))
            }
            return String(SHA256Digest.hex(bytes).prefix(16))
        }
        return String(SHA256Digest.hex(Array(encoded(catalog.storyTypes) + encoded(catalog.roles))).prefix(16))
    }
}

/// What one document's derived state is computed from: its project's inputs, its bytes (parsed),
/// the choices `journey set` recorded for it, command-line flags, and the settings they resolve to.
public struct DocumentInputs: Sendable {
    public let project: ProjectInputs
    /// The path below the project (nil for standard input).
    public let relative: PathBytes?
    public let document: MarkdownDocument
    public let sha256: String
    public let overrides: JourneyOverrides?
    public let flags: DocumentSettings.Flags
    /// Flags › front matter › `journey set` › project config › user config › story type › defaults.
    public let settings: DocumentSettings

    /// The derivation key: a stored result derived from inputs with the same key is current.
    public var key: String { DocumentResolver.key(sha256: sha256, project: project.key) }
}

/// What is derived from a document's inputs without side effects.
public struct Derived: Sendable, Equatable {
    /// The quick heuristics' findings, in document order.
    public var findings: [Finding]
    public var words: Int
}

/// The one resolver of a document's inputs and the one derivation of its quick state, shared by
/// the agent's pipeline, `index`, `check`, the language server and `journey set`.
///
/// Building an engine (its phrase tables) costs far more than checking a document, so engines are
/// kept by options; the result depends only on the inputs.
public final class DocumentResolver: Sendable {
    public let paths: Paths
    public let environment: [String: String]
    /// Where every configuration this resolver uses is read (the agent shares one with its services).
    public let configurations: ConfigurationStore
    public let catalog: AdvisorCatalog
    private let catalogDigest: String
    private let engines = EngineCache()

    public init(paths: Paths, environment: [String: String] = ProcessEnvironment.current,
                catalog: AdvisorCatalog? = nil, configurations: ConfigurationStore? = nil) {
        self.paths = paths
        self.environment = environment
        self.configurations = configurations ?? ConfigurationStore(paths: paths, environment: environment)
        let catalog = catalog ?? AdvisorCatalog.load(paths: paths)
        self.catalog = catalog
        self.catalogDigest = ProjectInputs.digest(catalog)
    }

    // MARK: Projects

    /// The configuration of a project: its `.tk/config.json` over the user config over the defaults.
    /// With no project, the user config alone.
    public func configuration(project: PathBytes?) -> LoadedConfiguration {
        configurations.load(project: project)
    }

    /// A project's inputs as its files say now (configuration, dictionary, names).
    /// - Parameters:
    ///   - loaded: the project's configuration when the caller holds it already.
    ///   - watched: the folder is a project the agent or `index` keeps sidecars for: its `.tk/`
    ///     folder is made now when missing, so that its names count from the first derivation on,
    ///     for every surface (names are counted only in a folder with `.tk/`).
    ///   - vale: the Vale styles to apply; by default those of the `.vale.ini` Vale would find from
    ///     `root` (`.some(nil)`: none, for a caller that applies Vale itself).
    public func project(_ root: PathBytes, loaded: LoadedConfiguration? = nil, watched: Bool = false,
                        vale: ValeEngine?? = .none) -> ProjectInputs {
        if watched, FileSystem.lstatIfExists(root.appending(".tk")) == nil {
            try? FileSystem.makeDirectories(root.appending(".tk"))
        }
        let loaded = loaded ?? configuration(project: root)
        let words = ProjectWords.current(project: root, ignore: loaded.config.watch.ignore,
                                         maxFileBytes: max(0, loaded.config.watch.maxFileBytes))
        let styles: ValeEngine?
        switch vale {
        case .some(let given): styles = given
        case .none: styles = ValeEngine.discover(from: root.display)
        }
        return ProjectInputs(root: root, loaded: loaded, words: words, catalog: catalog, catalogDigest: catalogDigest,
                             vale: styles)
    }

    /// The one rule for a document's project: the deepest of the known projects (watched or indexed)
    /// and the nearest folder with a `.tk/` folder that contain it, else the file's folder.
    public static func projectRoot(forFile file: PathBytes, known: [PathBytes] = []) -> PathBytes {
        let marked = CheckSession.projectRoot(forFile: file)
        let hasMark = FileSystem.lstatIfExists(marked.appending(".tk"))?.kind == .directory
        let containing = known.filter { file.isWithin($0) && file != $0 }.max { $0.bytes.count < $1.bytes.count }
        guard let containing else { return marked }
        return hasMark && marked.isWithin(containing) ? marked : containing
    }

    // MARK: Documents

    /// The inputs of one document.
    /// - Parameters:
    ///   - relative: its path below the project; nil for standard input.
    ///   - overrides: what `journey set` recorded; `.none` reads them from the document's sidecar.
    public func inputs(project: ProjectInputs, relative: PathBytes?, document: MarkdownDocument, sha256: String? = nil,
                       overrides: JourneyOverrides?? = .none, flags: DocumentSettings.Flags = .init()) -> DocumentInputs {
        let recorded: JourneyOverrides?
        switch overrides {
        case .some(let given): recorded = given
        case .none: recorded = relative.flatMap { Self.recordedOverrides(project: project.root, relative: $0) }
        }
        let settings = DocumentSettings.resolve(
            flags: flags, frontMatter: document.frontMatter.tk, overrides: recorded, config: project.config,
            configured: project.loaded.configured, catalog: project.catalog)
        return DocumentInputs(project: project, relative: relative, document: document,
                              sha256: sha256 ?? SHA256Digest.hex(document.bytes), overrides: recorded, flags: flags,
                              settings: settings)
    }

    /// What `journey set` recorded in a document's sidecar, nil when it has none (or it cannot be read).
    public static func recordedOverrides(project: PathBytes, relative: PathBytes) -> JourneyOverrides? {
        guard FileSystem.lstatIfExists(ReviewSidecar.path(project: project, document: relative)) != nil,
              case .ok(let sidecar, _) = SidecarStore().read(project: project, document: relative) else { return nil }
        return sidecar.journey.overrides
    }

    /// The derivation: quick findings (the heuristics', then the project's Vale styles') and word
    /// count, a pure function of the inputs.
    public func derive(_ inputs: DocumentInputs) -> Derived {
        let engine = engine(for: inputs.settings.heuristics)
        var findings = engine.findings(in: inputs.document, project: inputs.project.words)
        if let vale = inputs.project.vale, let relative = inputs.relative {
            findings = Finding.merged(findings, vale.findings(bytes: inputs.document.bytes, relativePath: relative.display))
        }
        return Derived(findings: findings, words: inputs.document.wordCount)
    }

    /// The engine for `options` (kept: building one costs more than checking a document).
    public func engine(for options: HeuristicsOptions) -> HeuristicsEngine { engines.engine(for: options) }

    /// The derivation key of a document's bytes under a project's inputs.
    public static func key(sha256: String, project: String) -> String { sha256 + ":" + project }

    /// Why the bytes of a file are not a document the agent reads (over `watch.max_file_bytes`, not
    /// text), as the agent reports it; nil when they are one.
    public static func refusal(display: String, size: Int64, bytes: [UInt8]?, maxFileBytes: Int) -> String? {
        if size > Int64(maxFileBytes) {
            return Indexer.tooLargeMessage(PathBytes(display), size: size, limit: maxFileBytes)
        }
        if let bytes, let reason = TextSniffer.problem(bytes) { return TextSniffer.message(display, reason) }
        return nil
    }
}
