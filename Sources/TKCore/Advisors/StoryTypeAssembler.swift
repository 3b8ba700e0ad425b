import Foundation

/// One recommended advisor and why.
public struct RoleRecommendation: Codable, Sendable, Equatable {
    public var roleId: String
    public var reason: String

    enum CodingKeys: String, CodingKey { case roleId = "id", reason }

    public init(roleId: String, reason: String) {
        self.roleId = roleId
        self.reason = reason
    }
}

/// A story type and advisors recommended for a project description.
public struct AssemblyRecommendation: Codable, Sendable, Equatable {
    public var storyType: StoryType
    public var advisors: [RoleRecommendation]
    public var genreContext: String
    /// How many keywords matched the story type; 0 means the recommendation is a default guess.
    public var score: Int

    enum CodingKeys: String, CodingKey {
        case storyType = "story_type", advisors, score
        case genreContext = "genre_context"
    }

    public init(storyType: StoryType, advisors: [RoleRecommendation], genreContext: String, score: Int) {
        self.storyType = storyType; self.advisors = advisors; self.genreContext = genreContext; self.score = score
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(storyType.id, forKey: .storyType)
        try c.encode(advisors, forKey: .advisors)
        try c.encode(genreContext, forKey: .genreContext)
        try c.encode(score, forKey: .score)
    }
}

/// Recommends a story type and advisors for a description of a piece of writing.
public enum StoryTypeAssembler {
    /// The story type used when no keyword matches.
    public static let fallbackStoryType = "blog_personal"
    /// Most advisors a recommendation lists.
    public static let maxAdvisors = 4

    /// A local, deterministic recommendation from keywords (no model): the story type whose keywords
    /// match the description best (ties: catalog order), its default advisors, plus up to one more
    /// advisor whose own keywords match.
    public static func heuristicRecommendation(description: String, catalog: AdvisorCatalog = .builtIn)
        -> AssemblyRecommendation?
    {
        let text = normalized(description)
        var best: (type: StoryType, score: Int)?
        for t in catalog.storyTypes {
            let score = t.keywords.reduce(0) { $0 + (contains(text, keyword: $1) ? 1 : 0) }
                + (contains(text, keyword: t.name) ? 2 : 0)
            if score > (best?.score ?? 0) { best = (t, score) }
        }
        let chosen: (type: StoryType, score: Int)
        if let best {
            chosen = best
        } else if let fallback = catalog.storyType(fallbackStoryType) ?? catalog.storyTypes.first {
            chosen = (fallback, 0)
        } else {
            return nil
        }
        var advisors: [RoleRecommendation] = []
        for role in catalog.defaultAdvisors(for: chosen.type) {
            advisors.append(RoleRecommendation(
                roleId: role.id,
                reason: "Default advisor for \(chosen.type.name): \(lowercasedFirst(role.description))"))
        }
        // One extra advisor whose keywords the description mentions most.
        var extra: (role: Role, hits: [String])?
        for role in catalog.roles where !advisors.contains(where: { $0.roleId == role.id }) && role.id != "general" {
            let hits = role.keywords.filter { contains(text, keyword: $0) }
            if hits.count > (extra?.hits.count ?? 0) { extra = (role, hits) }
        }
        if let extra, advisors.count < maxAdvisors {
            let words = extra.hits.prefix(3).map { "\"\($0)\"" }.joined(separator: ", ")
            advisors.append(RoleRecommendation(
                roleId: extra.role.id,
                reason: "The description mentions \(words): \(lowercasedFirst(extra.role.description))"))
        }
        if advisors.isEmpty, let general = catalog.role("general") {
            advisors.append(RoleRecommendation(roleId: general.id, reason: general.description))
        }
        return AssemblyRecommendation(
            storyType: chosen.type, advisors: advisors, genreContext: chosen.type.genreContext, score: chosen.score)
    }

    /// Lower case with every run of non-alphanumerics (except `/` and `-`) as one space, padded by spaces.
    static func normalized(_ s: String) -> String {
        var out = " "
        var lastSpace = true
        for ch in s.lowercased() {
            if ch.isLetter || ch.isNumber || ch == "/" || ch == "-" {
                out.append(ch)
                lastSpace = false
            } else if !lastSpace {
                out.append(" ")
                lastSpace = true
            }
        }
        if !lastSpace { out.append(" ") }
        return out
    }

    /// Whether the normalised text holds the keyword as whole words (a plural `s` is allowed).
    static func contains(_ text: String, keyword: String) -> Bool {
        let k = normalized(keyword).trimmingCharacters(in: .whitespaces)
        if k.isEmpty { return false }
        return text.contains(" \(k) ") || text.contains(" \(k)s ")
    }

    static func lowercasedFirst(_ s: String) -> String {
        guard let first = s.first else { return s }
        return first.lowercased() + s.dropFirst()
    }
}
