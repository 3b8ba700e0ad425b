import ArgumentParser
import Foundation
import Synchronization
import TKCore

extension TKAgent {
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Run the quick prose heuristics on files, folders or standard input.",
            discussion: """
            Folders are searched for .md and .markdown documents with the agent's rules: hidden files and \
            folders, node_modules, editor temporary files, the project's watch.ignore globs and files over \
            watch.max_file_bytes are skipped, and symbolic links are not followed. Use - for standard input. \
            The nearest project's .tk/config.json "heuristics" settings apply, with the story type and the \
            quick tips of the advisors the document resolves to (as in the agent's sidecar). Silence findings in a document with <!-- tk-ignore --> … <!-- tk-end-ignore -->, \
            <!-- tk-ignore-next-line --> or <!-- tk-ignore passive,adverb --> (next paragraph).
            Exit status: 0 ok, 1 a file could not be read, 2 with --strict when anything was found.
            """
        )

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case text, json, line, rdjsonl, sarif
        }

        // Every option below is also set by `quickParse`: a new one must be added there too (a
        // property it leaves unset traps when `run` reads it, which every check test would show).
        @Argument(help: "Files, folders, or - for standard input.", completion: .file(extensions: ["md", "markdown"]))
        var paths: [String] = []

        @Option(name: .long, help: "Output format: text, json, line, rdjsonl (reviewdog) or sarif (SARIF 2.1.0).")
        var format: Format?

        @Flag(name: .long, help: "Same as --format json.")
        var json = false

        @Flag(name: .long, help: "Exit with status 2 when anything is found.")
        var strict = false

        @Option(name: .customLong("story-type"), help: "Story type for stricter limits (e.g. email_memo).")
        var storyType: String?

        @Flag(name: .long, help: ArgumentHelp("Print in-process parse and heuristics timings to standard error.",
                                              visibility: .hidden))
        var timing = false

        /// The command line's plain forms, read without ArgumentParser: its first parse in a process
        /// reflects over every option's type and looks up their conformances in the Swift runtime, a
        /// few milliseconds of every `check`, which editors and CI run once per save or commit.
        /// Anything else (help, completions, an unknown or repeated option, a value that starts
        /// with `-`, the word `help`) gives nil and takes ArgumentParser's parse, with its errors.
        /// `test_check_quick_parse.py` compares both on the same commands.
        static func quickParse(_ arguments: [String]) -> Check? {
            var paths: [String] = []
            var format: Format?, json = false, strict = false, storyType: String?, timing = false
            var args = QuickArguments(arguments)
            var positionalOnly = false
            while let a = args.next() {
                if positionalOnly || a == "-" || !a.hasPrefix("-") {
                    if a == "help" { return nil }
                    paths.append(a)
                    continue
                }
                switch a {
                case "--": positionalOnly = true
                case "--json": if json { return nil }; json = true
                case "--strict": if strict { return nil }; strict = true
                case "--timing": if timing { return nil }; timing = true
                default:
                    if let v = args.value(a, "--format") {
                        guard format == nil, let v, let f = Format(rawValue: v) else { return nil }
                        format = f
                    } else if let v = args.value(a, "--story-type") {
                        guard storyType == nil, let v, !v.isEmpty else { return nil }
                        storyType = v
                    } else {
                        return nil
                    }
                }
            }
            var c = Check()
            c.paths = paths; c.format = format; c.json = json; c.strict = strict; c.storyType = storyType; c.timing = timing
            // ArgumentParser validates as it parses; a command it would reject takes its parse.
            guard (try? c.validate()) != nil else { return nil }
            return c
        }

        func validate() throws {
            if let t = storyType, !HeuristicsOptions.storyTypes.contains(t) {
                throw ValidationError("Unknown story type '\(t)'. Use one of: \(HeuristicsOptions.storyTypes.joined(separator: ", ")).")
            }
            if json, let format, format != .json {
                throw ValidationError("--json and --format \(format.rawValue) disagree; give one of them.")
            }
        }

        func run() async throws {
            var targets = paths
            if targets.isEmpty {
                if isatty(STDIN_FILENO) != 0 {
                    throw ValidationError("Give a FILE, a folder, or - for standard input (e.g. tk-agent check notes/).")
                }
                targets = ["-"]
            }
            let cwd = FileManager.default.currentDirectoryPath
            // The team's Vale styles: the .vale.ini Vale would find from the working folder, read
            // and compiled while the rest gets ready. Each document is walked as Vale walks it
            // meanwhile (the walk needs the configuration, not the rules), and its rules are shared
            // among the cores once they are loaded.
            let vale = Self.valeStyles(from: cwd)
            // The first file named starts its walk now, before the session is set up; `check` takes
            // the walk over when it reads the same bytes (else it walks what it read).
            var earlyWalk: (display: String, bytes: [UInt8], walk: ValeDocumentWalk)?
            if let cfg = vale?.configuration, let first = paths.first, first != "-" {
                let abs = FileSystem.absolute(first, cwd: cwd)
                if let st = FileSystem.lstatIfExists(abs), st.kind == .regular, st.size <= Self.earlyWalkBytes,
                   let bytes = try? FileSystem.read(abs, limit: Int(Self.earlyWalkBytes)) {
                    earlyWalk = (first, bytes, ValeDocumentWalk(bytes: bytes, relativePath: Self.valePath(first, root: cwd), configuration: cfg))
                }
            }
            HeuristicsEngine.warmUp()
            let fmt: Format = json ? .json : (format ?? .text)
            var session = CheckSession(paths: Paths.resolve(), storyTypeOverride: storyType)
            var report = CheckReport()
            var sources: [CheckFormats.Source] = []
            var failed = false

            let clock = ContinuousClock()
            var parseTime = Duration.zero
            var checkTime = Duration.zero
            var totalWords = 0
            var totalBytes = 0
            var spellingProblems = Set<String>()

            func check(bytes: [UInt8], display: String, project: PathBytes, relative: PathBytes?, fileName: String) {
                // The team's Vale styles run on the other cores meanwhile: this document's parse and
                // heuristics wait neither for the walk nor for the styles to load.
                var valeRun = vale.map { vale in
                    let walk: ValeDocumentWalk
                    if let early = earlyWalk, early.display == display, early.bytes == bytes {
                        walk = early.walk
                    } else {
                        walk = ValeDocumentWalk(bytes: bytes, relativePath: Self.valePath(display, root: cwd), configuration: vale.configuration)
                    }
                    earlyWalk = nil
                    // Helper threads take shares of the rules as soon as the styles are loaded; this
                    // thread takes the last share after the heuristics (`findings()` below). Measured
                    // on two cores, that ends as soon as with a second helper competing with the
                    // heuristics, the walk and the styles' load from the start, on less CPU
                    // (bench/RESULTS.md).
                    let styles = vale.engine
                    return ValeLintRun(engine: { styles.value }, bytes: bytes, walk: walk, helpers: Self.valeThreads - 1,
                                       shares: ValeLintRun.shares(threads: Self.valeThreads))
                }
                let t0 = clock.now
                let doc = MarkdownDocument(bytes: bytes, fileName: fileName)
                let t1 = clock.now
                // The agent's derivation of the same inputs: what `check` prints is what the sidecar says.
                let (inputs, problems) = session.inputs(project: project, relative: relative, document: doc)
                for p in problems { printError(p) }
                if let fm = doc.frontMatterProblem { printError("\(display): \(fm)") }
                let engine = session.resolver.engine(for: inputs.settings.heuristics)
                if let p = engine.spellingProblem(for: doc), spellingProblems.insert(p).inserted { printError(p) }
                if timing { engine.loadSpeller(for: doc) }   // the in-process timing leaves the dictionary load out
                let t2 = clock.now
                var findings = session.resolver.derive(inputs).findings
                if let run = valeRun { findings = Finding.merged(findings, run.findings()) }
                Disposal.later(&valeRun)
                checkTime += clock.now - t2
                parseTime += t1 - t0
                totalWords += doc.wordCount
                totalBytes += bytes.count
                report.files.append(CheckReport.File(path: display, findings: findings))
                if fmt == .rdjsonl || fmt == .sarif { sources.append(CheckFormats.Source(path: display, bytes: bytes, findings: findings)) }
            }

            // Spelling: the dictionary loads on another thread while the documents are read and parsed.
            if let first = targets.first(where: { $0 != "-" }) {
                session.preloadSpelling(for: FileSystem.absolute(first, cwd: cwd))
            }
            var stdinDone = false
            for target in targets {
                if target == "-" {
                    if stdinDone { continue }
                    stdinDone = true
                    let data = FileHandle.standardInput.readDataToEndOfFile()
                    let project = session.project(forFile: FileSystem.absolute(cwd).appending("-"))
                    check(bytes: Array(data), display: "-", project: project, relative: nil, fileName: "stdin.md")
                    continue
                }
                let abs = FileSystem.absolute(target, cwd: cwd)
                let st: FileStat
                do { st = try FileSystem.lstat(abs) } catch {
                    printError("\(target): \(error.isNotFound ? "no such file or folder" : String(cString: strerror(error.code)))")
                    failed = true
                    continue
                }
                var readPath = abs
                var kind = st.kind
                if kind == .symlink, let real = Self.realPath(abs), let rst = FileSystem.lstatIfExists(real) {
                    readPath = real
                    kind = rst.kind
                }
                switch kind {
                case .directory:
                    let found = session.documents(in: readPath)
                    for p in found.problems { printError(p); failed = true }
                    for p in found.skipped { printError(p) }
                    for file in found.files {
                        let rel = file.relative(to: readPath)?.display ?? file.display
                        let display = target.hasSuffix("/") ? target + rel : target + "/" + rel
                        checkFile(file, display: display)
                    }
                case .regular:
                    checkFile(readPath, display: target)
                default:
                    printError("\(target): not a regular file or folder; skipped")
                    failed = true
                }
            }

            func checkFile(_ path: PathBytes, display: String) {
                do {
                    // What is a document is the agent's rule: over `watch.max_file_bytes` or not text,
                    // the file is reported as the agent reports it, not checked.
                    let project = session.project(forFile: path)
                    let limit = max(0, session.configuration(project: project).config.watch.maxFileBytes)
                    let size = FileSystem.lstatIfExists(path)?.size ?? 0
                    var bytes: [UInt8]?
                    if size <= Int64(limit) { bytes = try FileSystem.read(path, limit: limit + 1) }
                    if let refusal = DocumentResolver.refusal(display: display, size: max(size, Int64(bytes?.count ?? 0)),
                                                              bytes: bytes, maxFileBytes: limit) {
                        printError(refusal)
                        report.files.append(CheckReport.File(path: display, findings: [], skipped: refusal))
                        return
                    }
                    guard let bytes else { return }
                    check(bytes: bytes, display: display, project: project, relative: path.relative(to: project),
                          fileName: path.lastComponent.display)
                } catch {
                    printError("\(display): cannot read (\(String(cString: strerror(error.code))))")
                    failed = true
                }
            }

            let engine = vale?.engine.value
            for p in engine?.problems ?? [] { printError(p) }
            for p in engine?.runtimeProblems ?? [] { printError(p) }

            if timing {
                func secs(_ d: Duration) -> Double {
                    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
                }
                let p = secs(parseTime), c = secs(checkTime)
                printError("timing: \(totalWords) words, \(totalBytes) bytes; parse \(String(format: "%.2f", p * 1000)) ms"
                    + " (\(String(format: "%.0f", Double(totalBytes) / max(p, 1e-9) / 1e6)) MB/s); heuristics"
                    + " \(String(format: "%.2f", c * 1000)) ms (\(String(format: "%.2f", Double(totalWords) / max(c, 1e-9) / 1e6))M words/s)")
            }
            switch fmt {
            case .json:
                FileHandle.standardOutput.write(Data(report.jsonBytes()))
            case .line:
                FileHandle.standardOutput.write(Data(report.lines().utf8))
            case .rdjsonl:
                FileHandle.standardOutput.write(Data(CheckFormats.rdjsonl(sources).utf8))
            case .sarif:
                FileHandle.standardOutput.write(Data(try JSON.encode(CheckFormats.sarif(sources, version: TKVersion.string))))
            case .text:
                // Nothing checked because every target failed: the error lines say it all.
                if !(failed && report.files.isEmpty) {
                    FileHandle.standardOutput.write(Data(report.text(color: stdoutIsColorTerminal).utf8))
                }
            }
            // Ends the process here: what it made (the report, the documents, the styles) is the
            // kernel's to free at once, not freed piece by piece while the writer waits.
            Foundation.exit(failed ? 1 : strict && report.findingCount > 0 ? 2 : 0)
        }

        typealias TeamStyles = (configuration: ValeConfiguration, engine: Background<ValeEngine>)

        /// The team's Vale styles for the working folder `cwd`: the `.vale.ini` Vale would find from
        /// there, its rules loading on other threads. Taken from `prefetchValeStyles` when it started them.
        static func valeStyles(from cwd: String) -> TeamStyles? {
            if let early = prefetched.withLock({ p -> (cwd: String, styles: Background<TeamStyles?>)? in defer { p = nil }; return p }),
               early.cwd == cwd {
                return early.styles.value
            }
            return loadValeStyles(from: cwd)
        }

        /// Finds and reads the `.vale.ini` for `cwd`, and starts loading its styles on other threads.
        static func loadValeStyles(from cwd: String) -> TeamStyles? {
            ValeConfiguration.find(from: cwd).flatMap { try? ValeConfiguration.load(path: $0) }
                .map { cfg in (configuration: cfg, engine: Background { ValeEngine(configuration: cfg, root: cwd) }) }
        }

        /// Starts loading the Vale styles of the working folder before the arguments are parsed (`main`
        /// calls it when the command is `check`): the pack's load is the longest piece of a check with
        /// styles, and the second core is idle while the arguments and the configuration are read.
        /// Finding and reading the `.vale.ini` happen on that thread too (with the process's first
        /// regular expressions, its globs, they took a couple of milliseconds on the main thread).
        static func prefetchValeStyles() {
            let cwd = FileManager.default.currentDirectoryPath
            let styles = Background { loadValeStyles(from: cwd) }
            prefetched.withLock { $0 = (cwd, styles) }
        }

        private static let prefetched = Mutex<(cwd: String, styles: Background<TeamStyles?>)?>(nil)

        /// The largest first file walked for Vale before the session is set up (a larger one is
        /// walked when it is checked, as every other file is).
        static let earlyWalkBytes: Int64 = 4 << 20

        /// Threads that lint a document's Vale rules: the machine's cores, at most four (each share
        /// replays the whole walk and makes each block's text again, so more would mostly repeat that);
        /// one of them is the main thread, after the heuristics.
        static let valeThreads = min(max(1, ProcessInfo.processInfo.activeProcessorCount), 4)

        /// The path Vale's section globs see: as given, relative to the working folder.
        static func valePath(_ display: String, root: String) -> String {
            if display == "-" { return "stdin.md" }
            var p = display
            while p.hasPrefix("./") { p.removeFirst(2) }
            return p.hasPrefix("/") ? ValeEngine.relativePath(p, root: root) : p
        }

        static func realPath(_ p: PathBytes) -> PathBytes? {
            p.withCString { c in
                guard let r = realpath(c, nil) else { return nil }
                defer { free(r) }
                return PathBytes(String(cString: r))
            }
        }
    }
}
