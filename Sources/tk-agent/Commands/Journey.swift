import ArgumentParser
import TKCore

extension TKAgent {
    struct Journey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "journey",
            abstract: "Show or set a document's journey."
        )

        func run() async throws {
            throw CLIError("journey: not implemented yet")
        }
    }
}
