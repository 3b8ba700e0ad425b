import ArgumentParser
import TKCore

extension TKAgent {
    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Full-text search across every project."
        )

        func run() async throws {
            throw CLIError("search: not implemented yet")
        }
    }
}
