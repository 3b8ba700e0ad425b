import ArgumentParser
import TKCore

extension TKAgent {
    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Apply your own wording for a suggestion.",
            discussion: """
                Your text replaces the original passage in the document (atomically), only when the passage \
                still stands exactly where the suggestion says; otherwise nothing changes and the exit status \
                is 1. The suggestion is then marked edited.
                """
        )
        @Argument(help: ArgumentHelp("The suggestion id (or FILE then ID).", valueName: "id-or-file")) var first: String
        @Argument(help: ArgumentHelp("The suggestion id when FILE is given first.", valueName: "id")) var second: String?
        @Option(name: .long, help: "Your wording for the passage.") var text: String
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try SuggestionLookup.decide(first: first, second: second, status: .edited, replacement: .text(text), json: output.json)
        }
    }
}
