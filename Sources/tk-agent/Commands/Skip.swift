import ArgumentParser
import TKCore

extension TKAgent {
    struct Skip: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "skip",
            abstract: "Mark a suggestion skipped."
        )

        func run() async throws {
            throw CLIError("skip: not implemented yet")
        }
    }
}
