import ArgumentParser
import TKCore

extension TKAgent {
    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Apply your own wording for a suggestion."
        )

        func run() async throws {
            throw CLIError("edit: not implemented yet")
        }
    }
}
