import ArgumentParser
import Foundation
import TKCore

extension TKAgent {
    struct Suggest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "suggest",
            abstract: "Ask advisors for concrete rewrites of a text.",
            discussion: """
            Reads FILEs, --text, or standard input. The advisors are --role/--advisors, else the document's \
            tk: front matter, else the story type's defaults, else the general reviewer. --describe lets the \
            model pick the team from a description of the writing.
            Exit status: 0 ok, 1 error, 2 with --strict when there are suggestions, 64 wrong usage.
            """
        )

        @Argument(help: "Markdown files (- for standard input).", completion: .file(extensions: ["md", "markdown"]))
        var files: [String] = []
        @OptionGroup var input: InputOptions
        @Option(name: .long, help: "One advisor (role id, e.g. editor).")
        var role: String?
        @Option(name: .long, help: "Advisors, comma-separated (one batched call).")
        var advisors: String?
        @Option(name: .customLong("story-type"), help: "Story type (its default advisors and genre context).")
        var storyType: String?
        @Option(name: .long, help: "Describe the writing; the model assembles the team.")
        var describe: String?
        @Option(name: .long, help: "Kinds of suggestion wanted, comma-separated (e.g. grammar,clarity or fix,rephrase).")
        var categories: String?
        @Option(name: .customLong("min-confidence"), parsing: .unconditional, help: "Leave out suggestions below this confidence (0…1).")
        var minConfidence: Double = 0
        @Option(name: .customLong("max-suggestions"), parsing: .unconditional, help: "The most suggestions per file.")
        var maxSuggestions: Int = PromptEngine.defaultMaxSuggestions
        @Option(name: .long, parsing: .unconditional, help: "Files reviewed at once.")
        var parallel: Int = 1
        @Flag(name: .long, help: "Exit with status 2 when there are suggestions.")
        var strict = false
        @Flag(name: .shortAndLong, help: "Accept, edit or skip each suggestion; accepted ones are written back.")
        var interactive = false
        @OptionGroup var output: WritingOutputOptions
        @OptionGroup var llm: LLMOptions

        func validate() throws {
            if role != nil, advisors != nil { throw ValidationError("give --role or --advisors, not both") }
            if describe != nil, role != nil || advisors != nil {
                throw ValidationError("--describe assembles the advisors itself; leave out --role/--advisors")
            }
            if describe != nil, storyType != nil {
                throw ValidationError("--describe chooses the story type itself; leave out --story-type")
            }
            if !(0...1).contains(minConfidence) { throw usageError("--min-confidence must be between 0 and 1 (got \(minConfidence))") }
            if maxSuggestions < 1 { throw usageError("--max-suggestions must be 1 or more (got \(maxSuggestions))") }
            if parallel < 1 { throw usageError("--parallel must be 1 or more (got \(parallel))") }
            if interactive, output.json || output.ndjson || output.quiet {
                throw ValidationError("--interactive prints its own prompts; leave out --json, --ndjson and --quiet")
            }
            if interactive, input.text != nil || files.isEmpty || files.contains("-") {
                throw ValidationError("--interactive writes accepted suggestions back, so it needs FILE arguments")
            }
        }

        func run() async throws {
            let docs = try input.documents(files: files, command: "suggest")
            let catalog = Writing.catalog()
            let explicit = role.map { [$0] } ?? Writing.ids(advisors)
            if !explicit.isEmpty { _ = try Writing.roles(explicit, catalog: catalog) }
            if let storyType { _ = try Writing.storyType(storyType, catalog: catalog) }
            let loaded = llm.loadConfiguration(project: docs.first?.project)
            let provider = try await llm.makeProvider(configuration: loaded.config)
            var total = WritingUsage()

            var assembled: AssemblyResult?
            if let describe {
                let (a, u) = try await Writing.assemble(description: describe, catalog: catalog, provider: provider,
                                                        model: llm.model)
                assembled = a
                total.add(u)
                for p in a.problems where !output.quiet { printError("note: \(p)") }
                if !output.quiet && !output.json && !output.ndjson {
                    printError("team: \(a.advisors.map(\.roleId).joined(separator: ", ")) (\(a.storyType.name))")
                }
            }

            let cats = Writing.ids(categories)
            let engine = SuggestEngine(provider: provider)
            let config = loaded.config
            let storyTypeID = storyType ?? assembled?.storyType.id
            let explicitIDs = explicit.isEmpty ? (assembled?.advisors.map(\.roleId) ?? []) : explicit

            // Build each file's request first (team errors show before any call).
            struct Job { var index: Int; var doc: InputDocument; var request: SuggestRequest? }
            var jobs: [Job] = []
            for (i, doc) in docs.enumerated() {
                if doc.bytes.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }) {
                    printError("\(doc.display): empty; nothing to suggest")
                    jobs.append(Job(index: i, doc: doc, request: nil))
                    continue
                }
                let md = MarkdownDocument(bytes: doc.bytes, fileName: doc.fileName)
                if md.frontMatter.tk.review == false {
                    printError("\(doc.display): skipped (tk: review: false in its front matter)")
                    jobs.append(Job(index: i, doc: doc, request: nil))
                    continue
                }
                let team = try Writing.team(catalog: catalog, advisorIDs: explicitIDs, storyTypeID: storyTypeID,
                                            document: md, configuration: config, overrides: doc.overrides)
                jobs.append(Job(index: i, doc: doc, request: SuggestRequest(
                    document: doc.bytes, documentPath: doc.path.map { $0.lastComponent.display } ?? doc.display,
                    advisors: team.advisors, storyType: team.storyType, draftStage: team.draftStage,
                    categories: cats.isEmpty ? nil : cats, maxSuggestions: maxSuggestions, minConfidence: minConfidence,
                    model: llm.model, maxOutputTokens: config.review.maxOutputTokens)))
            }

            var results: [Int: Result<SuggestResult, LLMProviderError>] = [:]
            let printer = SuggestPrinter(output: output, multiple: docs.count > 1)
            let limit = parallel
            await withTaskGroup(of: (Int, Result<SuggestResult, LLMProviderError>).self) { group in
                var next = 0
                func submit() {
                    while next < jobs.count, jobs[next].request == nil { next += 1 }
                    guard next < jobs.count, let req = jobs[next].request else { return }
                    let index = next
                    next += 1
                    group.addTask {
                        // Bound first: see CouncilEngine.run (a Swift 6.3 optimiser bug with
                        // `(index, .success(try await …))` in a task-group child).
                        let result: Result<SuggestResult, LLMProviderError>
                        do throws(LLMProviderError) { result = .success(try await engine.run(req)) } catch {
                            result = .failure(error)
                        }
                        return (index, result)
                    }
                }
                for _ in 0..<limit { submit() }
                for await (index, result) in group where jobs.indices.contains(index) {
                    results[index] = result
                    if case .success(let r) = result, output.ndjson { printer.ndjson(r, doc: jobs[index].doc) }
                    submit()
                }
            }

            var failed = false
            var all: [(InputDocument, SuggestResult)] = []
            for job in jobs where job.request != nil {
                switch results[job.index] {
                case .success(let r):
                    total.add(r.usage)
                    if !output.quiet { for p in r.problems { printError("\(job.doc.display): \(p)") } }
                    all.append((job.doc, r))
                case .failure(let e):
                    printError("Error: \(job.doc.display): \(e.message)")
                    failed = true
                case nil:
                    break
                }
            }
            llm.report(total, configuration: loaded.config)

            if interactive {
                var quit = false
                for (doc, r) in all where !quit {
                    quit = try Interactive.review(doc: doc, suggestions: r.suggestions, color: output.color)
                }
            } else if output.json {
                var advisorIDs: [String] = []
                for job in jobs { for a in job.request?.advisors ?? [] where !advisorIDs.contains(a.id) { advisorIDs.append(a.id) } }
                let types = Set(jobs.compactMap { $0.request?.storyType?.id })
                printer.json(all, usage: total, advisors: advisorIDs, storyType: types.count == 1 ? types.first : nil)
            } else if !output.ndjson {
                for (doc, r) in all { printer.text(r, doc: doc) }
            }
            if failed { throw ExitCode(1) }
            if strict, all.contains(where: { !$0.1.suggestions.isEmpty }) { throw ExitCode(2) }
        }
    }
}

