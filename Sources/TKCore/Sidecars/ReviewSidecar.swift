import Foundation

/// Quick-heuristic categories of the contract.
public enum FindingCategory: String, Codable, Sendable, CaseIterable {
    case passive, weasel, adverb
    case longSentence = "long_sentence"
    case readability, cliche
    case aiCliche = "ai_cliche"
    case genericOpening = "generic_opening"
    case repeatedWord = "repeated_word"
    case thereIs = "there_is"
    case soStart = "so_start"
    case wordy, hedge, other
    /// Unknown to the document's Hunspell dictionary (v2).
    case spelling
    /// Grammar: a/an, confusable words, agreement, capitals (v3).
    case grammar
    /// A rule of the team's Vale styles (`rule` is "Style.Rule").
    case vale
}

public enum Severity: String, Codable, Sendable, CaseIterable, Comparable {
    case info, suggestion, warning
    /// Vale's highest level (findings of a team's Vale rules).
    case error
    private var rank: Int { switch self { case .info: 0; case .suggestion: 1; case .warning: 2; case .error: 3 } }
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

/// One quick-heuristic finding. Positions are UTF-8 byte offsets into the document on disk;
/// `line` is 1-based; `column` is 1-based in Unicode scalars; `text` is the bytes `[start, end)`.
public struct Finding: Codable, Sendable, Equatable, Hashable {
    public var id: String
    public var rule: String
    public var category: FindingCategory
    public var severity: Severity
    public var message: String
    public var text: String
    public var start: Int
    public var end: Int
    public var line: Int
    public var column: Int
    public var replacements: [String]

    public init(id: String, rule: String, category: FindingCategory, severity: Severity, message: String,
                text: String, start: Int, end: Int, line: Int, column: Int, replacements: [String] = []) {
        self.id = id; self.rule = rule; self.category = category; self.severity = severity
        self.message = message; self.text = text; self.start = start; self.end = end
        self.line = line; self.column = column; self.replacements = replacements
    }
}

/// Token counts and cost of one round.
public struct RoundUsage: Codable, Sendable, Equatable {
    public var inputTokens: Int
    public var outputTokens: Int
    public var costUsd: Double
    enum CodingKeys: String, CodingKey { case inputTokens = "input_tokens", outputTokens = "output_tokens", costUsd = "cost_usd" }
    public init(inputTokens: Int = 0, outputTokens: Int = 0, costUsd: Double = 0) {
        self.inputTokens = inputTokens; self.outputTokens = outputTokens; self.costUsd = costUsd
    }
}

public enum RoundStatus: String, Codable, Sendable { case queued, waiting, running, done, failed }

/// One LLM review round as the sidecar shows it.
public struct Round: Codable, Sendable, Equatable {
    public var id: String
    public var cycle: Int
    public var status: RoundStatus
    public var reason: String?
    public var provider: String?
    public var model: String?
    public var advisors: [String]
    public var queuedAt: String
    public var startedAt: String?
    public var finishedAt: String?
    public var usage: RoundUsage?
    public var error: String?
    /// Extension: suggestions dropped because their passage could not be found.
    public var unanchored: Int?
    /// Extension: the reply was cut at the output limit; the complete suggestions were kept.
    public var truncated: Bool?

    enum CodingKeys: String, CodingKey {
        case id, cycle, status, reason, provider, model, advisors
        case queuedAt = "queued_at", startedAt = "started_at", finishedAt = "finished_at"
        case usage, error, unanchored, truncated
    }

    public init(id: String, cycle: Int, status: RoundStatus, reason: String? = nil, provider: String? = nil,
                model: String? = nil, advisors: [String], queuedAt: String, startedAt: String? = nil,
                finishedAt: String? = nil, usage: RoundUsage? = nil, error: String? = nil,
                unanchored: Int? = nil, truncated: Bool? = nil) {
        self.id = id; self.cycle = cycle; self.status = status; self.reason = reason; self.provider = provider
        self.model = model; self.advisors = advisors; self.queuedAt = queuedAt; self.startedAt = startedAt
        self.finishedAt = finishedAt; self.usage = usage; self.error = error
        self.unanchored = unanchored; self.truncated = truncated
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id); try c.encode(cycle, forKey: .cycle); try c.encode(status, forKey: .status)
        try c.encode(reason, forKey: .reason); try c.encode(provider, forKey: .provider); try c.encode(model, forKey: .model)
        try c.encode(advisors, forKey: .advisors); try c.encode(queuedAt, forKey: .queuedAt)
        try c.encode(startedAt, forKey: .startedAt); try c.encode(finishedAt, forKey: .finishedAt)
        try c.encode(usage, forKey: .usage); try c.encode(error, forKey: .error)
        try c.encodeIfPresent(unanchored, forKey: .unanchored); try c.encodeIfPresent(truncated, forKey: .truncated)
    }
}

public enum SuggestionType: String, Codable, Sendable, CaseIterable { case fix, improve, rephrase, add, remove }
public enum SuggestionStatus: String, Codable, Sendable, CaseIterable { case pending, accepted, edited, skipped }

/// One LLM suggestion. Positions point at `original_text` in the current document while pending, else null.
public struct Suggestion: Codable, Sendable, Equatable {
    public var id: String
    public var round: String
    public var advisorId: String
    public var type: SuggestionType
    public var originalText: String
    public var suggestedText: String
    public var reasoning: String
    public var priority: Int
    public var confidence: Double
    public var status: SuggestionStatus
    public var start: Int?
    public var end: Int?
    public var line: Int?
    public var column: Int?

