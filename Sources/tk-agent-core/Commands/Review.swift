import ArgumentParser
import Foundation
import Logging
import TKCore

extension TKAgent {
    struct Review: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "review",
            abstract: "Queue (or run) an LLM review round for a document.",
            discussion: """
                The running agent picks the round up at once (it runs when the document has been quiet for \
                review.quiet_seconds, or straight away with --now). Without an agent, --now or --wait run the \
                round in this process.
                """
        )
        @Argument(help: "The markdown document to review.", completion: .file(extensions: ["md", "markdown"]))
        var file: String
        @Option(name: .long, help: "Advisors for this round, comma-separated role ids (default: the document's).")
        var advisors: String?
        @Flag(name: .long, help: "Start without waiting for the document to be quiet.") var now = false
        @Flag(name: .long, help: "Wait for the round to end and print its outcome (exit 1 when it failed).") var wait = false
        @Flag(name: .long, help: "Print the exact prompt (system and user), the estimated input tokens and cost, and send nothing.") var dryRun = false
        @Option(name: .long, help: "changed: only the paragraphs changed since the last round (with context); full: the whole document (default for rounds you ask for).")
        var scope: String?
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if let scope, ChangedScope.Scope(rawValue: scope) == nil { throw ValidationError("--scope is changed or full") }
        }

        func run() async throws {
            let paths = Paths.resolve()
            let environment = ProcessEnvironment.current
            let (project, rel) = try locate(paths: paths)
            let catalog = AdvisorCatalog.load(paths: paths)
            let advisorList = try parseAdvisors(catalog: catalog)
            var logger = Logger(label: "tk-agent")
            logger.logLevel = .error
            if dryRun {
                try await printDryRun(project: project, rel: rel, advisors: advisorList, paths: paths, environment: environment,
                                      catalog: catalog, logger: logger)
                return
            }
            let db = try openDatabase()
            let env = ReviewEnvironment.live(paths: paths, environment: environment, database: db, logger: logger)
            let executor = RoundExecutor(env: env)
            let rec: ReviewRoundRecord
            do {
                rec = try executor.submit(project: project, document: rel, manual: true, skipQuiet: now, advisors: advisorList)
            } catch {
                throw CLIError("cannot queue the review of \(rel.display): \(error)")
            }
            if let scope { try? HistoryService(paths: paths, database: db).setRoundScope(rec.id, scope) }
            let agentRuns = AgentLock.signal(paths: paths, SIGUSR1)
            if !wait && (agentRuns || !now) {
                let when = now ? "now" : "once the document has been quiet for a while"
                let who = agentRuns ? "the agent runs it \(when)" : "no agent is running: it runs when `tk-agent run` starts (or use --now)"
                if output.json {
                    print(JSON.string(["round": rec.id, "status": rec.status.rawValue]))
                } else {
                    print("queued review round \(rec.id) for \(rel.display); \(who)")
                }
                return
            }
            let final = agentRuns
                ? try await waitForAgent(executor: executor, id: rec.id)
                : try await runHere(executor: executor, id: rec.id, project: project, rel: rel)
            try report(final, executor: executor)
        }

        /// The project and relative path of the file.
        func locate(paths: Paths) throws -> (PathBytes, PathBytes) {
            let abs = FileSystem.absolute(file)
            guard let st = FileSystem.lstatIfExists(abs) else { throw CLIError("\(file): no such file") }
            guard st.kind == .regular else { throw CLIError("\(file): not a regular file; give a markdown document") }
            guard abs.hasSuffix(".md") || abs.hasSuffix(".markdown") else {
                throw CLIError("\(file): not a markdown document (.md or .markdown)")
            }
            var candidates = ProjectRegistry.configured(ConfigurationStore(paths: paths).user().config)
            if let db = try? AppDatabase.open(paths: paths), let known = try? db.projects() {
                candidates += known.map(\.root)
            }
            let project = DocumentResolver.projectRoot(forFile: abs, known: candidates)
            guard let rel = abs.relative(to: project), !rel.isEmpty else {
                throw CLIError("\(file): cannot tell which project it belongs to")
            }
            return (project, rel)
        }

        func parseAdvisors(catalog: AdvisorCatalog) throws -> [String]? {
            guard let advisors else { return nil }
            let ids = advisors.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            if ids.isEmpty { throw ValidationError("--advisors needs at least one role id (see `tk-agent roles list`).") }
            for id in ids where catalog.role(id) == nil {
                throw ValidationError("unknown advisor \"\(id)\": see `tk-agent roles list` for the role ids.")
            }
            return ids
        }

        func printDryRun(project: PathBytes, rel: PathBytes, advisors: [String]?, paths: Paths, environment: [String: String],
                         catalog: AdvisorCatalog, logger: Logger) async throws {
            let config = ConfigurationStore(paths: paths, environment: environment).load(project: project).config
            let runner = ReviewRunner(catalog: catalog, sidecars: .shared(paths: paths), logger: logger)
            let full: ReviewRunner.Prepared
            do { full = try runner.prepare(project: project, document: rel, advisorsOverride: advisors, config: config) } catch {
                throw CLIError(error.message)
            }
            if let why = full.exclusion { printError("note: \(rel.display) is \(why)") }
            let (prepared, estimate) = try await ReviewEstimate.make(full, project: project, rel: rel, scope: scope, paths: paths,
                                                                     config: config, environment: environment, logger: logger)
            if output.json {
                var o: [String: JSONValue] = [
                    "document": .string(rel.display), "project": .string(project.display),
                    "advisors": .array(prepared.advisorIds.map { .string($0) }),
                    "system": .string(prepared.prompt.system), "user": .string(prepared.prompt.user),
                    "excluded": prepared.exclusion.map { .string($0) } ?? .null,
                ]
                o["schema"] = prepared.prompt.schema ?? .null
                o["scope"] = .string(prepared.focus == nil ? "full" : "changed")
                o["estimated_input_tokens"] = .number(Double(estimate.inputTokens))
                o["estimated_cost_usd"] = estimate.costUsd.map { .number($0) } ?? .null
                print(JSON.string(JSONValue.object(o)))
            } else {
                print("===== system =====")
                print(prepared.prompt.system, terminator: prepared.prompt.system.hasSuffix("\n") ? "" : "\n")
                print("===== user =====")
                print(prepared.prompt.user, terminator: prepared.prompt.user.hasSuffix("\n") ? "" : "\n")
                print("===== estimate =====")
                print(estimate.text)
            }
        }

        /// Polls the database until the agent has finished the round (or it waits for the budget).
        func waitForAgent(executor: RoundExecutor, id: String) async throws -> ReviewRoundRecord {
            while true {
                guard let r = try? executor.store.round(id: id) else { throw CLIError("review round \(id) disappeared") }
                if r.isFinished || (r.status == .waiting && r.notBefore == nil) { return r }
                try await Task.sleep(for: .milliseconds(200))
            }
        }

        /// Runs the round in this process (no agent): the same executor the agent uses.
        func runHere(executor: RoundExecutor, id: String, project: PathBytes, rel: PathBytes) async throws -> ReviewRoundRecord {
            executor.recoverInterrupted()
            if !now {
                let quiet = executor.env.loadConfig(project).review.quietSeconds
                if let st = FileSystem.lstatIfExists(project.appending(rel)) {
                    let left = quiet - Date().timeIntervalSince(Date(timeIntervalSince1970: Double(st.mtimeNs) / 1e9))
                    if left > 0 {
                        printError("waiting \(Int(left.rounded(.up)))s for \(rel.display) to be quiet (use --now to skip)")
                        try await Task.sleep(for: .milliseconds(Int64(min(left, 86_400) * 1000)))
                    }
                }
            }
            while true {
                guard let current = try executor.store.round(id: id) else { throw CLIError("review round \(id) disappeared") }
                if current.isFinished { return current }
                if current.status == .running {
                    // Another process took it (an agent started meanwhile): wait for it.
                    return try await waitForAgent(executor: executor, id: id)
                }
                if current.status == .waiting {
                    guard let nb = current.notBefore.flatMap(RFC3339.date) else { return current }
                    let left = nb.timeIntervalSinceNow
                    if left > 0 {
                        printError("\(current.reason ?? "waiting")")
                        try await Task.sleep(for: .milliseconds(Int64(min(left, 86_400) * 1000)))
                    }
                }
                guard let claimed = try executor.store.claim(id: id, pid: getpid()) else { continue }
                let ended = await executor.run(claimed)
                if ended.isFinished || (ended.status == .waiting && ended.notBefore == nil) { return ended }
            }
        }

        func report(_ r: ReviewRoundRecord, executor: RoundExecutor) throws {
            var round = RoundExecutor.sidecarRound(r, advisors: r.advisors ?? [])
            var suggestions: [Suggestion] = []
            if case .ok(let s, _) = executor.env.sidecars.read(project: r.project, document: r.document) {
                if let sr = s.rounds.first(where: { $0.id == r.id }) { round = sr }
                suggestions = s.suggestions.filter { $0.round == r.id }
            }
            if output.json {
                struct Outcome: Encodable { var round: Round; var suggestions: [Suggestion] }
                print(JSON.string(Outcome(round: round, suggestions: suggestions)))
            } else {
                switch r.status {
                case .done:
                    var line = "review round \(r.id) of \(r.document.display) done: \(suggestions.count) suggestion\(suggestions.count == 1 ? "" : "s")"
                    if let p = r.provider { line += " from \(p)\(r.model.map { "/\($0)" } ?? "")" }
                    if r.tries > 0 {
                        line += String(format: " (%ld in / %ld out tokens, $%.4f)", r.inputTokens, r.outputTokens, r.costUsd)
                    }
                    print(line)
                    if let reason = r.reason { print("  note: \(reason)") }
                    if let n = r.unanchored, n > 0 { print("  \(n) suggestion\(n == 1 ? "" : "s") dropped: quoted text not found") }
                    for s in suggestions.sorted(by: { ($0.priority, $0.start ?? 0) < ($1.priority, $1.start ?? 0) }) {
                        let at = s.line.map { "\($0):\(s.column ?? 1)" } ?? "-"
                        print("  \(at) [\(s.advisorId), \(s.type.rawValue), p\(s.priority)] “\(oneLine(s.originalText))” → “\(oneLine(s.suggestedText))”")
                    }
                case .waiting:
                    printError("review round \(r.id) of \(r.document.display) is waiting: \(r.reason ?? "no reason given")")
                default:
                    printError("review round \(r.id) of \(r.document.display) failed: \(r.reason ?? r.error ?? "no reason given")")
                }
            }
            if r.status != .done { throw ExitCode(1) }
        }

        func oneLine(_ s: String) -> String {
            let t = s.split(whereSeparator: \.isNewline).joined(separator: " ")
            return t.count > 100 ? String(t.prefix(99)) + "…" : t
        }
    }
}
