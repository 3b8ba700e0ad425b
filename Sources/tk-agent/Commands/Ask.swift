import ArgumentParser
import TKCore

extension TKAgent {
    struct Ask: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ask",
            abstract: "Ask an advisor a question about a text."
        )

        func run() async throws {
            throw CLIError("ask: not implemented yet")
        }
    }
}
