import ArgumentParser
import TKCore

extension TKAgent {
    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "accept",
            abstract: "Mark a suggestion accepted (or apply it with --apply)."
        )

        func run() async throws {
            throw CLIError("accept: not implemented yet")
        }
    }
}
