import Foundation

/// Resolves the heuristics options for each checked file: the nearest project's `.tk/config.json`
/// over the user config, then the story type (flag › front matter › config).
public struct CheckSession {
    public let paths: Paths
    public let environment: [String: String]
    /// `--story-type`, already validated.
    public let storyTypeOverride: String?
    private var cache: [PathBytes: LoadedConfiguration] = [:]
    private var reported: Set<String> = []
    private var loadedCatalog: AdvisorCatalog?
    /// The engine of the previous document, reused while the options stay the same (building one
    /// costs more than checking a document).
    private var lastEngine: HeuristicsEngine?

    public init(paths: Paths, environment: [String: String] = ProcessInfo.processInfo.environment,
                storyTypeOverride: String? = nil) {
        self.paths = paths; self.environment = environment; self.storyTypeOverride = storyTypeOverride
    }

    /// The nearest ancestor folder of `file` (absolute) that contains a `.tk` folder, else the file's folder.
    public static func projectRoot(forFile file: PathBytes) -> PathBytes {
        projectRoot(startingAt: file.parent.isEmpty ? PathBytes("/") : file.parent)
    }

    /// The nearest folder from `dir` upwards containing a `.tk` folder, else `dir`.
    public static func projectRoot(startingAt dir: PathBytes) -> PathBytes {
        var cur = dir
        while true {
            if FileSystem.lstatIfExists(cur.appending(".tk"))?.kind == .directory { return cur }
            let up = cur.parent
            if up.isEmpty || up == cur { return dir }
            cur = up
        }
    }

    /// The effective configuration of a project (its `.tk/config.json` over the user config), cached.
    public mutating func configuration(project: PathBytes) -> LoadedConfiguration {
        if let c = cache[project] { return c }
        let loaded = ConfigurationLoader.load(paths: paths, project: project, environment: environment)
        cache[project] = loaded
        return loaded
    }

    /// What walking a folder found.
    public struct FolderDocuments: Sendable {
        /// Documents to check, sorted by path bytes.
        public var files: [PathBytes] = []
        /// Documents left out on purpose (over `watch.max_file_bytes`), one line each.
        public var skipped: [String] = []
        /// Folders that could not be read, one line each.
        public var problems: [String] = []
    }

    /// The documents below `directory`, found with the watcher's rules: `DirectoryWalker` and the
    /// `PathFilter` of the folder's project (hidden names, `node_modules`, editor temporary files,
    /// `watch.ignore`), symbolic links not followed, files over `watch.max_file_bytes` left out.
    ///
    /// The ignore globs are relative to the nearest project root (a folder with `.tk/`). A folder
    /// the user names that those rules would hide (e.g. `node_modules/pkg`) is walked as its own root.
    /// - Parameter directory: an absolute folder (a symbolic link already resolved).
    public mutating func documents(in directory: PathBytes) -> FolderDocuments {
        let project = Self.projectRoot(startingAt: directory)
        let loaded = configuration(project: project)
        let filter = PathFilter(ignore: loaded.config.watch.ignore)
        var root = project
        if let relative = directory.relative(to: project), !filter.shouldDescend(relative) { root = directory }
        if !directory.isWithin(project) { root = directory }
        let walk = DirectoryWalker.walk(root: root, directory: directory, filter: filter)
        var out = FolderDocuments()
        out.problems = walk.problems
        let limit = Int64(max(0, loaded.config.watch.maxFileBytes))
        for (path, stat) in walk.documents {
            if stat.size > limit {
                out.skipped.append("\(path.display): \(stat.size) bytes is over watch.max_file_bytes (\(limit)); skipped")
            } else {
                out.files.append(path)
            }
        }
        return out
    }

