import Foundation
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

    @Test func storyTypeLimitsAreDefaultsFromTheOneTableThatAnExplicitSettingLoosens() {
        let table = AdvisorCatalog.builtIn.storyType("creative_fiction")!.thresholds
        let s = resolve(tk: TKBlock(storyType: "creative_fiction"))
        #expect(s.heuristics.maxSentenceWords == table.maxSentenceWords)
        #expect(table.maxGrade == nil && s.heuristics.maxGrade == HeuristicsOptions.noGradeLimit)
        // The writer's explicit limit wins, looser or stricter.
        var config = Configuration.defaults
        config.heuristics.maxSentenceWords = 40
        let docs = DocumentSettings.resolve(frontMatter: TKBlock(storyType: "technical_docs"), overrides: nil, config: config,
                                            configured: ["heuristics.max_sentence_words"], catalog: .builtIn)
        #expect(docs.heuristics.maxSentenceWords == 40)
        #expect(resolve(tk: TKBlock(storyType: "technical_docs")).heuristics.maxSentenceWords
                == AdvisorCatalog.builtIn.storyType("technical_docs")!.thresholds.maxSentenceWords)
        // Without a story type the configured or built-in value applies.
        #expect(resolve().heuristics.maxSentenceWords == Configuration.defaults.heuristics.maxSentenceWords)
    }

    @Test func projectKeyCoversEveryProjectWideInput() {
        let catalog = AdvisorCatalog.builtIn
        func key(_ c: Configuration, _ words: ProjectWords = ProjectWords(), configured: Set<String> = []) -> String {
            var loaded = LoadedConfiguration.given(c)
            for k in configured { loaded.sources[k] = .project }
            return ProjectInputs(root: PathBytes("/p"), loaded: loaded, words: words, catalog: catalog).key
        }
        let base = Configuration.defaults
        let a = key(base)
        var c = base
        c.heuristics.maxSentenceWords = 12
        #expect(key(c) != a)
        c = base; c.heuristics.lang = "en_GB"
        #expect(key(c) != a)
        c = base; c.heuristics.spelling = false
        #expect(key(c) != a)
        #expect(key(base, ProjectWords(dictionary: ["zorblax"])) != a)
        #expect(key(base, ProjectWords(names: ["elowen"])) != a)
        #expect(key(base, configured: ["heuristics.max_grade"]) != a)
        // Settings no derived result depends on leave it alone.
        c = base; c.watch.settleMs = 5
        #expect(key(c) == a)
        #expect(key(base, ProjectWords(names: ["elowen"])) == key(base, ProjectWords(names: ["elowen"])))
    }
}

@Suite struct ProjectWordsCurrentTests {
    @Test func aNameUsedAThirdTimeCountsAndTheDictionaryIsReadAgain() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tk-words-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url.appendingPathComponent(".tk"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        let root = PathBytes(url.path)
        try "Vellamir came. Elowen went.\n".write(to: url.appendingPathComponent("a.md"), atomically: true, encoding: .utf8)
        try "Vellamir stayed.\n".write(to: url.appendingPathComponent("b.md"), atomically: true, encoding: .utf8)
        let first = ProjectWords.current(project: root)
        #expect(!first.names.contains("vellamir"))
        #expect(first == ProjectWords.scan(project: root))
        try "Vellamir left.\n".write(to: url.appendingPathComponent("c.md"), atomically: true, encoding: .utf8)
        let second = ProjectWords.current(project: root)
        #expect(second.names.contains("vellamir"))
        #expect(second == ProjectWords.scan(project: root))
        try "quenth\n".write(to: url.appendingPathComponent(".tk/dictionary.txt"), atomically: true, encoding: .utf8)
        #expect(ProjectWords.current(project: root).dictionary.contains("quenth"))
        try FileManager.default.removeItem(at: url.appendingPathComponent("c.md"))
        #expect(!ProjectWords.current(project: root).names.contains("vellamir"))
    }
}
