import ArgumentParser
import TKCore

extension TKAgent {
    struct Config: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "config",
            abstract: "Show, get and set configuration."
        )

        func run() async throws {
            throw CLIError("config: not implemented yet")
        }
    }
}
