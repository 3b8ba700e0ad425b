import ArgumentParser
import TKCore

extension TKAgent {
    struct Pipe: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "pipe",
            abstract: "Print the text with suggestions applied."
        )

        func run() async throws {
            throw CLIError("pipe: not implemented yet")
        }
    }
}
