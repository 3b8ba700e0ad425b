import ArgumentParser
import Foundation
import TKCore

extension TKAgent {
    struct Suggestions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "suggestions",
            abstract: "List a document's suggestions."
        )
        @Argument(help: "The document.", completion: .file(extensions: ["md", "markdown"])) var file: String
        @Option(name: .long, help: "Only suggestions with this status (pending, accepted, edited, skipped).")
        var status: SuggestionStatus?
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let (loc, sidecar) = try SuggestionLookup.current(file: file, actions: SuggestionLookup.actions())
            let list = sidecar.suggestions.filter { status == nil || $0.status == status }
            if output.json {
                print(JSON.string(SuggestionsOutput(project: loc.project.display, document: loc.relative.display,
                                                    journey: sidecar.journey, suggestions: list)))
                return
            }
            let j = sidecar.journey
            let counts = SuggestionStatus.allCases.compactMap { st -> String? in
                let n = sidecar.suggestions.filter { $0.status == st }.count
                return n > 0 ? "\(n) \(st.rawValue)" : nil
            }
            print("\(loc.relative.display) — \(j.stage.rawValue), revision \(j.revisionCycle): "
                  + "\(sidecar.suggestions.count) suggestion\(sidecar.suggestions.count == 1 ? "" : "s")"
                  + (counts.isEmpty ? "" : " (\(counts.joined(separator: ", ")))"))
            for s in list {
                let place = s.line.map { l in "\(l):\(s.column ?? 1)" } ?? "-"
                print("  \(s.id)  \(s.status.rawValue)  \(place)  \(s.advisorId) · \(s.type.rawValue) · priority \(s.priority)")
                print("      \(Self.quote(s.originalText)) → \(Self.quote(s.suggestedText))")
                if !s.reasoning.isEmpty { print("      \(s.reasoning)") }
            }
        }

        static func quote(_ s: String) -> String {
            let flat = s.split(whereSeparator: \.isNewline).joined(separator: " ")
            return "“" + (flat.count > 120 ? String(flat.prefix(117)) + "…" : flat) + "”"
        }
    }
}

extension SuggestionStatus: ExpressibleByArgument {}

/// `suggestions --json`.
struct SuggestionsOutput: Encodable {
    var project: String
    var document: String
    var journey: JourneyState
    var suggestions: [Suggestion]
}
