import ArgumentParser
import Foundation
import TKCore

/// The advisors, story type and draft stage a writing command uses.
struct Team {
    var advisors: [Role]
    var storyType: StoryType?
    var draftStage: DraftStage?
}

/// Loading the catalog and turning advisor and story type names into roles, with one-line errors.
enum Writing {
    /// The built-in catalog plus custom roles; problems are kept for error messages.
    static func catalog() -> AdvisorCatalog {
        AdvisorCatalog.load(paths: Paths.resolve())
    }

    /// Splits `a,b , c` into ids.
    static func ids(_ list: String?) -> [String] {
        (list ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// The roles for ids; an unknown id (or a custom role whose file is broken) exits 64 with one line.
    static func roles(_ ids: [String], catalog: AdvisorCatalog) throws -> [Role] {
        do { return try catalog.resolveAdvisors(ids) } catch {
            if case .unknownRole(let id, _) = error,
               let problem = catalog.problems.first(where: { $0.contains(id) || (id.hasPrefix("custom_") && $0.contains(String(id.dropFirst(7)))) }) {
                let why = problem.hasSuffix("; skipped") ? String(problem.dropLast("; skipped".count)) : problem
                throw usageError("advisor \"\(id)\" cannot be used: \(why)")
            }
            throw usageError(error.description)
        }
    }

    static func storyType(_ id: String, catalog: AdvisorCatalog) throws -> StoryType {
        do { return try catalog.resolveStoryType(id) } catch { throw usageError(error.description) }
    }

    /// The team for a document, by `DocumentSettings.resolve`: flags › the document's `tk:` block ›
    /// `journey set` (when the document's sidecar is known) › the configuration › the story type's
    /// defaults › `general`. Flags naming unknown ids exit 64 with one line.
    static func team(catalog: AdvisorCatalog, advisorIDs: [String], storyTypeID: String?, document: MarkdownDocument?,
                     configuration: Configuration, overrides: JourneyOverrides? = nil) throws -> Team {
        if let id = storyTypeID { _ = try Self.storyType(id, catalog: catalog) }
        if !advisorIDs.isEmpty { _ = try roles(advisorIDs, catalog: catalog) }
        let settings = DocumentSettings.resolve(
            flags: .init(storyType: storyTypeID, advisors: advisorIDs.isEmpty ? nil : advisorIDs),
            frontMatter: document?.frontMatter.tk ?? TKBlock(), overrides: overrides, config: configuration, catalog: catalog)
        // A stale id in a document is not the writer's typing error: it is left out.
        let storyType = settings.storyType.flatMap { catalog.storyType($0) }
        var advisors = settings.advisors.compactMap { catalog.role($0) }
        if advisors.isEmpty, let general = catalog.role("general") { advisors = [general] }
        return Team(advisors: advisors, storyType: storyType, draftStage: settings.draftStage)
    }

    /// Asks the model to assemble a team for a description; falls back to the keyword matcher when the
    /// reply cannot be read.
    static func assemble(description: String, catalog: AdvisorCatalog, provider: any LLMProvider, model: String?)
        async throws -> (AssemblyResult, WritingUsage)
    {
        let prompt = PromptEngine.assemblePrompt(description: description, catalog: catalog)
        let req = LLMRequest(system: prompt.system, messages: [LLMMessage(role: .user, content: prompt.user)],
                             model: model, maxOutputTokens: 1024, jsonSchema: prompt.schema,
                             schemaName: prompt.schemaName ?? "assemble", stream: false)
        var usage = WritingUsage()
        let response: LLMResponse
        do { response = try await provider.complete(req) } catch { throw CLIError(error.message) }
        usage.add(response)
        let parsed = ReplyParser.parseAssembly(text: response.text, structured: response.structured, catalog: catalog)
        if let parsed, let typeID = parsed.storyType, let type = catalog.storyType(typeID) {
            var advisors = parsed.advisors
            if advisors.isEmpty {
                advisors = type.defaultAdvisors.map { RoleRecommendation(roleId: $0, reason: "Default advisor for \(type.name).") }
            }
            return (AssemblyResult(storyType: type, advisors: advisors,
                                   genreContext: parsed.genreContext.isEmpty ? type.genreContext : parsed.genreContext,
                                   source: "llm", problems: parsed.problems), usage)
        }
        guard let h = StoryTypeAssembler.heuristicRecommendation(description: description, catalog: catalog) else {
            throw CLIError("the model's recommendation could not be read and no story type is available")
        }
        var problems = parsed?.problems ?? []
        problems.append("the model's recommendation could not be read; used the built-in keyword matcher")
        return (AssemblyResult(storyType: h.storyType, advisors: h.advisors, genreContext: h.genreContext,
                               source: "heuristic", problems: problems), usage)
    }
}

/// A recommended story type and team.
struct AssemblyResult: Encodable {
    var storyType: StoryType
    var advisors: [RoleRecommendation]
    var genreContext: String
    /// `llm` or `heuristic`.
    var source: String
    var problems: [String]

    enum CodingKeys: String, CodingKey {
        case storyType = "story_type", advisors, genreContext = "genre_context", source, problems
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(storyType.id, forKey: .storyType)
        try c.encode(advisors, forKey: .advisors)
        try c.encode(genreContext, forKey: .genreContext)
        try c.encode(source, forKey: .source)
        try c.encode(problems, forKey: .problems)
    }
}

extension LLMProviderError {
    /// As a CLI failure: one line, exit status 1.
    var cli: CLIError { CLIError(message) }
}
