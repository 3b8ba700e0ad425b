import ArgumentParser
import TKCore

extension TKAgent {
    struct Suggest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "suggest",
            abstract: "Ask advisors for concrete rewrites of a text."
        )

        func run() async throws {
            throw CLIError("suggest: not implemented yet")
        }
    }
}
