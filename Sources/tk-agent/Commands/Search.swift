import ArgumentParser
import Foundation
import TKCore

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
        @Option(name: .long, help: "At most this many results.") var limit: Int = 20
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if terms.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
                throw ValidationError("Give at least one search term.")
            }
            if limit < 1 { throw ValidationError("--limit must be at least 1.") }
        }

        func run() async throws {
            let text = terms.joined(separator: " ")
            let query = SearchQuery(text)
            let db = try openDatabase()
            let options = SearchOptions(project: project.map { FileSystem.absolute($0) }, pathGlob: path, limit: limit)
            let results = try db.search(query, options: options, queryText: text)
            if output.json {
                print(JSON.string(results))
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
            let color = stdoutIsColorTerminal
            for hit in results.results {
                let loc = "\(hit.project)/\(hit.path):\(hit.line)"
                print(color ? "\u{1B}[1m\(hit.title)\u{1B}[0m  \u{1B}[2m\(loc)\u{1B}[0m" : "\(hit.title)  \(loc)")
                print("    " + Self.highlight(hit.snippet, hit.highlights, color: color))
            }
            printError(String(format: "%d results in %.1f ms", results.results.count, results.tookMs))
        }

        static func highlight(_ text: String, _ ranges: [[Int]], color: Bool) -> String {
            guard color, !ranges.isEmpty else { return text }
            var scalars = Array(text.unicodeScalars)
            for r in ranges.reversed() where r.count == 2 && r[0] >= 0 && r[1] <= scalars.count && r[0] < r[1] {
                scalars.insert(contentsOf: "\u{1B}[0m".unicodeScalars, at: r[1])
                scalars.insert(contentsOf: "\u{1B}[1;33m".unicodeScalars, at: r[0])
            }
            return String(String.UnicodeScalarView(scalars))
        }
    }
}
