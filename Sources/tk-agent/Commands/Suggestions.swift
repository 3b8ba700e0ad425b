import ArgumentParser
import TKCore

extension TKAgent {
    struct Suggestions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "suggestions",
            abstract: "List a document's suggestions."
        )

        func run() async throws {
            throw CLIError("suggestions: not implemented yet")
        }
    }
}
