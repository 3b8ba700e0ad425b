import ArgumentParser
import TKCore

extension TKAgent {
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Manage the persistent list of watched projects."
        )

        func run() async throws {
            throw CLIError("watch: not implemented yet")
        }
    }
}
