import Foundation

/// What `suggest` and `pipe` ask for.
public struct SuggestRequest: Sendable {
    /// The document bytes as on disk (positions refer to them).
    public var document: [UInt8]
    /// The path shown to the model.
    public var documentPath: String
    public var advisors: [Role]
    public var storyType: StoryType?
    public var draftStage: DraftStage?
    /// Kinds of suggestion wanted (free words like `grammar`, or suggestion types like `fix`), nil for all.
    public var categories: [String]?
    public var maxSuggestions: Int
    /// Suggestions below this confidence are left out.
    public var minConfidence: Double
    public var model: String?
    public var maxOutputTokens: Int

    public init(document: [UInt8], documentPath: String, advisors: [Role], storyType: StoryType? = nil,
                draftStage: DraftStage? = nil, categories: [String]? = nil,
                maxSuggestions: Int = PromptEngine.defaultMaxSuggestions, minConfidence: Double = 0,
                model: String? = nil, maxOutputTokens: Int = 4096) {
        self.document = document; self.documentPath = documentPath; self.advisors = advisors
        self.storyType = storyType; self.draftStage = draftStage; self.categories = categories
        self.maxSuggestions = maxSuggestions; self.minConfidence = minConfidence; self.model = model
        self.maxOutputTokens = maxOutputTokens
    }
}

/// Token use and cost summed over the calls of one command.
public struct WritingUsage: Sendable, Equatable {
    public var usage = LLMUsage()
    public var costUsd = 0.0
    public var calls = 0
    public var provider: String?
    public var model: String?

    public init() {}

    public mutating func add(_ r: LLMResponse) {
        usage = usage + r.usage
        costUsd += r.costUsd
        calls += 1
        provider = r.provider
        model = r.model
    }

    public mutating func add(_ other: WritingUsage) {
        usage = usage + other.usage
        costUsd += other.costUsd
        calls += other.calls
        provider = other.provider ?? provider
        model = other.model ?? model
    }
}

/// The anchored suggestions for one document.
public struct SuggestResult: Sendable {
    /// Pending suggestions with positions, most important first.
    public var suggestions: [Suggestion]
    /// Suggestions whose passage could not be found in the document.
    public var unanchored: Int
    /// Suggestions left out by `minConfidence`, the categories or `maxSuggestions`.
    public var filtered: Int
    public var truncated: Bool
    /// Whether the per-advisor fallback ran because the panel's reply could not be read.
    public var fellBack: Bool
    /// One line per thing worth telling the writer (dropped entries, truncation, fallback).
    public var problems: [String]
    public var usage: WritingUsage
}

/// Asks advisors for anchored suggestions: one batched call for the whole panel, falling back to one
/// call per advisor when the panel's reply holds no readable suggestions.
public struct SuggestEngine: Sendable {
    public let provider: any LLMProvider
    /// The round id stored in suggestions (ids are stable for the same round, place and change).
    public var round: String

    public init(provider: any LLMProvider, round: String = "suggest") {
        self.provider = provider
        self.round = round
    }

    public func run(_ r: SuggestRequest) async throws(LLMProviderError) -> SuggestResult {
        let text = String(decoding: r.document, as: UTF8.self)
        var usage = WritingUsage()
        var problems: [String] = []
        let ids = r.advisors.map(\.id)
        let prompt = PromptEngine.reviewPrompt(
            document: text, documentPath: r.documentPath, advisors: r.advisors, storyType: r.storyType,
            draftStage: r.draftStage, maxSuggestions: r.maxSuggestions, categories: r.categories)
        let response = try await provider.complete(request(prompt, r))
        usage.add(response)
        var parsed = ReplyParser.parseSuggestions(text: response.text, structured: response.structured,
                                                  truncated: response.truncated, advisorIds: ids)
        var fellBack = false
        if !parsed.found, r.advisors.count > 1 {
            fellBack = true
            problems.append("the panel's reply held no readable suggestions; asking each advisor in turn")
            var merged = ParsedReply(found: true)
            for advisor in r.advisors {
                let single = PromptEngine.singleAdvisorPrompt(
                    document: text, documentPath: r.documentPath, advisor: advisor, storyType: r.storyType,
                    draftStage: r.draftStage, maxSuggestions: r.maxSuggestions, categories: r.categories)
                let reply = try await provider.complete(request(single, r))
                usage.add(reply)
                let p = ReplyParser.parseSuggestions(text: reply.text, structured: reply.structured,
                                                     truncated: reply.truncated, advisorIds: [advisor.id])
                merged.suggestions += p.suggestions
                merged.truncated = merged.truncated || p.truncated
                merged.dropped += p.dropped
                merged.problems += p.problems.map { "\(advisor.id): \($0)" }
            }
            parsed = merged
        } else if !parsed.found {
            problems += parsed.problems
        }
        if parsed.found { problems += parsed.problems }

        let report = AnchoredSuggestion.build(parsed.suggestions, document: r.document, round: round)
        if report.unanchoredCount > 0 {
            problems.append("dropped \(report.unanchoredCount) suggestion\(report.unanchoredCount == 1 ? "" : "s") "
                + "whose passage is not in the document")
        }
        var kept = report.suggestions.filter { $0.confidence >= r.minConfidence }
        if let categories = r.categories {
            let types = Set(categories.compactMap { SuggestionType(rawValue: $0.lowercased()) })
            // Only filter by type when every category named is a suggestion type (fix, improve…).
            if !types.isEmpty, types.count == categories.count { kept = kept.filter { types.contains($0.type) } }
        }
        if kept.count > r.maxSuggestions { kept = Array(kept.prefix(max(0, r.maxSuggestions))) }
        let filtered = report.suggestions.count - kept.count
        return SuggestResult(suggestions: kept, unanchored: report.unanchoredCount, filtered: filtered,
                             truncated: parsed.truncated, fellBack: fellBack, problems: problems, usage: usage)
    }

    func request(_ p: RenderedPrompt, _ r: SuggestRequest) -> LLMRequest {
        LLMRequest(system: p.system, messages: [LLMMessage(role: .user, content: p.user)], model: r.model,
                   maxOutputTokens: r.maxOutputTokens, jsonSchema: p.schema, schemaName: p.schemaName ?? "suggestions",
                   stream: false)
    }
}
