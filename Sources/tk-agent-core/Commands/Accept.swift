import ArgumentParser
import TKCore

extension TKAgent {
    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "accept",
            abstract: "Mark a suggestion accepted (or apply it with --apply).",
            discussion: """
                With --apply the suggested text replaces the original passage in the document (atomically), \
                only when the passage still stands exactly where the suggestion says; otherwise nothing changes \
                and the exit status is 1. Give FILE ID to look in one document only.
                """
        )
        @Argument(help: ArgumentHelp("The suggestion id (or FILE then ID).", valueName: "id-or-file")) var first: String
        @Argument(help: ArgumentHelp("The suggestion id when FILE is given first.", valueName: "id")) var second: String?
        @Flag(name: .long, help: "Write the suggested text into the document.") var apply = false
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try SuggestionLookup.decide(first: first, second: second, status: .accepted,
                                        replacement: apply ? .suggested : nil, json: output.json)
        }
    }
}