    enum CodingKeys: String, CodingKey {
        case id, round, type, reasoning, priority, confidence, status, start, end, line, column
        case advisorId = "advisor_id", originalText = "original_text", suggestedText = "suggested_text"
    }

    public init(id: String, round: String, advisorId: String, type: SuggestionType, originalText: String,
                suggestedText: String, reasoning: String, priority: Int, confidence: Double,
                status: SuggestionStatus = .pending, start: Int? = nil, end: Int? = nil, line: Int? = nil, column: Int? = nil) {
        self.id = id; self.round = round; self.advisorId = advisorId; self.type = type
        self.originalText = originalText; self.suggestedText = suggestedText; self.reasoning = reasoning
        self.priority = priority; self.confidence = confidence; self.status = status
        self.start = start; self.end = end; self.line = line; self.column = column
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id); try c.encode(round, forKey: .round); try c.encode(advisorId, forKey: .advisorId)
        try c.encode(type, forKey: .type); try c.encode(originalText, forKey: .originalText)
        try c.encode(suggestedText, forKey: .suggestedText); try c.encode(reasoning, forKey: .reasoning)
        try c.encode(priority, forKey: .priority); try c.encode(confidence, forKey: .confidence)
        try c.encode(status, forKey: .status)
        try c.encode(start, forKey: .start); try c.encode(end, forKey: .end)
        try c.encode(line, forKey: .line); try c.encode(column, forKey: .column)
    }
}

public enum JourneyStage: String, Codable, Sendable, CaseIterable { case canvas, draft, revise, final }
public enum DraftStage: String, Codable, Sendable, CaseIterable { case early, middle, late }

public struct SuggestionStats: Codable, Sendable, Equatable {
    public var received = 0
    public var accepted = 0
    public var edited = 0
    public var skipped = 0
    public init(received: Int = 0, accepted: Int = 0, edited: Int = 0, skipped: Int = 0) {
        self.received = received; self.accepted = accepted; self.edited = edited; self.skipped = skipped
    }
}

/// Where a document stands in its journey.
public struct JourneyState: Codable, Sendable, Equatable {
    public var stage: JourneyStage
    public var draftStage: DraftStage?
    public var storyType: String?
    public var advisors: [String]
    public var revisionCycle: Int
    public var stats: SuggestionStats
    /// Extension: stats per revision cycle (`"1": {…}`).
    public var cycleStats: [String: SuggestionStats]?
    /// Extension: the cycle whose "all addressed" notification was already sent.
    public var notifiedCycle: Int?
    /// Extension: what `tk-agent journey set` chose (front matter still wins over it).
    public var overrides: JourneyOverrides?

    enum CodingKeys: String, CodingKey {
        case stage, advisors, stats
        case draftStage = "draft_stage", storyType = "story_type", revisionCycle = "revision_cycle"
        case cycleStats = "cycle_stats", notifiedCycle = "notified_cycle", overrides
    }

    public init(stage: JourneyStage = .canvas, draftStage: DraftStage? = nil, storyType: String? = nil,
                advisors: [String] = [], revisionCycle: Int = 0, stats: SuggestionStats = SuggestionStats(),
                cycleStats: [String: SuggestionStats]? = nil, notifiedCycle: Int? = nil) {
        self.stage = stage; self.draftStage = draftStage; self.storyType = storyType; self.advisors = advisors
        self.revisionCycle = revisionCycle; self.stats = stats; self.cycleStats = cycleStats
        self.notifiedCycle = notifiedCycle
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(stage, forKey: .stage); try c.encode(draftStage, forKey: .draftStage)
        try c.encode(storyType, forKey: .storyType); try c.encode(advisors, forKey: .advisors)
        try c.encode(revisionCycle, forKey: .revisionCycle); try c.encode(stats, forKey: .stats)
        try c.encodeIfPresent(cycleStats, forKey: .cycleStats); try c.encodeIfPresent(notifiedCycle, forKey: .notifiedCycle)
        try c.encodeIfPresent(overrides, forKey: .overrides)
    }
}

/// The `tk.review/1` sidecar: `<project>/.tk/<document>.review.json`.
public struct ReviewSidecar: Codable, Sendable, Equatable {
    public static let schemaID = "tk.review/1"
    public var schema: String
    public var document: String
    public var sha256: String
    public var updatedAt: String
    public var words: Int
    public var journey: JourneyState
    public var quick: [Finding]
    public var rounds: [Round]
    public var suggestions: [Suggestion]

    enum CodingKeys: String, CodingKey {
        case schema, document, sha256, words, journey, quick, rounds, suggestions
        case updatedAt = "updated_at"
    }

    public init(document: String, sha256: String, updatedAt: String, words: Int, journey: JourneyState = JourneyState(),
                quick: [Finding] = [], rounds: [Round] = [], suggestions: [Suggestion] = []) {
        self.schema = Self.schemaID; self.document = document; self.sha256 = sha256; self.updatedAt = updatedAt
        self.words = words; self.journey = journey; self.quick = quick; self.rounds = rounds; self.suggestions = suggestions
    }

    /// The sidecar path for a document: `notes/draft.md` → `<project>/.tk/notes/draft.md.review.json`.
    public static func path(project: PathBytes, document relative: PathBytes) -> PathBytes {
        var rel = relative.bytes
        rel.append(contentsOf: Array(".review.json".utf8))
        return project.appending(".tk").appending(PathBytes(rel))
    }
}
