import ArgumentParser
import TKCore

extension TKAgent {
    struct Council: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "council",
            abstract: "Ask several advisors one question and synthesise their views."
        )

        func run() async throws {
            throw CLIError("council: not implemented yet")
        }
    }
}
