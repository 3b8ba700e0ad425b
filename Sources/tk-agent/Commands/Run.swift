import ArgumentParser
import TKCore

extension TKAgent {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Run the agent in the foreground (what systemd runs)."
        )

        func run() async throws {
            throw CLIError("run: not implemented yet")
        }
    }
}
