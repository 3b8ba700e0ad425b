import Foundation
import ArgumentParser
import TKCore
import TKSearch

@main
struct TKAgent: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tk-agent",
        abstract: "A writing agent that watches your markdown, indexes it and reviews it.",
        version: TKVersion.string,
        subcommands: [ProviderCheck.self, SpellingAgreementCommand.self],
        groupedSubcommands: [
            CommandGroup(name: "Agent", subcommands: [Run.self, Watch.self, Status.self, Index.self]),
            CommandGroup(name: "Find", subcommands: [Search.self, Documents.self]),
            CommandGroup(name: "Review", subcommands: [
                Check.self, Review.self, Suggestions.self, Accept.self, Skip.self, Edit.self, Journey.self, Usage.self,
            ]),
            CommandGroup(name: "Write", subcommands: [Suggest.self, Council.self, Ask.self, Pipe.self, Export.self]),
            CommandGroup(name: "Progress", subcommands: [Progress.self, Snapshot.self, History.self, Diff.self, Restore.self]),
            CommandGroup(name: "Setup", subcommands: [Roles.self, StoryTypes.self, Config.self, Doctor.self]),
            CommandGroup(name: "Editors", subcommands: [Lsp.self]),
        ]
    )

    static func main() async {
        // Before the first database opens (SQLite's settings are fixed once it initialises).
        SQLiteSettings.disableMemoryStatistics()
        // A database from a newer version: one line and exit 1 (never read or migrate it).
        let args = CommandLine.arguments.dropFirst()
        if args.first == "check" { Check.prefetchValeStyles() }
        if !args.contains(where: { ["-h", "--help", "--version", "help"].contains($0) }),
           let problem = AppDatabase.newerDatabaseProblem(paths: Paths.resolve()) {
            FileHandle.standardError.write(Data((problem + "\n").utf8))
            Foundation.exit(1)
        }
        // `check`'s plain command lines skip ArgumentParser's parse; it runs and ends as `main` would.
        if args.first == "check", let check = Check.quickParse(Array(args.dropFirst())) {
            do { try await check.run() } catch { exit(withError: error) }
            return
        }
        // So are a project question's (`ask Q --project P`, the editor's and the terminal's).
        if args.first == "ask", let ask = Ask.quickParse(Array(args.dropFirst())) {
            do { try await ask.run() } catch { exit(withError: error) }
            return
        }
        await main(nil)
    }
}
