import ArgumentParser
import TKCore

extension TKAgent {
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Run the quick prose heuristics on files, folders or standard input."
        )

        func run() async throws {
            throw CLIError("check: not implemented yet")
        }
    }
}
