import ArgumentParser
import Foundation
import TKCore

/// `ask QUESTION --project P | --all`: retrieval, a cited answer, and no spoilers.
struct AskProjectOptions: ParsableArguments {
    @Option(name: .long, help: "Ask the whole project in this folder (retrieval over its passages).", completion: .directory)
    var project: String?
    @Flag(name: .long, help: "Ask every indexed project.")
    var all = false
    @Option(name: .long, help: "Only what comes at or before FILE[:LINE] in the project's reading order.")
    var until: String?
    @Option(name: .long, help: "Only what comes at or after FILE[:LINE] in the project's reading order.")
    var from: String?
    @Flag(name: .long, help: "Print the retrieved passages and send nothing.")
    var sources = false
    @Flag(name: .customLong("dry-run"), help: "Print the exact prompt and send nothing.")
    var dryRun = false
    @Option(name: .customLong("passages"), parsing: .unconditional, help: "How many passages to retrieve (default 8).")
    var passageLimit: Int = 8

    var isProjectQuestion: Bool { project != nil || all }

    func validate() throws {
        if project != nil, all { throw ValidationError("give --project P or --all, not both") }
        if !isProjectQuestion, until != nil || from != nil || sources || dryRun {
            throw ValidationError("--until, --from, --sources and --dry-run need --project P or --all")
        }
        if all, until != nil || from != nil {
            throw ValidationError("--until and --from need one project: give --project P")
        }
        if passageLimit < 1 || passageLimit > 50 { throw usageError("--passages must be between 1 and 50 (got \(passageLimit))") }
    }

    /// Splits `FILE[:LINE]`.
    static func parsePoint(_ s: String) -> (String, Int?) {
        if let colon = s.lastIndex(of: ":"), let n = Int(s[s.index(after: colon)...]), n >= 1 {
            return (String(s[..<colon]), n)
        }
        return (s, nil)
    }

    func resolvePoint(_ spec: String, flag: String, root: PathBytes, byPath: [PathBytes: Int64]) throws -> ReadingPoint {
        let (file, line) = Self.parsePoint(spec)
        var candidates: [PathBytes] = [PathBytes(file)]
        if let rel = FileSystem.absolute(file).relative(to: root) { candidates.insert(rel, at: 0) }
        for c in candidates { if let id = byPath[c] { return ReadingPoint(documentID: id, line: line) } }
        throw usageError("\(flag) \(spec): \(file) is not a document of \(root.display) (give its path relative to the project)")
    }

