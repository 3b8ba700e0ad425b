import ArgumentParser
import TKCore

extension TKAgent {
    struct Roles: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "roles",
            abstract: "List, show, create and delete advisor roles."
        )

        func run() async throws {
            throw CLIError("roles: not implemented yet")
        }
    }
}
