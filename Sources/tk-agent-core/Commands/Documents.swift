import ArgumentParser
import Foundation
import TKCore

extension TKAgent {
    struct Documents: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "documents",
            abstract: "List the indexed documents."
        )
        @Option(name: .long, help: "Only this project folder.", completion: .directory) var project: String?
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let db = try openDatabase()
            if let project { _ = try KnownProject.require(project, database: db) }
            var summaries = try db.documentSummaries(project: project.map { FileSystem.absolute($0) })
            let facts = (try? db.journeyFacts()) ?? [:]
            var sidecarReads = 0
            for i in summaries.indices {
                let root = FileSystem.absolute(summaries[i].project)
                var fact = facts[root.appending(summaries[i].path)]
                if fact == nil, sidecarReads < 1000 {
                    // Not processed by the agent yet (or the data folder is new): what the sidecar says.
                    sidecarReads += 1
                    fact = JourneyFact.fromSidecar(project: root, document: PathBytes(summaries[i].path))
                }
                guard let fact else { continue }
                summaries[i].stage = fact.stage.rawValue
                summaries[i].pendingSuggestions = fact.pendingSuggestions
            }
            if output.json {
                print(JSON.string(summaries))
                return
            }
            if summaries.isEmpty {
                printError("no documents indexed yet: run `tk-agent index PATH` or `tk-agent run`")
                return
            }
            var lastProject = ""
            for s in summaries {
                if s.project != lastProject { print(s.project); lastProject = s.project }
                let stage = s.stage.map { "  [\($0)]" } ?? ""
                let pending = s.pendingSuggestions > 0 ? "  \(s.pendingSuggestions) pending" : ""
                print("  \(s.path)  \(s.title)  (\(s.words) words)\(stage)\(pending)")
            }
        }
    }
}

/// Opens the shared database with one clear error line when it cannot.
func openDatabase() throws -> AppDatabase {
    do { return try AppDatabase.open(paths: Paths.resolve()) } catch {
        throw CLIError("cannot open the index database in \(Paths.resolve().dataDirectory.display): \(error)")
    }
}