    func run(question: String, output: WritingOutputOptions, llm: LLMOptions) async throws {
        var clock = PhaseClock()
        // A project question makes a request (the question's embedding, the answer): libcurl is
        // loaded while the database and the configuration are read.
        async let _ = CurlTransport.prepare()
        let db = try openDatabase()
        clock.mark("database")
        let known = try db.projects()
        var chosen: [(id: Int64, root: PathBytes)] = []
        if let project {
            let abs = FileSystem.absolute(project)
            if let exact = known.first(where: { $0.root == abs }) ?? known.filter({ abs.isWithin($0.root) })
                .max(by: { $0.root.bytes.count < $1.root.bytes.count }) {
                chosen = [exact]
            } else {
                throw CLIError("\(project) is not an indexed project; run `tk-agent index \(project)` or `tk-agent watch add \(project)` first")
            }
        } else {
            chosen = known
            if chosen.isEmpty { throw CLIError("no project is indexed; run `tk-agent index PATH` first") }
        }
        let loaded = llm.loadConfiguration(project: chosen.count == 1 ? chosen[0].root : nil)
        let config = loaded.config
        clock.mark("configuration")
        // The embedding provider is looked for (Ollama: one request) while the database is checked.
        let environment = ProcessEnvironment.current
        let provider = Task { await EmbeddingClientFactory.make(configuration: config, environment: environment, forQuestions: true) }
        // Documents without passages (a large first index leaves them for later; the running agent
        // writes them after its scan) get them now.
        PassageBackfill.run(database: db, announce: PassageBackfill.announceOnStderr)
        clock.mark("passages check")
        var scope = RetrievalScope(projectIDs: chosen.map(\.id))
        if until != nil || from != nil, let one = chosen.first {
            let retriever = HybridRetriever(database: db)
            let (positions, byPath) = try retriever.readingPositions(projectID: one.id)
            scope.positions = positions
            if let until { scope.until = try resolvePoint(until, flag: "--until", root: one.root, byPath: byPath) }
            if let from { scope.from = try resolvePoint(from, flag: "--from", root: one.root, byPath: byPath) }
        }
        let outcome = try await AskRetrieval.retrieve(question, database: db, configuration: config, scope: scope,
                                                      limit: passageLimit, allowRemote: !sources, environment: environment,
                                                      provider: provider)
        clock.mark("retrieval", minus: outcome.embedMs)
        if let why = outcome.keywordOnlyReason { printError("note: keyword-only retrieval: \(why)") }
        if llm.verbose {
            printError(String(format: "retrieval: %.1f ms searching, %.1f ms waiting for the question's embedding",
                              outcome.retrieveMs, outcome.embedMs))
        }
        recordQueryEmbedding(outcome, db: db)
        clock.mark("usage")
        var passages = outcome.passages

        if sources {
            emit(question: question, answer: nil, passages: passages, filter: nil, usage: nil, output: output)
            clock.mark("output")
            if llm.verbose {
                printError("timings: " + clock.summary + String(format: " (provider lookup and vector check %.1f ms of "
                           + "retrieval; the embedding call, %.1f ms, left out)", outcome.providerMs, outcome.embedMs))
            }
            return
        }
        let user: String
        if dryRun {
            user = AskRetrieval.userPrompt(question: question, passages: passages)
            writeOut("--- system ---\n\(AskRetrieval.systemPrompt)\n--- user ---\n\(user)")
            return
        }
        if passages.isEmpty {
            throw CLIError("nothing in \(chosen.count == 1 ? chosen[0].root.display : "the projects") matches \"\(question)\"; nothing was sent")
        }
        let chat = try await llm.makeProvider(configuration: config)
        // A remote chat provider never sees private documents (`tk: {review: false}`, `review.exclude`).
        if !ReviewPolicy.isLocal(providerName: chat.name, config: config) {
            let before = passages.count
            let configurations = ConfigurationStore(paths: Paths.resolve())
            passages = passages.filter { !isPrivate($0.passage, configurations: configurations) }
            if passages.count < before {
                printError("note: \(before - passages.count) passage(s) from private documents were not sent to \(chat.name)")
            }
            if passages.isEmpty { throw CLIError("every passage found is in a private document; nothing was sent to \(chat.name)") }
        }
        user = AskRetrieval.userPrompt(question: question, passages: passages)
        let stream = !output.json && !output.ndjson && isatty(STDOUT_FILENO) != 0
        let filterBox = FilterBox(CitationFilter(count: passages.count))
        let request = LLMRequest(system: AskRetrieval.systemPrompt, messages: [LLMMessage(role: .user, content: user)],
                                 model: llm.model, maxOutputTokens: config.review.maxOutputTokens, stream: stream)
        let onText: (@Sendable (String) -> Void)? = stream ? { @Sendable piece in writeOut(filterBox.push(piece)) } : nil
        let response: LLMResponse
        do throws(LLMProviderError) {
            response = try await chat.complete(request, onText: onText)
        } catch { throw error.cli }
        var usage = WritingUsage()
        usage.add(response)
        llm.report(usage, configuration: config)
        let (answer, filter): (String, CitationFilter)
        if stream {
            writeOut(filterBox.finish())
            (answer, filter) = (CitationFilter.filter(response.text, count: passages.count).text, filterBox.value)
        } else {
            (answer, filter) = CitationFilter.filter(response.text, count: passages.count)
        }
        if filter.dropped > 0 {
            printError("note: \(filter.dropped) citation(s) pointed to no passage that was sent and were removed")
        }
        emit(question: question, answer: answer, passages: passages, filter: filter, usage: usage, output: output,
             streamed: stream)
    }

    func isPrivate(_ p: StoredPassage, configurations: ConfigurationStore) -> Bool {
        let cfg = configurations.load(project: p.project).config
        guard case .bytes(let bytes) = Self.read(p.project.appending(p.path)) else { return true }
        let doc = MarkdownDocument(bytes: bytes, fileName: p.path.lastComponent.display)
        return ReviewPolicy.exclusion(frontMatter: doc.frontMatter, relative: p.path, config: cfg) != nil
    }

    enum ReadResult { case bytes([UInt8]), missing }
    static func read(_ path: PathBytes) -> ReadResult {
        (try? FileSystem.read(path, limit: 64 << 20)).map { .bytes($0) } ?? .missing
    }

    func recordQueryEmbedding(_ o: RetrievalOutcome, db: AppDatabase) {
        guard let c = o.client, o.queryTokens > 0 else { return }
        try? UsageLedger(database: db).record(provider: c.provider, model: c.model, usage: LLMUsage(inputTokens: o.queryTokens),
                                              costUsd: Double(o.queryTokens) * c.usdPerMillionTokens / 1e6,
                                              kind: .embedding, local: !c.isRemote)
    }

