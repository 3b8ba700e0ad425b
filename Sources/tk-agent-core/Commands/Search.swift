import ArgumentParser
import Foundation
import TKCore
import TKSearch

extension TKAgent {
    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Full-text search across every project.",
            discussion: """
                Words are ANDed; "quoted phrases" match in order; a trailing * searches by prefix (conf*).
                Any text is safe to type: C++, don't, AND, title: are all searched as words.
                """
        )
        @Argument(help: "Words to find.") var terms: [String] = []
        @Option(name: .long, help: "Only this project folder.", completion: .directory) var project: String?
        @Option(name: .long, help: "Only paths matching this glob (relative to the project), e.g. 'notes/*'.") var path: String?
        @Option(name: .long, parsing: .unconditional, help: "At most this many results (1 or more).") var limit: Int = 20
        @Flag(name: .long, help: "Rank documents by keywords and meaning (needs an embedding provider).") var hybrid = false
        @Flag(name: .long, help: "Rank documents by meaning only (needs an embedding provider).") var semantic = false
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if terms.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
                throw ValidationError("Give at least one search term.")
            }
            if limit < 1 { throw usageError("--limit must be 1 or more (got \(limit))") }
        }

        func run() async throws {
            let text = terms.joined(separator: " ")
            if hybrid || semantic {
                try await SearchHybrid.run(text: text, semantic: semantic, project: project, pathGlob: path, limit: limit,
                                           json: output.json)
                return
            }
            let query = SearchQuery(text)
            let db = try openDatabase()
            if let project { _ = try KnownProject.require(project, database: db) }
            let options = SearchOptions(project: project.map { FileSystem.absolute($0).bytes }, pathGlob: path, limit: limit)
            let results = try db.search(query, options: options, queryText: text)
            if output.json {
                print(SearchOutput.json(results))
                return
            }
            if query.isEmpty {
                printError("nothing to search for in \"\(text)\" (no letters or digits)")
                return
            }
            if results.results.isEmpty {
                printError("no matches for \(text)")
                return
            }
            print(SearchOutput.text(results, color: stdoutIsColorTerminal), terminator: "")
            printError(SearchOutput.summary(results))
        }
    }
}
