import ArgumentParser
import TKCore

extension TKAgent {
    struct Skip: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "skip",
            abstract: "Mark a suggestion skipped."
        )
        @Argument(help: ArgumentHelp("The suggestion id (or FILE then ID).", valueName: "id-or-file")) var first: String
        @Argument(help: ArgumentHelp("The suggestion id when FILE is given first.", valueName: "id")) var second: String?
        @OptionGroup var output: OutputOptions

        func run() async throws {
            try SuggestionLookup.decide(first: first, second: second, status: .skipped, replacement: nil, json: output.json)
        }
    }
}
