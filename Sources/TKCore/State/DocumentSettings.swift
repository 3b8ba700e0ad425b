import Foundation

/// What applies to one document: its story type, advisors, draft stage, whether it may be sent for
/// review, and the options of its quick heuristics.
///
/// `resolve` is the one place that answers this. Each value comes from the first source that sets it:
/// command-line flags › the document's `tk:` front matter › `tk-agent journey set` (the sidecar's
/// `journey.overrides`) › the project's `.tk/config.json` › the user config › the story type's
/// defaults. (The project and user configs arrive merged, as `ConfigurationStore.load(project:)`
/// returns them.) The agent's sidecars, `check`, `suggest`, `review`, the prompts and the journey
/// all call it, so they cannot disagree.
///
/// One rule for the advisors' quick tips: the tips of the resolved advisors are part of the quick
/// heuristics, for `check` as for the agent's sidecar.
public struct DocumentSettings: Sendable, Equatable {
    /// A story type id (not checked against the catalog; an unknown id selects no defaults).
    public var storyType: String?
    /// Advisor ids, in order, without duplicates.
    public var advisors: [String]
    /// Parsed once here, case-insensitively; an unknown value is nil.
    public var draftStage: DraftStage?
    /// False when the front matter says `review: false`: never send this document to an LLM
    /// (`ReviewPolicy.exclusion` adds the `review.exclude` globs, which depend on the path).
    public var review: Bool
    /// The quick heuristics' options (the story type's limits and the advisors' tips included).
    public var heuristics: HeuristicsOptions

    /// Values given on the command line (`--story-type`, `--advisors`, `--draft-stage`).
    public struct Flags: Sendable, Equatable {
        public var storyType: String?
        public var advisors: [String]?
        public var draftStage: String?
        public init(storyType: String? = nil, advisors: [String]? = nil, draftStage: String? = nil) {
            self.storyType = storyType; self.advisors = advisors; self.draftStage = draftStage
        }
    }

    /// Resolves a document's settings (see the type's comment for the order).
    /// - Parameters:
    ///   - flags: command-line values; empty lists count as not given.
    ///   - frontMatter: the document's `tk:` block.
    ///   - overrides: what `journey set` recorded in the document's sidecar, if anything.
    ///   - config: the project's configuration merged over the user's.
    ///   - configured: the dotted keys the user or project configuration set (see
    ///     `LoadedConfiguration.configured`): those limits win over the story type's.
    ///   - catalog: the advisors and story types (the story type's default advisors and limits, the tips).
    public static func resolve(flags: Flags = Flags(), frontMatter tk: TKBlock, overrides: JourneyOverrides?,
                               config: Configuration, configured: Set<String> = [],
                               catalog: AdvisorCatalog) -> DocumentSettings {
        let o = overrides ?? JourneyOverrides()
        let storyType = flags.storyType ?? tk.storyType ?? o.storyType ?? config.storyType
        let candidates: [[String]?] = [flags.advisors, tk.advisors, o.advisors, config.advisors,
                                       catalog.storyType(storyType ?? "")?.defaultAdvisors]
        let chosen = candidates.lazy.compactMap { $0 }.first { !$0.isEmpty } ?? []
        var seen = Set<String>()
        let advisors = chosen.filter { seen.insert($0).inserted }
        let draftStage = normalisedDraftStage(flags.draftStage) ?? normalisedDraftStage(tk.draftStage) ?? o.draftStage
            ?? normalisedDraftStage(config.draftStage)
        let tips = advisors.compactMap { catalog.role($0) }.flatMap { role in
            role.quickTips.map { tip in
                PhraseRule(phrase: tip.phrase, message: tip.message, category: tip.category,
                           rule: "tip.\(role.id)", replacements: tip.replacement.map { [$0] } ?? [])
            }
        }
        return DocumentSettings(
            storyType: storyType, advisors: advisors, draftStage: draftStage,
            review: tk.review != false,
            heuristics: HeuristicsOptions(configuration: config.heuristics, storyType: storyType, thresholds: catalog.storyType(storyType ?? "")?.thresholds,
                                          configured: configured, extraRules: tips))
    }

    /// A draft stage as written by a user (`"Late"`, `" early "`), or nil when it is not one.
    public static func normalisedDraftStage(_ s: String?) -> DraftStage? {
        guard let s else { return nil }
        return DraftStage(rawValue: s.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
