import ArgumentParser
import Foundation
import TKCore

extension TKAgent {
    struct Journey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "journey",
            abstract: "Show or set a document's journey.",
            subcommands: [Show.self, Set.self]
        )
    }
}

extension TKAgent.Journey {
    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Show a document's stage, draft stage, story type, advisors, revision cycle and stats."
        )
        @Argument(help: "The document.", completion: .file(extensions: ["md", "markdown"])) var file: String
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let (loc, sidecar) = try SuggestionLookup.current(file: file, actions: SuggestionLookup.actions())
            let out = JourneyOutput(project: loc.project.display, document: loc.relative.display, sidecar: sidecar)
            if output.json {
                print(JSON.string(out))
            } else {
                print(out.text)
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set",
            abstract: "Set a document's stage, story type, advisors or draft stage.",
            discussion: """
                The document's `tk:` front matter still wins over what is set here; the project config is \
                the fallback. A final document gets no automatic review rounds.
                """
        )
        @Argument(help: "The document.", completion: .file(extensions: ["md", "markdown"])) var file: String
        @Option(name: .long, help: "canvas, draft, revise or final.") var stage: String?
        @Option(name: .customLong("story-type"), help: "A story type id (see `tk-agent story-types list`).") var storyType: String?
        @Option(name: .long, help: "Advisor role ids, comma-separated (see `tk-agent roles list`).") var advisors: String?
        @Option(name: .customLong("draft-stage"), help: "early, middle or late.") var draftStage: String?
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if stage == nil && storyType == nil && advisors == nil && draftStage == nil {
                throw ValidationError("Give at least one of --stage, --story-type, --advisors, --draft-stage.")
            }
        }

        func run() async throws {
            let actions = SuggestionLookup.actions()
            let loc = try SuggestionLookup.locate(file: file, actions: actions)
            let list = advisors.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
            let outcome: SidecarStore.Outcome
            let tk: TKBlock
            do {
                (outcome, tk) = try actions.setJourney(loc, stage: stage, storyType: storyType, advisors: list,
                                                       draftStage: draftStage)
            } catch let e as JourneyError {
                throw CLIError(e.description)
            } catch {
                throw CLIError("\(file): \(error)")
            }
            if let problem = outcome.problem { printError("warning: \(problem)") }
            if stage != nil, let bytes = try? FileSystem.read(loc.absolute, limit: 64 << 20) {
                HistoryCLI.snapshotBeforeWrite(loc.absolute, bytes: bytes, reason: "stage")
            }
            SuggestionLookup.nudgeAgent()
            var notes: [String] = []
            if storyType != nil, tk.storyType != nil { notes.append("story_type") }
            if list != nil, !tk.advisors.isEmpty { notes.append("advisors") }
            if draftStage != nil, tk.draftStage != nil { notes.append("draft_stage") }
            if stage != nil, tk.stage != nil { notes.append("stage") }
            if !notes.isEmpty {
                printError("note: the tk: front matter of \(loc.relative.display) sets \(notes.joined(separator: ", ")), which wins at its next save")
            }
            let out = JourneyOutput(project: loc.project.display, document: loc.relative.display, sidecar: outcome.sidecar)
            print(output.json ? JSON.string(out) : out.text)
        }
    }
}

/// `journey show --json`.
struct JourneyOutput: Encodable {
    var project: String
    var document: String
    var sidecar: ReviewSidecar

    enum Key: String, CodingKey {
        case project, document, stage, advisors, stats, overrides
        case draftStage = "draft_stage", storyType = "story_type", revisionCycle = "revision_cycle"
        case cycleStats = "cycle_stats", pending = "pending_suggestions", rounds
    }

    func encode(to encoder: any Encoder) throws {
        let j = sidecar.journey
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(project, forKey: .project); try c.encode(document, forKey: .document)
        try c.encode(j.stage, forKey: .stage); try c.encode(j.draftStage, forKey: .draftStage)
        try c.encode(j.storyType, forKey: .storyType); try c.encode(j.advisors, forKey: .advisors)
        try c.encode(j.revisionCycle, forKey: .revisionCycle); try c.encode(j.stats, forKey: .stats)
        try c.encode(j.cycleStats ?? [:], forKey: .cycleStats)
        try c.encode(sidecar.suggestions.filter { $0.status == .pending }.count, forKey: .pending)
        try c.encode(sidecar.rounds.count, forKey: .rounds)
        try c.encodeIfPresent(j.overrides, forKey: .overrides)
    }

    var text: String {
        let j = sidecar.journey
        let pending = sidecar.suggestions.filter { $0.status == .pending }.count
        var lines = ["\(document) (\(project))"]
        lines.append("  stage:        \(j.stage.rawValue)")
        lines.append("  draft stage:  \(j.draftStage?.rawValue ?? "-")")
        lines.append("  story type:   \(j.storyType ?? "-")")
        lines.append("  advisors:     \(j.advisors.isEmpty ? "-" : j.advisors.joined(separator: ", "))")
        lines.append("  revision:     \(j.revisionCycle)")
        let s = j.stats
        lines.append("  suggestions:  \(s.received) received, \(s.accepted) accepted, \(s.edited) edited, \(s.skipped) skipped, \(pending) pending")
        for key in (j.cycleStats ?? [:]).keys.sorted(by: { (Int($0) ?? 0) < (Int($1) ?? 0) }) {
            guard let c = j.cycleStats?[key] else { continue }
            lines.append("    revision \(key): \(c.received) received, \(c.accepted) accepted, \(c.edited) edited, \(c.skipped) skipped")
        }
        return lines.joined(separator: "\n")
    }
}
