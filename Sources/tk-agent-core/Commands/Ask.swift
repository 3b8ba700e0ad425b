import ArgumentParser
import Foundation
import TKCore

extension TKAgent {
    struct Ask: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ask",
            abstract: "Ask an advisor a question about a text.",
            discussion: """
            The text is --file, --text or standard input (when it is not a terminal). --line N or \
            --range START:END sends that passage with about 500 characters around it (or its whole \
            paragraph). --continue follows up on your last conversation about the same file. On a \
            terminal the answer streams in as it is written.

            With --project P (or --all) the question is about the whole project: the best passages \
            are retrieved (keywords and, with an embedding provider, meaning), the model answers \
            from them citing [n], and the sources follow as path:start-end. --until FILE[:LINE] \
            (and --from) keep to that part of the reading order: no spoilers. --sources shows the \
            passages and sends nothing; --dry-run prints the prompt.
            """
        )

        @Argument(help: "Your question.")
        var question: String
        @Option(name: .long, help: "The markdown file the question is about.", completion: .file(extensions: ["md", "markdown"]))
        var file: String?
        @OptionGroup var input: InputOptions
        @Option(name: .long, help: "The advisor who answers (role id; default: general).")
        var role: String = "general"
        @Option(name: .long, help: "Ask about this line (1-based).")
        var line: Int?
        @Option(name: .long, help: "Ask about these lines, START:END (1-based, inclusive).")
        var range: String?
        @Flag(name: .customLong("continue"), help: "Follow up on the last conversation about the same file.")
        var continueConversation = false
        @OptionGroup var output: WritingOutputOptions
        @OptionGroup var llm: LLMOptions
        @OptionGroup var retrieval: AskProjectOptions
        // Every option above (and in the groups) is also set by `quickParse`: a new one must be
        // added there too (a property it leaves unset traps when `run` reads it).

        /// A project question's plain command lines (`ask Q --project P --sources --json`), read
        /// without ArgumentParser, as `check` is: its first parse in a process reflects over every
        /// option and looks up their types' conformances, some 45 million instructions at every
        /// question (a fifth of a hybrid question's own work on a large corpus). Anything else (a question about a
        /// file or text, help, an unknown or repeated option, a next argument that starts with `-`, the
        /// word `help`) gives nil and takes ArgumentParser's parse, with its errors.
        /// `test_ask_quick_parse.py` compares both on the same commands.
        static func quickParse(_ arguments: [String]) -> Ask? {
            var question: String?
            var all = false, sources = false, dryRun = false, json = false, ndjson = false, quiet = false, verbose = false
            let valued = ["--project", "--until", "--from", "--provider", "--model", "--passages"]
            var values: [String: String] = [:]
            var args = QuickArguments(arguments)
            var positionalOnly = false
            func once(_ flag: inout Bool) -> Bool {
                if flag { return false }
                flag = true
                return true
            }
            while let a = args.next() {
                if positionalOnly || !a.hasPrefix("-") || a == "-" {
                    guard question == nil, a != "help", a != "-" else { return nil }
                    question = a
                    continue
                }
                switch a {
                case "--": positionalOnly = true
                case "--all": guard once(&all) else { return nil }
                case "--sources": guard once(&sources) else { return nil }
                case "--dry-run": guard once(&dryRun) else { return nil }
                case "--json": guard once(&json) else { return nil }
                case "--ndjson": guard once(&ndjson) else { return nil }
                case "--quiet": guard once(&quiet) else { return nil }
                case "--verbose", "-v": guard once(&verbose) else { return nil }
                default:
                    // Options that take a value, each given once.
                    guard let name = valued.first(where: { a == $0 || a.hasPrefix($0 + "=") }), values[name] == nil,
                          let v = args.value(a, name) ?? nil else { return nil }
                    values[name] = v
                }
            }
            let project = values["--project"], until = values["--until"], from = values["--from"]
            let provider = values["--provider"], model = values["--model"]
            var passages: Int?
            if let text = values["--passages"] {
                // Out of range: `AskProjectOptions.validate` prints its error as it throws.
                guard let n = Int(text), (1...50).contains(n) else { return nil }
                passages = n
            }
            // Only project questions: a question about a file, text or standard input takes the full parse.
            guard let question, project != nil || all else { return nil }
            var c = Ask()
            c.question = question
            c.file = nil
            var input = InputOptions()
            input.text = nil
            c.input = input
            c.role = "general"
            c.line = nil
            c.range = nil
            c.continueConversation = false
            var output = WritingOutputOptions()
            output.json = json; output.ndjson = ndjson; output.quiet = quiet
            c.output = output
            var llm = LLMOptions()
            llm.provider = provider; llm.model = model; llm.verbose = verbose
            c.llm = llm
            var r = AskProjectOptions()
            r.project = project; r.all = all; r.until = until; r.from = from
            r.sources = sources; r.dryRun = dryRun; r.passageLimit = passages ?? 8
            c.retrieval = r
            // ArgumentParser validates each group and the command as it parses; a command it
            // would reject takes its parse.
            guard (try? output.validate()) != nil, (try? llm.validate()) != nil, (try? r.validate()) != nil,
                  (try? c.validate()) != nil else { return nil }
            return c
        }

        func validate() throws {
            if question.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { throw ValidationError("the question is empty") }
            if line != nil, range != nil { throw ValidationError("give --line or --range, not both") }
            if let range, AskEngine.parseRange(range) == nil {
                throw ValidationError("--range must be START:END, e.g. --range 10:14")
            }
            if let line, line < 1 { throw ValidationError("--line must be 1 or more") }
            if file != nil, input.text != nil { throw ValidationError("give --file or --text, not both") }
        }

        func run() async throws {
            if retrieval.isProjectQuestion {
                try await retrieval.run(question: question, output: output, llm: llm)
                return
            }
            let catalog = Writing.catalog()
            let advisor = try Writing.roles([role], catalog: catalog)[0]
            var doc: InputDocument?
            if let file {
                doc = try InputOptions.read(file)
            } else if let text = input.text {
                doc = InputDocument(display: "--text", path: nil, bytes: Array(text.utf8))
            } else if isatty(STDIN_FILENO) == 0 {
                let bytes = Array(FileHandle.standardInput.readDataToEndOfFile())
                // An empty pipe (or /dev/null) is no text at all.
                if !bytes.isEmpty { doc = InputDocument(display: "-", path: nil, bytes: bytes) }
            }
            guard doc != nil else {
                throw usageError("a question needs something to ask about: --project P (or --all) for a project, "
                    + "--file F or --text T for a document, or the text on standard input")
            }
            var passage: String?
            var context: String?
            if let doc {
                let md = MarkdownDocument(bytes: doc.bytes, fileName: doc.fileName)
                if md.frontMatter.tk.review == false {
                    throw CLIError("\(doc.display): its front matter says review: false, so it is never sent to a model")
                }
                if let (a, b) = line.map({ ($0, $0) }) ?? range.flatMap(AskEngine.parseRange) {
                    do {
                        let p = try AskEngine.passage(in: doc.text, lines: a, b)
                        passage = p.text
                        context = p.context
                    } catch { throw usageError("\(doc.display): \(error.description)") }
                } else {
                    context = doc.text
                }
            } else if line != nil || range != nil {
                throw usageError("--line and --range need a document: --file F, --text T or standard input")
            }
            let storyType = doc.flatMap {
                MarkdownDocument(bytes: $0.bytes, fileName: $0.fileName).frontMatter.tk.storyType
            }.flatMap { catalog.storyType($0) }

            let loaded = llm.loadConfiguration(project: doc?.project)
            let provider = try await llm.makeProvider(configuration: loaded.config)

            let subject: String
            // A file's conversations are keyed by a digest of its path: the database keeps no path
            // outside `project` and `document` (`AskExchange.fileSubject`).
            if let path = doc?.path { subject = AskExchange.fileSubject(path) } else if let doc {
                subject = "text:" + SHA256Digest.hex(doc.bytes)
            } else {
                subject = "none"
            }
            let database = try? AppDatabase.open(paths: Paths.resolve())
            var history: [AskExchange] = []
            if continueConversation {
                if let database { history = (try? database.lastConversation(subject: subject)) ?? [] }
                if history.isEmpty { printError("note: no earlier conversation about \(doc?.display ?? "this"); starting a new one") }
            }
            let prompt = PromptEngine.askPrompt(question: question, role: advisor, passage: passage, context: context,
                                                documentPath: doc?.path?.lastComponent.display, storyType: storyType)
            let request = AskEngine.request(prompt: prompt, history: history, model: llm.model,
                                            maxOutputTokens: loaded.config.review.maxOutputTokens)
            let stream = !output.json && !output.ndjson && isatty(STDOUT_FILENO) != 0
            let response: LLMResponse
            var onText: (@Sendable (String) -> Void)?
            if stream { onText = { @Sendable piece in writeOut(piece) } }
            if output.ndjson {
                onText = { @Sendable piece in
                    writeOut(JSON.string(JSONValue.object(["type": .string("text"), "text": .string(piece)]), pretty: false) + "\n")
                }
            }
            do throws(LLMProviderError) {
                response = try await provider.complete(request, onText: onText)
            } catch { throw error.cli }
            var usage = WritingUsage()
            usage.add(response)
            llm.report(usage, configuration: loaded.config)

            let conversation = history.last?.conversation ?? UUID().uuidString.lowercased()
            if let database {
                do {
                    try database.record(AskExchange(conversation: conversation, subject: subject, roleId: advisor.id,
                                                    question: question, prompt: prompt.user, answer: response.text,
                                                    createdAt: RFC3339.string(Date())))
                } catch {
                    printError("warning: could not save the conversation (\(error)); --continue will not see it")
                }
            }
            if output.json || output.ndjson {
                var value: JSONValue = .object([
                    "question": .string(question), "role": .string(advisor.id), "answer": .string(response.text),
                    "path": doc.map { .string($0.display) } ?? .null,
                    "passage": passage.map(JSONValue.string) ?? .null,
                    "conversation": .string(conversation), "turn": .number(Double(history.count + 1)),
                    "metadata": .object(["usage": usageJSON(usage)]),
                ])
                if output.ndjson, case .object(var o) = value {
                    o["type"] = .string("done")
                    value = .object(o)
                }
                writeOut(JSON.string(value, pretty: !output.ndjson) + "\n")
            } else if stream {
                if !response.text.hasSuffix("\n") { writeOut("\n") }
            } else {
                writeOut(response.text + (response.text.hasSuffix("\n") ? "" : "\n"))
            }
        }
    }
}