/// Formats suggestions as text, JSON or NDJSON.
struct SuggestPrinter {
    var output: WritingOutputOptions
    var multiple: Bool

    static func object(_ s: Suggestion, path: String) -> JSONValue {
        guard let bytes = try? JSON.encode(s, pretty: false), case .object(var o) = (try? JSONValue.parse(bytes)) ?? .null
        else { return .null }
        o["path"] = .string(path)
        return .object(o)
    }

    func ndjson(_ r: SuggestResult, doc: InputDocument) {
        var out = ""
        for s in r.suggestions { out += JSON.string(Self.object(s, path: doc.display), pretty: false) + "\n" }
        writeOut(out)
    }

    func json(_ all: [(InputDocument, SuggestResult)], usage: WritingUsage, advisors: [String], storyType: String?) {
        var suggestions: [JSONValue] = []
        var files: [JSONValue] = []
        var unanchored = 0
        var problems: [JSONValue] = []
        for (doc, r) in all {
            suggestions += r.suggestions.map { Self.object($0, path: doc.display) }
            files.append(.string(doc.display))
            unanchored += r.unanchored
            problems += r.problems.map { .string("\(doc.display): \($0)") }
        }
        var meta: [String: JSONValue] = [
            "files": .array(files), "generated_at": .string(RFC3339.string(Date())),
            "count": .number(Double(suggestions.count)), "unanchored": .number(Double(unanchored)),
            "usage": usageJSON(usage), "problems": .array(problems),
            "provider": usage.provider.map(JSONValue.string) ?? .null,
            "model": usage.model.map(JSONValue.string) ?? .null,
        ]
        meta["advisors"] = .array(advisors.map(JSONValue.string))
        meta["story_type"] = storyType.map(JSONValue.string) ?? .null
        let doc: JSONValue = .object(["version": .string("1.0"), "suggestions": .array(suggestions), "metadata": .object(meta)])
        writeOut(JSON.string(doc) + "\n")
    }

