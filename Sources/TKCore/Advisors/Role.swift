import Foundation

/// A role-specific quick tip: a word or phrase the heuristics engine flags for this advisor.
///
/// `phrase` is plain text (not a pattern), matched case-insensitively at word boundaries.
public struct QuickTip: Codable, Sendable, Equatable, Hashable {
    /// The word or phrase to flag, e.g. `"click here"`.
    public var phrase: String
    /// What the writer reads next to the flagged text.
    public var message: String
    /// The contract's finding category the tip reports under.
    public var category: FindingCategory
    /// A replacement to offer, when one fits every use of the phrase.
    public var replacement: String?

    public init(phrase: String, message: String, category: FindingCategory, replacement: String? = nil) {
        self.phrase = phrase
        self.message = message
        self.category = category
        self.replacement = replacement
    }

    enum CodingKeys: String, CodingKey { case phrase, message, category, replacement }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(phrase, forKey: .phrase)
        try c.encode(message, forKey: .message)
        try c.encode(category, forKey: .category)
        try c.encode(replacement, forKey: .replacement)
    }
}

/// An advisor: a reviewing perspective with its voice, focus and quick tips.
///
/// Built-in roles come from `Advisors/Resources/roles.json`; custom roles from
/// `$XDG_CONFIG_HOME/tk/roles/custom_<slug>.json`.
public struct Role: Codable, Sendable, Equatable, Identifiable {
    public var id: String
    public var name: String
    /// One line: what this advisor looks at.
    public var description: String
    public var expertise: [String]
    public var focusAreas: [String]
    /// The voice-and-tone prompt: how this advisor speaks and what it cares about.
    public var voiceAndTone: String
    public var guidelines: [String]
    public var quickTips: [QuickTip]
    /// Words in a project description that suggest this advisor (used by the heuristic assembler).
    public var keywords: [String]
    /// The custom role's own perspective (10–200 characters); nil for built-in roles.
    public var perspective: String?
    public var goodExamples: [String]
    public var badExamples: [String]
    /// Whether the role is a user's custom role (not stored in the role file).
    public var custom: Bool

    enum CodingKeys: String, CodingKey {
        case id, name, description, expertise, guidelines, keywords, perspective, custom
        case focusAreas = "focus_areas", voiceAndTone = "voice_and_tone", quickTips = "quick_tips"
        case goodExamples = "good_examples", badExamples = "bad_examples"
    }

    public init(id: String, name: String, description: String, expertise: [String] = [], focusAreas: [String],
                voiceAndTone: String, guidelines: [String], quickTips: [QuickTip] = [], keywords: [String] = [],
                perspective: String? = nil, goodExamples: [String] = [], badExamples: [String] = [],
                custom: Bool = false) {
        self.id = id; self.name = name; self.description = description; self.expertise = expertise
        self.focusAreas = focusAreas; self.voiceAndTone = voiceAndTone; self.guidelines = guidelines
        self.quickTips = quickTips; self.keywords = keywords; self.perspective = perspective
        self.goodExamples = goodExamples; self.badExamples = badExamples; self.custom = custom
    }

    /// Decodes leniently: only `id`, `name` and `focus_areas` are required, so hand-written
    /// custom role files need not spell out every list.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        name = try c.decode(String.self, forKey: .name)
        perspective = try c.decodeIfPresent(String.self, forKey: .perspective)
        description = try c.decodeIfPresent(String.self, forKey: .description) ?? perspective ?? ""
        expertise = try c.decodeIfPresent([String].self, forKey: .expertise) ?? []
        focusAreas = try c.decode([String].self, forKey: .focusAreas)
        voiceAndTone = try c.decodeIfPresent(String.self, forKey: .voiceAndTone) ?? ""
        guidelines = try c.decodeIfPresent([String].self, forKey: .guidelines) ?? []
        quickTips = try c.decodeIfPresent([QuickTip].self, forKey: .quickTips) ?? []
        keywords = try c.decodeIfPresent([String].self, forKey: .keywords) ?? []
        goodExamples = try c.decodeIfPresent([String].self, forKey: .goodExamples) ?? []
        badExamples = try c.decodeIfPresent([String].self, forKey: .badExamples) ?? []
        custom = try c.decodeIfPresent(Bool.self, forKey: .custom) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id); try c.encode(name, forKey: .name)
        try c.encode(description, forKey: .description); try c.encode(expertise, forKey: .expertise)
        try c.encode(focusAreas, forKey: .focusAreas); try c.encode(voiceAndTone, forKey: .voiceAndTone)
        try c.encode(guidelines, forKey: .guidelines); try c.encode(quickTips, forKey: .quickTips)
        try c.encode(keywords, forKey: .keywords); try c.encode(perspective, forKey: .perspective)
        try c.encode(goodExamples, forKey: .goodExamples); try c.encode(badExamples, forKey: .badExamples)
        try c.encode(custom, forKey: .custom)
    }

    /// The voice prompt, falling back to one built from the name and perspective (custom roles).
    public var effectiveVoice: String {
        let v = voiceAndTone.trimmingCharacters(in: .whitespacesAndNewlines)
        if !v.isEmpty { return v }
        let p = (perspective ?? description).trimmingCharacters(in: .whitespacesAndNewlines)
        return p.isEmpty ? "You are \(name), a writing advisor." : "You are \(name), a writing advisor. \(p)"
    }
}
