import ArgumentParser
import TKCore

extension TKAgent {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show what the agent is doing."
        )

        func run() async throws {
            throw CLIError("status: not implemented yet")
        }
    }
}
