import ArgumentParser
import TKCore

extension TKAgent {
    struct Review: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "review",
            abstract: "Queue (or run) an LLM review round for a document."
        )

        func run() async throws {
            throw CLIError("review: not implemented yet")
        }
    }
}
