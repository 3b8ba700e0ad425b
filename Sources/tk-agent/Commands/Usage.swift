import ArgumentParser
import TKCore

extension TKAgent {
    struct Usage: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "usage",
            abstract: "Token usage and cost by day, month and model."
        )

        func run() async throws {
            throw CLIError("usage: not implemented yet")
        }
    }
}
