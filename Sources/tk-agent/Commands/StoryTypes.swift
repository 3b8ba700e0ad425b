import ArgumentParser
import TKCore

extension TKAgent {
    struct StoryTypes: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "story-types",
            abstract: "List, show and assemble story types."
        )

        func run() async throws {
            throw CLIError("story-types: not implemented yet")
        }
    }
}
