import Foundation

/// Resolves the heuristics options for each checked file: the nearest project's `.tk/config.json`
/// over the user config, then the story type (flag › front matter › config).
public struct CheckSession {
    public let paths: Paths
    public let environment: [String: String]
    /// `--story-type`, already validated.
    public let storyTypeOverride: String?
    private var cache: [PathBytes: LoadedConfiguration] = [:]
    private var projects: [PathBytes: ProjectInputs] = [:]
    private var reported: Set<String> = []
    /// The one resolver of a document's inputs and its derivation, as the agent's.
    public let resolver: DocumentResolver
    /// The watched projects of the user config (a document below one belongs to it).
    private let knownRoots: [PathBytes]

    public init(paths: Paths, environment: [String: String] = ProcessEnvironment.current,
                storyTypeOverride: String? = nil) {
        self.paths = paths; self.environment = environment; self.storyTypeOverride = storyTypeOverride
        self.resolver = DocumentResolver(paths: paths, environment: environment)
        self.knownRoots = ProjectRegistry.configured(resolver.configuration(project: nil).config)
    }

    /// The project of a document: `DocumentResolver.projectRoot`'s one rule (the watched projects
    /// of the user config, else the nearest folder with a `.tk/` folder).
    public func project(forFile file: PathBytes) -> PathBytes {
        DocumentResolver.projectRoot(forFile: file, known: knownRoots)
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
        let loaded = resolver.configuration(project: project)
        cache[project] = loaded
        return loaded
    }

    /// A project's inputs (configuration, dictionary, names), read once per session.
    public mutating func projectInputs(_ project: PathBytes) -> ProjectInputs {
        if let p = projects[project] { return p }
        // `check` applies the Vale styles of the working folder itself (as Vale does), not the project's.
        let p = resolver.project(project, loaded: configuration(project: project), vale: .some(nil))
        projects[project] = p
        return p
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
        let limit = max(0, loaded.config.watch.maxFileBytes)
        for (path, stat) in walk.documents {
            if let refusal = DocumentResolver.refusal(display: path.display, size: stat.size, bytes: nil, maxFileBytes: limit) {
                out.skipped.append(refusal)
            } else {
                out.files.append(path)
            }
        }
        return out
    }

    /// The inputs of one document, plus configuration problems not reported before (one line each).
    ///
    /// They are `DocumentResolver.inputs`, as the agent's sidecar gets them: `--story-type` › front
    /// matter › `journey set` (read from the document's sidecar, when it has one) › config › the
    /// story type's limits, with the project's words and the resolved advisors' quick tips.
    /// - Parameters:
    ///   - project: the project root whose `.tk/config.json` applies.
    ///   - relative: the document's path below `project` (nil for standard input).
    ///   - document: the parsed document.
    public mutating func inputs(project: PathBytes, relative: PathBytes? = nil,
                                document: MarkdownDocument) -> (DocumentInputs, [String]) {
        let inputs = projectInputs(project)
        var problems: [String] = []
        for p in inputs.loaded.problems where reported.insert(p).inserted { problems.append(p) }
        let doc = resolver.inputs(project: inputs, relative: relative, document: document,
                                  flags: .init(storyType: storyTypeOverride))
        return (doc, problems)
    }
}

/// The result of `tk-agent check`: schema `tk.check/1`.
public struct CheckReport: Encodable, Sendable {
    public struct File: Encodable, Sendable {
        public var path: String
        public var findings: [Finding]
        /// Why the file was not checked, as the agent reports it (not text, over
        /// `watch.max_file_bytes`); absent for a checked file.
        public var skipped: String?
        public init(path: String, findings: [Finding], skipped: String? = nil) {
            self.path = path; self.findings = findings; self.skipped = skipped
        }
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
        for f in files where !f.findings.isEmpty || f.skipped != nil {
            out += paint(f.path, "1") + "\n"
            if let why = f.skipped { out += "  " + paint(Self.oneLine(why), "2") + "\n\n"; continue }
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
        let checked = files.filter { $0.skipped == nil }.count
        let fileWord = checked == 1 ? "file" : "files"
        if n == 0 {
            out += "No findings in \(checked) \(fileWord).\n"
        } else {
            let parts = [Severity.error, .warning, .suggestion, .info].compactMap { s -> String? in
                guard let c = counts[s], c > 0 else { return nil }
                return "\(c) \(s.rawValue)\(c == 1 ? "" : "s")"
            }
            out += "\(n) finding\(n == 1 ? "" : "s") in \(checked) \(fileWord) (\(parts.joined(separator: ", "))).\n"
        }
        return out
    }

    static func oneLine(_ s: String) -> String {
        s.contains("\n") ? s.split(whereSeparator: \.isNewline).joined(separator: " ") : s
    }
}
