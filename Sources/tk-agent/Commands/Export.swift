import ArgumentParser
import TKCore

extension TKAgent {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Export a document as markdown, plain text or HTML."
        )

        func run() async throws {
            throw CLIError("export: not implemented yet")
        }
    }
}
