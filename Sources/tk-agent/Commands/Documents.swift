import ArgumentParser
import TKCore

extension TKAgent {
    struct Documents: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "documents",
            abstract: "List the indexed documents."
        )

        func run() async throws {
            throw CLIError("documents: not implemented yet")
        }
    }
}
