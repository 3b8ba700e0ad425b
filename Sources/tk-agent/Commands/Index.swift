import ArgumentParser
import TKCore

extension TKAgent {
    struct Index: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "index",
            abstract: "Bring the index up to date without the agent."
        )

        func run() async throws {
            throw CLIError("index: not implemented yet")
        }
    }
}