    /// The options for one document, plus configuration problems not reported before (one line each).
    ///
    /// They are `DocumentSettings.resolve`'s, as the agent's sidecar gets them: `--story-type` ›
    /// front matter › `journey set` (read from the document's sidecar, when it has one) › config,
    /// with the resolved advisors' quick tips.
    /// - Parameters:
    ///   - project: the project root whose `.tk/config.json` applies.
    ///   - relative: the document's path below `project` (nil for standard input).
    ///   - document: the parsed document (its front matter may name a story type).
    public mutating func options(project: PathBytes, relative: PathBytes? = nil,
                                 document: MarkdownDocument) -> (HeuristicsOptions, [String]) {
        let loaded = configuration(project: project)
        var problems: [String] = []
        for p in loaded.problems where reported.insert(p).inserted { problems.append(p) }
        var overrides: JourneyOverrides?
        if let relative, FileSystem.lstatIfExists(ReviewSidecar.path(project: project, document: relative)) != nil,
           case .ok(let sidecar, _) = SidecarStore().read(project: project, document: relative) {
            overrides = sidecar.journey.overrides
        }
        let catalog = loadedCatalog ?? AdvisorCatalog.load(paths: paths)
        loadedCatalog = catalog
        let settings = DocumentSettings.resolve(
            flags: .init(storyType: storyTypeOverride), frontMatter: document.frontMatter.tk, overrides: overrides,
            config: loaded.config, catalog: catalog)
        return (settings.heuristics, problems)
    }

    /// The heuristics engine for `options` (the previous one when they did not change).
    public mutating func engine(for options: HeuristicsOptions) -> HeuristicsEngine {
        if let e = lastEngine, e.options == options { return e }
        let e = HeuristicsEngine(options: options)
        lastEngine = e
        return e
    }
}

/// The result of `tk-agent check`: schema `tk.check/1`.
public struct CheckReport: Encodable, Sendable {
    public struct File: Encodable, Sendable {
        public var path: String
        public var findings: [Finding]
        public init(path: String, findings: [Finding]) { self.path = path; self.findings = findings }
    }

    public var schema = "tk.check/1"
    public var files: [File] = []

    public init(files: [File] = []) { self.files = files }

    public var findingCount: Int { files.reduce(0) { $0 + $1.findings.count } }

    /// `path:line:column: severity: message [rule]`, one finding a line.
    public func lines() -> String {
        var out = ""
        for f in files {
            for x in f.findings {
                out += "\(f.path):\(x.line):\(x.column): \(x.severity.rawValue): \(Self.oneLine(x.message)) [\(x.rule)]\n"
            }
        }
        return out
    }

    /// Human-readable text grouped per file, coloured with ANSI escapes when `color` is true.
    public func text(color: Bool) -> String {
        func paint(_ s: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(s)\u{1B}[0m" : s }
        var out = ""
        var counts: [Severity: Int] = [:]
        for f in files where !f.findings.isEmpty {
            out += paint(f.path, "1") + "\n"
            let width = f.findings.map { "\($0.line):\($0.column)".count }.max() ?? 0
            for x in f.findings {
                counts[x.severity, default: 0] += 1
                let pos = "\(x.line):\(x.column)"
                let pad = String(repeating: " ", count: max(0, width - pos.count))
                let sev: String
                switch x.severity {
                case .error: sev = paint("error     ", "31")
                case .warning: sev = paint("warning   ", "33")
                case .suggestion: sev = paint("suggestion", "36")
                case .info: sev = paint("info      ", "2")
                }
                out += "  " + paint(pos, "2") + pad + "  " + sev + "  " + Self.oneLine(x.message) + "  " + paint(x.rule, "2") + "\n"
            }
            out += "\n"
        }
        let n = findingCount
        let fileWord = files.count == 1 ? "file" : "files"
        if n == 0 {
            out += "No findings in \(files.count) \(fileWord).\n"
        } else {
            let parts = [Severity.error, .warning, .suggestion, .info].compactMap { s -> String? in
                guard let c = counts[s], c > 0 else { return nil }
                return "\(c) \(s.rawValue)\(c == 1 ? "" : "s")"
            }
            out += "\(n) finding\(n == 1 ? "" : "s") in \(files.count) \(fileWord) (\(parts.joined(separator: ", "))).\n"
        }
        return out
    }

    static func oneLine(_ s: String) -> String {
        s.contains("\n") ? s.split(whereSeparator: \.isNewline).joined(separator: " ") : s
    }
}
