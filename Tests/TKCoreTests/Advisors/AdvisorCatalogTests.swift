import Foundation
import Testing
@testable import TKCore

@Suite struct AdvisorCatalogTests {
    @Test func shippedResourcesLoadFromTheBundle() {
        let shared = BuiltInCatalog.shared
        #expect(shared.source == .bundle)
        #expect(shared.catalog.problems.isEmpty)
        #expect(shared.catalog.roles.map(\.id) == AdvisorCatalog.builtInRoleIDs)
        #expect(shared.catalog.storyTypes.map(\.id) == AdvisorCatalog.storyTypeIDs)
    }

    @Test func embeddedCopyMatchesTheResources() throws {
        let roles = try #require(BuiltInCatalog.resourceBytes("roles"))
        let types = try #require(BuiltInCatalog.resourceBytes("story_types"))
        #expect(try JSONValue.parse(roles) == JSONValue.parse(Array(EmbeddedCatalog.roles.utf8)),
                "EmbeddedCatalog.swift is out of date: regenerate it from Advisors/Resources/roles.json")
        #expect(try JSONValue.parse(types) == JSONValue.parse(Array(EmbeddedCatalog.storyTypes.utf8)),
                "EmbeddedCatalog.swift is out of date: regenerate it from Advisors/Resources/story_types.json")
    }

    @Test("story types have the contract's names and default advisors", arguments: [
        ("blog_personal", "Blog (Personal)", ["creative_writer", "editor"]),
        ("blog_professional", "Blog (Professional)", ["technical_writer", "ux_writer", "editor"]),
        ("brd_prd", "BRD / PRD", ["product_executive", "business_analyst", "recent_graduate"]),
        ("creative_fiction", "Creative Fiction", ["creative_writer", "editor"]),
        ("biography", "Biography", ["creative_writer", "academic_researcher", "editor"]),
        ("academic_paper", "Academic Paper", ["academic_researcher", "editor", "data_scientist"]),
        ("marketing_copy", "Marketing Copy", ["copywriter", "ux_writer", "editor"]),
        ("technical_docs", "Technical Docs", ["technical_writer", "editor", "recent_graduate"]),
        ("email_memo", "Email / Memo", ["ux_writer", "editor"]),
    ])
    func storyTypes(id: String, name: String, advisors: [String]) throws {
        let t = try #require(AdvisorCatalog.builtIn.storyType(id))
        #expect(t.name == name)
        #expect(t.defaultAdvisors == advisors)
        #expect(t.genreContext.count > 200)
        #expect(!t.description.isEmpty)
        for stage in DraftStage.allCases { #expect(t.reviewFocus[stage].count > 40) }
        #expect(!t.keywords.isEmpty)
    }

    @Test("sentence limits per story type", arguments: [
        ("email_memo", 20), ("technical_docs", 25), ("academic_paper", 35), ("creative_fiction", 40), ("blog_personal", 30),
    ])
    func thresholds(id: String, words: Int) throws {
        #expect(try #require(AdvisorCatalog.builtIn.storyType(id)).thresholds.maxSentenceWords == words)
        #expect(HeuristicThresholds.default.maxSentenceWords == 30)
    }

    @Test("every built-in role is complete", arguments: AdvisorCatalog.builtInRoleIDs)
    func roleIsComplete(id: String) throws {
        let r = try #require(AdvisorCatalog.builtIn.role(id))
        #expect(!r.name.isEmpty && !r.description.isEmpty && !r.custom)
        #expect(!r.description.contains("\n"))
        #expect(!r.expertise.isEmpty)
        #expect((3...5).contains(r.focusAreas.count))
        #expect(r.voiceAndTone.count > 150)
        #expect(r.guidelines.count >= 3)
        #expect(r.quickTips.count >= 4)
        for tip in r.quickTips {
            #expect(!tip.phrase.isEmpty && tip.phrase == tip.phrase.trimmingCharacters(in: .whitespaces))
            #expect(!tip.message.isEmpty)
            #expect(tip.replacement != "", "use null for no replacement")
        }
    }

    @Test("role quick tips the heuristics engine relies on", arguments: [
        ("technical_writer", "simply"), ("technical_writer", "just"), ("technical_writer", "obviously"),
        ("ux_writer", "click here"), ("ux_writer", "please note"), ("academic_researcher", "prove"),
        ("copywriter", "best-in-class"), ("copywriter", "world-class"),
    ])
    func quickTip(role: String, phrase: String) throws {
        let r = try #require(AdvisorCatalog.builtIn.role(role))
        #expect(r.quickTips.contains { $0.phrase == phrase })
    }

    @Test func resolveAdvisors() throws {
        let c = AdvisorCatalog.builtIn
        #expect(try c.resolveAdvisors(["editor", " ux_writer ", "editor", "Copywriter"]).map(\.id)
            == ["editor", "ux_writer", "copywriter"])
        #expect(try c.resolveAdvisors([]).isEmpty)
        do {
            _ = try c.resolveAdvisors(["editor", "wizard"])
            Issue.record("expected an error")
        } catch {
            #expect(error == .unknownRole(id: "wizard", valid: AdvisorCatalog.builtInRoleIDs))
            #expect(error.description.contains("\"wizard\""))
            #expect(error.description.contains("academic_researcher"))
        }
        #expect(throws: AdvisorError.self) { try c.resolveStoryType("poetry") }
        #expect(try c.resolveStoryType("Email_Memo").id == "email_memo")
    }

    @Test func brokenOrMissingResourcesGiveAnEmptyCatalogWithProblems() {
        let missing = BuiltInCatalog.decode(rolesJSON: nil, storyTypesJSON: nil)
        #expect(missing.roles.isEmpty && missing.storyTypes.isEmpty)
        #expect(missing.problems.count == 2)
        let broken = BuiltInCatalog.decode(rolesJSON: Array(#"{"roles": [{"id": "x"}]}"#.utf8),
                                           storyTypesJSON: Array("[1, 2".utf8))
        #expect(broken.roles.isEmpty && broken.storyTypes.isEmpty)
        #expect(broken.problems.count == 2)
        #expect(broken.problems[0].contains("missing \"name\""))
        let badAdvisor = BuiltInCatalog.decode(
            rolesJSON: Array(#"{"roles": []}"#.utf8),
            storyTypesJSON: Array(#"{"story_types": [{"id": "t", "name": "T", "default_advisors": ["ghost"]}]}"#.utf8))
        #expect(badAdvisor.storyTypes.count == 1)
        #expect(badAdvisor.problems == ["story type \"t\" names unknown default advisor \"ghost\""])
    }

    @Test func jsonShapes() throws {
        let roles = try JSONValue.parse(JSON.encode(AdvisorCatalog.builtIn.roles))
        let first = try #require(roles.arrayValue?.first?.objectValue)
        for key in ["id", "name", "description", "focus_areas", "voice_and_tone", "guidelines", "quick_tips", "custom"] {
            #expect(first[key] != nil, "roles list --json lacks \(key)")
        }
        let types = try JSONValue.parse(JSON.encode(AdvisorCatalog.builtIn.storyTypes))
        let t = try #require(types.arrayValue?.first?.objectValue)
        for key in ["id", "name", "default_advisors", "genre_context", "thresholds", "review_focus"] {
            #expect(t[key] != nil, "story-types list --json lacks \(key)")
        }
        #expect(t["thresholds"]?["max_sentence_words"] != nil)
    }
}

@Suite struct StoryTypeAssemblerTests {
    @Test("keyword recommendations", arguments: [
        ("API reference documentation and an install guide for our CLI", "technical_docs"),
        ("A short story about a lighthouse keeper, chapter one of a novel", "creative_fiction"),
        ("Landing page copy for the launch of our product", "marketing_copy"),
        ("PRD for the new billing feature with acceptance criteria", "brd_prd"),
        ("A memo to the team about the office move", "email_memo"),
        ("My PhD thesis chapter on soil microbes, with a literature review", "academic_paper"),
        ("A biography of my grandmother", "biography"),
        ("Hello world", "blog_personal"),
    ])
    func recommends(description: String, expected: String) throws {
        let r = try #require(StoryTypeAssembler.heuristicRecommendation(description: description))
        #expect(r.storyType.id == expected)
        #expect(Array(r.advisors.map(\.roleId).prefix(r.storyType.defaultAdvisors.count)) == r.storyType.defaultAdvisors)
        #expect(r.advisors.count <= StoryTypeAssembler.maxAdvisors)
        #expect(r.advisors.allSatisfy { !$0.reason.isEmpty })
        #expect(r.genreContext == r.storyType.genreContext)
    }

    @Test func addsAnAdvisorTheDescriptionCallsFor() throws {
        let r = try #require(StoryTypeAssembler.heuristicRecommendation(
            description: "A professional blog post on our engineering blog about A/B test statistics and metrics"))
        #expect(r.storyType.id == "blog_professional")
        #expect(r.advisors.map(\.roleId).contains("data_scientist"))
    }

    @Test func emptyCatalogGivesNothing() {
        #expect(StoryTypeAssembler.heuristicRecommendation(description: "x", catalog: AdvisorCatalog()) == nil)
    }

    @Test func encodesTheAssembleShape() throws {
        let r = try #require(StoryTypeAssembler.heuristicRecommendation(description: "email"))
        let v = try JSONValue.parse(JSON.encode(r))
        #expect(v["story_type"] == .string("email_memo"))
        #expect(v["advisors"]?.arrayValue?.first?["id"] == .string("ux_writer"))
        #expect(v["genre_context"]?.stringValue?.isEmpty == false)
    }
}

/// The catalog's part of every derivation key: the built-in catalog is digested from the files it
/// was decoded from, and anything else about a catalog still changes the digest.
@Suite struct CatalogDigestTests {
    @Test func everyChangeToTheCatalogChangesItsDigest() throws {
        let builtIn = AdvisorCatalog.builtIn
        let base = ProjectInputs.digest(builtIn)
        #expect(ProjectInputs.digest(builtIn) == base)

        var withCustom = builtIn
        var custom = try #require(builtIn.roles.first)
        custom.id = "house_editor"; custom.custom = true
        withCustom.roles.append(custom)
        let customDigest = ProjectInputs.digest(withCustom)
        #expect(customDigest != base)
        var otherCustom = withCustom
        otherCustom.roles[otherCustom.roles.count - 1].guidelines.append("Prefer short words.")
        #expect(ProjectInputs.digest(otherCustom) != customDigest)

        var editedRole = builtIn
        editedRole.roles[0].quickTips.append(QuickTip(phrase: "synergy", message: "Say what you mean.", category: .wordy))
        #expect(ProjectInputs.digest(editedRole) != base)

        var editedType = builtIn
        try #require(!editedType.storyTypes.isEmpty)
        editedType.storyTypes[0].defaultAdvisors.append("editor")
        #expect(ProjectInputs.digest(editedType) != base)

        var fewer = builtIn
        fewer.roles.removeLast()
        #expect(ProjectInputs.digest(fewer) != base)
    }

    @Test func theBuiltInDigestFollowsItsFiles() {
        let a = BuiltInCatalog.digest(roles: Array(#"{"roles":[]}"#.utf8), storyTypes: Array(#"{"story_types":[]}"#.utf8))
        let b = BuiltInCatalog.digest(roles: Array(#"{"roles": []}"#.utf8), storyTypes: Array(#"{"story_types":[]}"#.utf8))
        let c = BuiltInCatalog.digest(roles: Array(#"{"roles":[]}"#.utf8), storyTypes: Array(#"{"story_types": []}"#.utf8))
        #expect(a != b && a != c && b != c)
    }
}