    func text(_ r: SuggestResult, doc: InputDocument) {
        let st = Style(on: output.color)
        if output.quiet {
            writeOut(r.suggestions.map { $0.suggestedText.replacingOccurrences(of: "\n", with: " ") + "\n" }.joined())
            return
        }
        var out = ""
        if multiple { out += st.bold("== \(doc.display)") + "\n" }
        if r.suggestions.isEmpty { out += "No suggestions.\n" }
        for s in r.suggestions { out += Self.describe(s, path: doc.display, style: st) + "\n" }
        writeOut(out)
    }

    static func describe(_ s: Suggestion, path: String, style st: Style) -> String {
        var out = st.bold("\(path):\(s.line ?? 0):\(s.column ?? 0)") + " "
            + st.cyan("\(s.advisorId) · \(s.type.rawValue) · priority \(s.priority) · confidence \(String(format: "%.2f", s.confidence))") + "\n"
        out += st.red(quoteLines(s.originalText, prefix: "  - ")) + "\n"
        out += st.green(quoteLines(s.suggestedText.isEmpty ? "(remove)" : s.suggestedText, prefix: "  + ")) + "\n"
        if !s.reasoning.isEmpty { out += st.dim("  " + s.reasoning.replacingOccurrences(of: "\n", with: " ")) + "\n" }
        return out
    }

    static func quoteLines(_ s: String, prefix: String) -> String {
        s.split(separator: "\n", omittingEmptySubsequences: false).map { prefix + $0 }.joined(separator: "\n")
    }
}

/// `suggest --interactive`: accept, edit, skip or quit per suggestion, then write the file once.
enum Interactive {
    /// Reviews one file's suggestions. Returns true when the writer quit.
    static func review(doc: InputDocument, suggestions: [Suggestion], color: Bool) throws -> Bool {
        guard let path = doc.path else { return false }
        let st = Style(on: color)
        var edits: [SuggestionApplier.Edit] = []
        var quit = false
        var accepted = 0, edited = 0, skipped = 0
        for (n, s) in suggestions.enumerated() {
            FileHandle.standardError.write(Data(("\n[\(n + 1)/\(suggestions.count)] "
                + SuggestPrinter.describe(s, path: doc.display, style: st)).utf8))
            var decided = false
            while !decided {
                FileHandle.standardError.write(Data("[a]ccept, [e]dit, [s]kip, [q]uit? ".utf8))
                guard let line = readLine() else { quit = true; break }
                switch line.trimmingCharacters(in: .whitespaces).lowercased() {
                case "a", "accept", "y", "yes":
                    if let e = SuggestionApplier.edit(for: s) { edits.append(e) }
                    accepted += 1
                    decided = true
                case "e", "edit":
                    FileHandle.standardError.write(Data("replacement text (empty keeps the suggestion): ".utf8))
                    guard let text = readLine() else { quit = true; break }
                    if let e = SuggestionApplier.edit(for: s, replacement: text.isEmpty ? s.suggestedText : text) {
                        edits.append(e)
                    }
                    edited += 1
                    decided = true
                case "s", "skip", "n", "no", "":
                    skipped += 1
                    decided = true
                case "q", "quit":
                    quit = true
                default:
                    printError("answer a, e, s or q")
                }
                if quit { break }
            }
            if quit { break }
        }
        if edits.isEmpty {
            printError("\(doc.display): nothing to write (\(accepted + edited) accepted, \(skipped) skipped)")
            return quit
        }
        // Write only if the file is still what the suggestions were made for.
        let outcome = SuggestionApplier.apply(edits, to: doc.bytes)
        do {
            try DocumentRewriter.rewrite(path, limit: 64 << 20) { current in
                guard current == doc.bytes else {
                    throw CLIError("\(doc.display) changed while you were reviewing; nothing was written")
                }
                return outcome.bytes
            }
        } catch let error as DocumentRewriteError { throw CLIError("\(doc.display): \(error)") }
        var msg = "\(doc.display): applied \(outcome.applied.count) change\(outcome.applied.count == 1 ? "" : "s")"
        if !outcome.skipped.isEmpty { msg += "; \(outcome.skipped.count) overlapping change(s) left out" }
        printError(msg)
        return quit
    }
}
