import ArgumentParser
import Foundation
import TKCore

extension TKAgent {
    struct Pipe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pipe",
            abstract: "Print the text with suggestions applied.",
            discussion: """
            Reads FILE, --text or standard input, asks the advisors for suggestions and prints the text with \
            all of them applied (overlapping ones: the most important wins). --diff prints a unified diff \
            instead; --apply rewrites FILE atomically.
            """
        )

        @Argument(help: "The markdown file (default: standard input).", completion: .file(extensions: ["md", "markdown"]))
        var file: String?
        @OptionGroup var input: InputOptions
        @Option(name: .long, help: "One advisor (role id).")
        var role: String?
        @Option(name: .long, help: "Advisors, comma-separated.")
        var advisors: String?
        @Option(name: .long, help: "Kinds of suggestion wanted, comma-separated (e.g. grammar,clarity).")
        var categories: String?
        @Option(name: .customLong("min-confidence"), parsing: .unconditional, help: "Leave out suggestions below this confidence (0…1).")
        var minConfidence: Double = 0
        @Flag(name: .long, help: "Print a unified diff instead of the text.")
        var diff = false
        @Flag(name: .long, help: "Rewrite FILE with the suggestions applied (atomically).")
        var apply = false
        @Flag(name: .shortAndLong, help: "No summary on standard error.")
        var quiet = false
        @Flag(name: .long, help: "Print JSON: the new text, the suggestions applied and those left out.")
        var json = false
        @OptionGroup var llm: LLMOptions

        func validate() throws {
            if role != nil, advisors != nil { throw ValidationError("give --role or --advisors, not both") }
            if apply, file == nil || file == "-" { throw ValidationError("--apply rewrites a file; give FILE") }
            if json, diff { throw ValidationError("--json already holds the new text; leave out --diff") }
            if !(0...1).contains(minConfidence) { throw usageError("--min-confidence must be between 0 and 1 (got \(minConfidence))") }
        }

        func run() async throws {
            let catalog = Writing.catalog()
            let explicit = role.map { [$0] } ?? Writing.ids(advisors)
            if !explicit.isEmpty { _ = try Writing.roles(explicit, catalog: catalog) }
            let doc = try input.documents(files: file.map { [$0] } ?? [], command: "pipe")[0]
            if doc.bytes.allSatisfy({ $0 == 32 || $0 == 9 || $0 == 10 || $0 == 13 }) {
                if !quiet { printError("\(doc.display): empty; nothing to change") }
                if !diff && !apply && !json { FileHandle.standardOutput.write(Data(doc.bytes)) }
                return
            }
            let md = MarkdownDocument(bytes: doc.bytes, fileName: doc.fileName)
            if md.frontMatter.tk.review == false {
                throw CLIError("\(doc.display): its front matter says review: false, so it is never sent to a model")
            }
            let loaded = llm.loadConfiguration(project: doc.project)
            let team = try Writing.team(catalog: catalog, advisorIDs: explicit, storyTypeID: nil, document: md,
                                        configuration: loaded.config, overrides: doc.overrides)
            let provider = try await llm.makeProvider(configuration: loaded.config)
            let cats = Writing.ids(categories)
            let result: SuggestResult
            do {
                result = try await SuggestEngine(provider: provider, round: "pipe").run(SuggestRequest(
                    document: doc.bytes, documentPath: doc.path?.lastComponent.display ?? doc.display,
                    advisors: team.advisors, storyType: team.storyType, draftStage: team.draftStage,
                    categories: cats.isEmpty ? nil : cats, minConfidence: minConfidence, model: llm.model,
                    maxOutputTokens: loaded.config.review.maxOutputTokens))
            } catch { throw error.cli }
            llm.report(result.usage, configuration: loaded.config)
            if !quiet { for p in result.problems { printError("\(doc.display): \(p)") } }

            let outcome = SuggestionApplier.apply(result.suggestions, to: doc.bytes)
            let newText = String(decoding: outcome.bytes, as: UTF8.self)
            if json {
                func isApplied(_ s: Suggestion) -> Bool {
                    outcome.applied.contains { $0.start == s.start && $0.end == s.end && $0.text == s.suggestedText }
                }
                let value: JSONValue = .object([
                    "path": .string(doc.display),
                    "text": .string(newText),
                    "applied": .array(result.suggestions.filter(isApplied).map { SuggestPrinter.object($0, path: doc.display) }),
                    "left_out": .array(result.suggestions.filter { !isApplied($0) }.map { SuggestPrinter.object($0, path: doc.display) }),
                    "changed": .bool(newText != doc.text),
                    "metadata": .object(["usage": usageJSON(result.usage), "unanchored": .number(Double(result.unanchored))]),
                ])
                writeOut(JSON.string(value) + "\n")
            } else if diff {
                let name = doc.path.map { _ in doc.display } ?? "stdin"
                writeOut(UnifiedDiff.diff(old: doc.text, new: newText, oldName: "a/\(name)", newName: "b/\(name)"))
            } else if !apply {
                FileHandle.standardOutput.write(Data(outcome.bytes))
            }
            if apply, let path = doc.path, !outcome.applied.isEmpty {
                do {
                    try DocumentRewriter.rewrite(path, limit: 64 << 20) { current in
                        guard current == doc.bytes else {
                            throw CLIError("\(doc.display) changed while the suggestions were made; nothing was written")
                        }
                        HistoryCLI.snapshotBeforeWrite(path, bytes: current, reason: "pipe")
                        return outcome.bytes
                    }
                } catch let error as DocumentRewriteError { throw CLIError("\(doc.display): \(error)") }
            }
            if !quiet {
                var msg = "\(doc.display): \(outcome.applied.count) suggestion\(outcome.applied.count == 1 ? "" : "s") applied"
                if !outcome.skipped.isEmpty { msg += ", \(outcome.skipped.count) overlapping left out" }
                if apply { msg += outcome.applied.isEmpty ? "; file unchanged" : "; file rewritten" }
                printError(msg)
            }
        }
    }
}
