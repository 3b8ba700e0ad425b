import Testing
@testable import TKCore

@Suite struct DocumentSettingsTests {
    func resolve(flags: DocumentSettings.Flags = .init(), tk: TKBlock = TKBlock(), overrides: JourneyOverrides? = nil,
                 config: Configuration = .defaults) -> DocumentSettings {
        DocumentSettings.resolve(flags: flags, frontMatter: tk, overrides: overrides, config: config, catalog: .builtIn)
    }

    @Test func storyTypeFollowsFlagsFrontMatterJourneySetConfig() {
        var config = Configuration.defaults
        config.storyType = "biography"
        let tk = TKBlock(storyType: "technical_docs")
        let set = JourneyOverrides(storyType: "academic_paper")
        #expect(resolve(config: config).storyType == "biography")
        #expect(resolve(overrides: set, config: config).storyType == "academic_paper")
        #expect(resolve(tk: tk, overrides: set, config: config).storyType == "technical_docs")
        #expect(resolve(flags: .init(storyType: "email_memo"), tk: tk, overrides: set, config: config).storyType == "email_memo")
    }

    @Test func advisorsFollowTheSameOrderThenTheStoryTypeDefaults() {
        var config = Configuration.defaults
        #expect(resolve(tk: TKBlock(storyType: "email_memo")).advisors == ["ux_writer", "editor"])
        config.advisors = ["copywriter"]
        #expect(resolve(tk: TKBlock(storyType: "email_memo"), config: config).advisors == ["copywriter"])
        let set = JourneyOverrides(advisors: ["technical_writer"])
        #expect(resolve(overrides: set, config: config).advisors == ["technical_writer"])
        #expect(resolve(tk: TKBlock(advisors: ["editor", "editor"]), overrides: set, config: config).advisors == ["editor"])
        #expect(resolve(flags: .init(advisors: ["ux_writer"]), tk: TKBlock(advisors: ["editor"])).advisors == ["ux_writer"])
        // An empty list counts as not given.
        #expect(resolve(flags: .init(advisors: []), tk: TKBlock(advisors: ["editor"])).advisors == ["editor"])
    }

    @Test func draftStageIsNormalisedOnceWhereverItComesFrom() {
        var config = Configuration.defaults
        config.draftStage = "Late"
        #expect(resolve(config: config).draftStage == .late)
        #expect(resolve(overrides: JourneyOverrides(draftStage: .middle), config: config).draftStage == .middle)
        #expect(resolve(tk: TKBlock(draftStage: " EARLY "), overrides: JourneyOverrides(draftStage: .middle)).draftStage == .early)
        #expect(resolve(flags: .init(draftStage: "middle"), tk: TKBlock(draftStage: "early")).draftStage == .middle)
        #expect(resolve(tk: TKBlock(draftStage: "someday")).draftStage == nil)
    }

    @Test func reviewIsOffByFrontMatter() {
        #expect(resolve().review)
        #expect(!resolve(tk: TKBlock(review: false)).review)
    }

    @Test func heuristicsTakeTheStoryTypeLimitsAndTheAdvisorsTips() {
        let s = resolve(tk: TKBlock(storyType: "email_memo"))
        #expect(s.heuristics.maxSentenceWords == 20)
        let tipRules = Set(s.heuristics.extraRules.map(\.rule))
        let expected = Set(["ux_writer", "editor"].compactMap { AdvisorCatalog.builtIn.role($0) }
            .filter { !$0.quickTips.isEmpty }.map { "tip.\($0.id)" })
        #expect(tipRules == expected)
        // `journey set` changes the heuristics too (it was ignored by them once).
        let set = resolve(overrides: JourneyOverrides(storyType: "email_memo"))
        #expect(set.heuristics == s.heuristics)
    }

    @Test func projectDigestChangesWithTheSettingsThatShapeDerivedState() {
        var config = Configuration.defaults
        let a = DocumentSettings.projectDigest(config)
        config.heuristics.maxSentenceWords = 12
        #expect(DocumentSettings.projectDigest(config) != a)
        config = .defaults
        config.watch.settleMs = 5
        #expect(DocumentSettings.projectDigest(config) == a)
    }
}
