import Foundation

/// Heuristic limits that depend on the kind of writing.
public struct HeuristicThresholds: Codable, Sendable, Equatable {
    /// Sentences longer than this many words are flagged.
    public var maxSentenceWords: Int
    /// Paragraphs above this reading grade are flagged; nil means no readability limit.
    public var maxGrade: Double?

    enum CodingKeys: String, CodingKey { case maxSentenceWords = "max_sentence_words", maxGrade = "max_grade" }

    public init(maxSentenceWords: Int, maxGrade: Double?) {
        self.maxSentenceWords = maxSentenceWords
        self.maxGrade = maxGrade
    }

    /// The limits used when a document has no story type.
    public static let `default` = HeuristicThresholds(maxSentenceWords: 30, maxGrade: 12)

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(maxSentenceWords, forKey: .maxSentenceWords)
        try c.encode(maxGrade, forKey: .maxGrade)
    }
}

/// What a review should concentrate on at each draft stage.
public struct StageFocus: Codable, Sendable, Equatable {
    public var early: String
    public var middle: String
    public var late: String

    public init(early: String, middle: String, late: String) {
        self.early = early; self.middle = middle; self.late = late
    }

    public subscript(stage: DraftStage) -> String {
        switch stage {
        case .early: early
        case .middle: middle
        case .late: late
        }
    }

    /// The focus used when a story type says nothing about a stage.
    public static let generic = StageFocus(
        early: "Structure and argument: is the point clear, is the order right, is anything missing or in the way? "
            + "Leave word choice alone unless it hides the meaning.",
        middle: "Clarity and flow: unclear sentences, weak transitions, paragraphs that wander, terms that change "
            + "meaning, repetition.",
        late: "Line edits: grammar, word choice, concision, consistency, punctuation and typos. Do not propose "
            + "restructuring."
    )
}

/// A kind of writing, with the advisors that suit it and how to review it.
public struct StoryType: Codable, Sendable, Equatable, Identifiable {
    public var id: String
    public var name: String
    public var description: String
    public var defaultAdvisors: [String]
    /// A paragraph describing the genre and its readers, used in prompts.
    public var genreContext: String
    public var thresholds: HeuristicThresholds
    public var reviewFocus: StageFocus
    /// Words in a project description that point to this story type (heuristic assembler).
    public var keywords: [String]

    enum CodingKeys: String, CodingKey {
        case id, name, description, thresholds, keywords
        case defaultAdvisors = "default_advisors", genreContext = "genre_context", reviewFocus = "review_focus"
    }

    public init(id: String, name: String, description: String, defaultAdvisors: [String], genreContext: String,
                thresholds: HeuristicThresholds = .default, reviewFocus: StageFocus = .generic, keywords: [String] = []) {
        self.id = id; self.name = name; self.description = description; self.defaultAdvisors = defaultAdvisors
        self.genreContext = genreContext; self.thresholds = thresholds; self.reviewFocus = reviewFocus
        self.keywords = keywords
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        name = try c.decode(String.self, forKey: .name)
        description = try c.decodeIfPresent(String.self, forKey: .description) ?? ""
        defaultAdvisors = try c.decode([String].self, forKey: .defaultAdvisors)
        genreContext = try c.decodeIfPresent(String.self, forKey: .genreContext) ?? ""
        thresholds = try c.decodeIfPresent(HeuristicThresholds.self, forKey: .thresholds) ?? .default
        reviewFocus = try c.decodeIfPresent(StageFocus.self, forKey: .reviewFocus) ?? .generic
        keywords = try c.decodeIfPresent([String].self, forKey: .keywords) ?? []
    }
}