    func emit(question: String, answer: String?, passages: [RetrievedPassage], filter: CitationFilter?,
              usage: WritingUsage?, output: WritingOutputOptions, streamed: Bool = false) {
        func source(_ i: Int) -> StoredPassage? { i >= 1 && i <= passages.count ? passages[i - 1].passage : nil }
        if output.json || output.ndjson {
            let sources: [JSONValue] = passages.enumerated().map { i, r in
                .object([
                    "n": .number(Double(i + 1)), "project": .string(r.passage.project.display),
                    "path": .string(r.passage.path.display), "start_line": .number(Double(r.passage.startLine)),
                    "end_line": .number(Double(r.passage.endLine)), "heading": .string(r.passage.heading),
                    "score": .number((r.score * 1e6).rounded() / 1e6), "text": .string(r.passage.text),
                ])
            }
            let citations: [JSONValue] = (filter?.citations ?? []).map { c in
                let p = c.valid ? source(c.n) : nil
                return .object([
                    "n": .number(Double(c.n)), "path": p.map { .string($0.path.display) } ?? .null,
                    "start_line": p.map { .number(Double($0.startLine)) } ?? .null, "valid": .bool(c.valid),
                ])
            }
            let value = JSONValue.object([
                "question": .string(question), "answer": answer.map(JSONValue.string) ?? .null,
                "sources": .array(sources), "citations": .array(citations),
                "dropped_citations": .number(Double(filter?.dropped ?? 0)),
                "usage": usage.map(usageJSON) ?? .null,
            ])
            writeOut(JSON.string(value, pretty: !output.ndjson) + "\n")
            return
        }
        let style = Style(on: output.color)
        if let answer {
            if !streamed { writeOut(answer) }
            if !answer.hasSuffix("\n") { writeOut("\n") }
            let cited = Set((filter?.citations ?? []).filter(\.valid).map(\.n))
            let shown = cited.isEmpty ? Array(1...max(1, passages.count)).filter { $0 <= passages.count } : cited.sorted()
            if !shown.isEmpty { writeOut("\n" + style.bold("Sources") + "\n") }
            for n in shown {
                guard let p = source(n) else { continue }
                let heading = p.heading.isEmpty ? "" : "  " + style.dim(p.heading)
                writeOut("[\(n)] \(p.path.display):\(p.startLine)-\(p.endLine)\(heading)\n")
            }
            return
        }
        if passages.isEmpty { printError("no passage matches \"\(question)\""); return }
        for (i, r) in passages.enumerated() {
            let p = r.passage
            let heading = p.heading.isEmpty ? "" : "  " + style.dim(p.heading)
            writeOut(style.bold("[\(i + 1)] \(p.path.display):\(p.startLine)-\(p.endLine)") + heading
                     + style.dim(String(format: "  %.4f", r.score)) + "\n")
            let lines = p.text.split(separator: "\n", omittingEmptySubsequences: false)
            for l in lines.prefix(6) { writeOut("    " + l + "\n") }
            if lines.count > 6 { writeOut(style.dim("    …") + "\n") }
        }
    }
}

/// Milliseconds between the marks of a command's phases (`--verbose`), from the process's start.
struct PhaseClock {
    var last = DispatchTime.now().uptimeNanoseconds
    var phases: [(String, Double)] = []

    init() {
        // The first phase runs from the process's start (its start time in `/proc/self/stat`, in
        // clock ticks: ±10 ms), through both executables' loading, to the command's first line.
        if let start = Self.processStartNanoseconds() {
            phases.append(("start", Double(last &- min(last, start)) / 1e6))
        }
    }

    /// Ends a phase; `minus` is time within it spent waiting on something else (the embedding call).
    mutating func mark(_ name: String, minus: Double = 0) {
        let now = DispatchTime.now().uptimeNanoseconds
        phases.append((name, max(0, Double(now - last) / 1e6 - minus)))
        last = now
    }

    var summary: String {
        let total = phases.reduce(0) { $0 + $1.1 }
        return phases.map { "\($0.0) " + String(format: "%.1f ms", $0.1) }.joined(separator: ", ")
            + String(format: "; %.1f ms in all", total)
    }

    /// When this process started, on the clock of `DispatchTime` (CLOCK_MONOTONIC, which counts
    /// from boot like the start time field of `/proc/self/stat`, in clock ticks).
    static func processStartNanoseconds() -> UInt64? {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // Field 22 of the whole line is the 20th after the command name.
        guard fields.count > 19, let ticks = UInt64(fields[19]) else { return nil }
        let hz = UInt64(max(1, sysconf(Int32(_SC_CLK_TCK))))
        return ticks * (1_000_000_000 / hz)
    }
}

/// The citation filter of a streamed answer, fed from the provider's callback.
///
/// `@unchecked Sendable` is safe because every access goes through `lock`.
final class FilterBox: @unchecked Sendable {
    private var filter: CitationFilter
    private let lock = NSLock()
    init(_ f: CitationFilter) { filter = f }
    func push(_ s: String) -> String { lock.lock(); defer { lock.unlock() }; return filter.push(s) }
    func finish() -> String { lock.lock(); defer { lock.unlock() }; return filter.finish() }
    var value: CitationFilter { lock.lock(); defer { lock.unlock() }; return filter }
}
