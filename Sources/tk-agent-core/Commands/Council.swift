import ArgumentParser
import Foundation
import TKCore

extension TKAgent {
    struct Council: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "council",
            abstract: "Ask several advisors one question and synthesise their views.",
            discussion: """
            The advisors answer in parallel; tk-agent then finds the points most of them share (consensus), \
            points on one topic with opposite views (disagreements), points only one raised (unique insights) \
            and the overall sentiment. Without FILE, --text or standard input is used.
            """
        )

        @Argument(help: "The markdown file the question is about.", completion: .file(extensions: ["md", "markdown"]))
        var file: String?
        @OptionGroup var input: InputOptions
        @Option(name: .long, help: "2 to 10 advisors, comma-separated (e.g. editor,copywriter,ux_writer).")
        var advisors: String
        @Option(name: [.customShort("q"), .long], help: "The question for the council.")
        var question: String
        @Option(name: .customLong("story-type"), help: "Story type for the genre context.")
        var storyType: String?
        @OptionGroup var output: WritingOutputOptions
        @OptionGroup var llm: LLMOptions

        func validate() throws {
            let n = Writing.ids(advisors).count
            if !CouncilEngine.advisorRange.contains(n) {
                throw ValidationError("a council needs 2 to 10 advisors (got \(n)); e.g. --advisors editor,copywriter")
            }
            if question.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                throw ValidationError("give the council a question with -q \"…\"")
            }
        }

        func run() async throws {
            let catalog = Writing.catalog()
            let roles = try Writing.roles(Writing.ids(advisors), catalog: catalog)
            if roles.count < 2 { throw usageError("a council needs 2 to 10 different advisors") }
            let type = try storyType.map { try Writing.storyType($0, catalog: catalog) }
            let docs = try input.documents(files: file.map { [$0] } ?? [], command: "council FILE --advisors a,b -q …")
            let doc = docs[0]
            let md = MarkdownDocument(bytes: doc.bytes, fileName: doc.fileName)
            if md.frontMatter.tk.review == false {
                throw CLIError("\(doc.display): its front matter says review: false, so it is never sent to a model")
            }
            let loaded = llm.loadConfiguration(project: doc.project)
            let provider = try await llm.makeProvider(configuration: loaded.config)
            // The document's story type as every surface resolves it (flag › front matter › `journey set` › config).
            let storyType = try type ?? Writing.team(catalog: catalog, advisorIDs: [], storyTypeID: nil, document: md,
                                                     configuration: loaded.config, overrides: doc.overrides).storyType
            let result: CouncilResult
            var onPerspective: (@Sendable (CouncilPerspective) -> Void)?
            if output.ndjson {
                onPerspective = { @Sendable p in
                    var v = Council.value(p)
                    if case .object(var o) = v { o["type"] = .string("perspective"); v = .object(o) }
                    writeOut(JSON.string(v, pretty: false) + "\n")
                }
            }
            do {
                result = try await CouncilEngine(provider: provider).run(
                    question: question, advisors: roles, document: doc.text,
                    documentPath: doc.path?.lastComponent.display ?? doc.display, storyType: storyType,
                    model: llm.model, maxOutputTokens: min(2048, loaded.config.review.maxOutputTokens),
                    onPerspective: onPerspective)
            } catch { throw error.cli }
            llm.report(result.usage, configuration: loaded.config)
            for p in result.perspectives where p.error != nil { printError("warning: \(p.advisorId): \(p.error ?? "")") }

            if output.ndjson {
                // The perspectives went out as they came in; the analysis closes the stream.
                var v = Self.value(result.analysis)
                if case .object(var o) = v {
                    o["type"] = .string("analysis")
                    o["question"] = .string(question)
                    o["usage"] = usageJSON(result.usage)
                    v = .object(o)
                }
                writeOut(JSON.string(v, pretty: false) + "\n")
                return
            }
            if output.json {
                let value: JSONValue = .object([
                    "question": .string(question),
                    "path": .string(doc.display),
                    "perspectives": Self.value(result.perspectives),
                    "analysis": Self.value(result.analysis),
                    "metadata": .object(["usage": usageJSON(result.usage), "generated_at": .string(RFC3339.string(Date()))]),
                ])
                writeOut(JSON.string(value) + "\n")
                return
            }
            writeOut(Self.text(result, style: Style(on: output.color), quiet: output.quiet))
        }

        static func value<T: Encodable>(_ v: T) -> JSONValue {
            (try? JSON.encode(v, pretty: false)).flatMap { try? JSONValue.parse($0) } ?? .null
        }

        static func text(_ r: CouncilResult, style st: Style, quiet: Bool) -> String {
            let a = r.analysis
            if quiet {
                return a.consensus.map { $0.point + "\n" }.joined()
            }
            var out = st.bold("Question: ") + r.question + "\n\n" + st.bold("PERSPECTIVES") + "\n"
            for p in r.perspectives {
                out += "\n" + st.bold("\(p.name) (\(p.advisorId))")
                if let e = p.error { out += " — " + st.red("no answer: \(e)") + "\n"; continue }
                out += " — \(p.sentiment)\n"
                if !p.perspective.isEmpty { out += Roles.wrap(p.perspective, indent: "  ") + "\n" }
                for pt in p.points { out += "  • \(pt)\n" }
            }
            out += "\n" + st.bold("ANALYSIS") + "\n"
            out += "\nConsensus:\n"
            if a.consensus.isEmpty { out += "  (no point shared by more than half of the advisors)\n" }
            for c in a.consensus { out += "  • \(c.point) " + st.dim("[\(c.advisors.joined(separator: ", "))]") + "\n" }
            out += "\nDisagreements:\n"
            if a.disagreements.isEmpty { out += "  (none found)\n" }
            for d in a.disagreements {
                out += "  • \(d.topic):\n"
                for p in d.positions { out += "      \(p.advisorId) (\(p.sentiment)): \(p.point)\n" }
            }
            out += "\nUnique insights:\n"
            if a.uniqueInsights.isEmpty { out += "  (none)\n" }
            for u in a.uniqueInsights { out += "  • \(u.point) " + st.dim("[\(u.advisorId)]") + "\n" }
            let s = a.sentiment
            out += "\nOverall sentiment: \(s.overall) (\(s.positive) positive, \(s.neutral) neutral, \(s.negative) negative)\n"
            return out
        }
    }
}
