import Foundation

/// One advisor's answer in a council, as the synthesis sees it.
public struct CouncilPerspective: Codable, Sendable, Equatable {
    public var advisorId: String
    public var name: String
    public var perspective: String
    public var points: [String]
    /// `positive`, `neutral` or `negative`.
    public var sentiment: String
    /// Set when this advisor's call failed (then the other fields are empty).
    public var error: String?

    enum CodingKeys: String, CodingKey {
        case advisorId = "advisor_id", name, perspective, points, sentiment, error
    }

    public init(advisorId: String, name: String, perspective: String, points: [String], sentiment: String,
                error: String? = nil) {
        self.advisorId = advisorId; self.name = name; self.perspective = perspective; self.points = points
        self.sentiment = sentiment; self.error = error
    }
}

/// What a council agreed on, disagreed on and what only one advisor saw.
public struct CouncilAnalysis: Codable, Sendable, Equatable {
    public struct Consensus: Codable, Sendable, Equatable {
        /// The point as the first advisor put it.
        public var point: String
        public var advisors: [String]
        /// Every wording of the point, one per advisor.
        public var variants: [String]
    }
    public struct Position: Codable, Sendable, Equatable {
        public var advisorId: String
        public var point: String
        public var sentiment: String
        enum CodingKeys: String, CodingKey { case advisorId = "advisor_id", point, sentiment }
    }
    public struct Disagreement: Codable, Sendable, Equatable {
        /// The words the opposing points share.
        public var topic: String
        public var positions: [Position]
    }
    public struct Insight: Codable, Sendable, Equatable {
        public var advisorId: String
        public var point: String
        enum CodingKeys: String, CodingKey { case advisorId = "advisor_id", point }
    }
    public struct Sentiment: Codable, Sendable, Equatable {
        /// `positive`, `negative`, `neutral` or `mixed`.
        public var overall: String
        public var positive: Int
        public var neutral: Int
        public var negative: Int
    }

    public var consensus: [Consensus]
    public var disagreements: [Disagreement]
    public var uniqueInsights: [Insight]
    public var sentiment: Sentiment

    enum CodingKeys: String, CodingKey {
        case consensus, disagreements, sentiment
        case uniqueInsights = "unique_insights"
    }
}

/// The local synthesis of a council's answers (no model). Pure.
///
/// - Consensus: points raised by more than half of the advisors who answered; two points are the
///   same when more than half of the content words of the shorter one appear in the other.
/// - Disagreements: points on the same topic (at least a third of the content words shared) with
///   opposite sentiment, from different advisors.
/// - Unique insights: points only one advisor raised (when more than one answered).
/// - Sentiment: the advisors' own sentiments counted; `mixed` when positive and negative balance.
public enum CouncilSynthesis {
    /// Shared words above this share of the shorter point make two points the same.
    public static let sameThreshold = 0.5
    /// Shared words at or above this share make two points the same topic.
    public static let topicThreshold = 1.0 / 3.0

    public static func analyse(_ perspectives: [CouncilPerspective]) -> CouncilAnalysis {
        let answered = perspectives.filter { $0.error == nil }
        let n = answered.count

        struct Point { var advisor: String; var text: String; var words: Set<String>; var sentiment: String }
        var points: [Point] = []
        for p in answered {
            let raw = p.points.isEmpty ? [p.perspective] : p.points
            for t in raw where !t.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                points.append(Point(advisor: p.advisorId, text: t, words: contentWords(t),
                                    sentiment: pointSentiment(t, fallback: p.sentiment)))
            }
        }

        // Group points: each point joins the first group holding a point it matches.
        var groups: [[Int]] = []
        for (i, p) in points.enumerated() {
            if let g = groups.firstIndex(where: { $0.contains { overlap(points[$0].words, p.words) > sameThreshold } }) {
                groups[g].append(i)
            } else {
                groups.append([i])
            }
        }

        var consensus: [CouncilAnalysis.Consensus] = []
        var singles: [Int] = []
        for g in groups {
            var advisors: [String] = []
            var variants: [String] = []
            for i in g where !advisors.contains(points[i].advisor) {
                advisors.append(points[i].advisor)
                variants.append(points[i].text)
            }
            if n > 1, advisors.count * 2 > n {
                consensus.append(.init(point: variants[0], advisors: advisors, variants: variants))
            } else if n > 1, advisors.count == 1 {
                singles.append(g[0])
            }
        }
        consensus.sort { $0.advisors.count > $1.advisors.count }

        var disagreements: [CouncilAnalysis.Disagreement] = []
        var used = Set<Int>()
        for i in points.indices where points[i].sentiment != "neutral" && !used.contains(i) {
            var positions = [points[i]]
            var members = [i]
            for j in points.indices where j > i && !used.contains(j) {
                let q = points[j]
                guard q.advisor != points[i].advisor, q.sentiment != "neutral", q.sentiment != points[i].sentiment,
                      !positions.contains(where: { $0.advisor == q.advisor }),
                      overlap(points[i].words, q.words) >= topicThreshold
                else { continue }
                positions.append(q)
                members.append(j)
            }
            if positions.count > 1 {
                used.formUnion(members)
                var shared = positions[0].words
                for p in positions.dropFirst() { shared.formIntersection(p.words) }
                let topic = orderedWords(positions[0].text).filter { shared.contains($0) }
                disagreements.append(.init(
                    topic: topic.isEmpty ? positions[0].text : topic.joined(separator: " "),
                    positions: positions.map { .init(advisorId: $0.advisor, point: $0.text, sentiment: $0.sentiment) }))
            }
        }

        // A point already shown as one side of a disagreement is not repeated as a unique insight.
        let unique = singles.filter { !used.contains($0) }
            .map { CouncilAnalysis.Insight(advisorId: points[$0].advisor, point: points[$0].text) }

        let pos = answered.filter { $0.sentiment == "positive" }.count
        let neg = answered.filter { $0.sentiment == "negative" }.count
        let neu = n - pos - neg
        let overall: String
        if n == 0 {
            overall = "neutral"
        } else if pos > 0, neg > 0, abs(pos - neg) * 3 <= n {
            overall = "mixed"
        } else if pos > neg, pos >= neu {
            overall = "positive"
        } else if neg > pos, neg >= neu {
            overall = "negative"
        } else if pos > 0, neg > 0 {
            overall = "mixed"
        } else {
            overall = "neutral"
        }
        return CouncilAnalysis(consensus: consensus, disagreements: disagreements, uniqueInsights: unique,
                               sentiment: .init(overall: overall, positive: pos, neutral: neu, negative: neg))
    }

    /// Shared words over the size of the smaller set (0 when either is empty).
    public static func overlap(_ a: Set<String>, _ b: Set<String>) -> Double {
        let m = min(a.count, b.count)
        if m == 0 { return 0 }
        return Double(a.intersection(b).count) / Double(m)
    }

    /// Lower-cased words of three letters or more that are not stop words, lightly stemmed.
    public static func contentWords(_ s: String) -> Set<String> { Set(orderedWords(s)) }

    static func orderedWords(_ s: String) -> [String] {
        var out: [String] = []
        for raw in s.lowercased().split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "'") }) {
            var w = String(raw).trimmingCharacters(in: CharacterSet(charactersIn: "'"))
            if w.hasSuffix("'s") { w.removeLast(2) }
            guard w.count >= 3, !stopWords.contains(w) else { continue }
            w = stem(w)
            if !out.contains(w) { out.append(w) }
        }
        return out
    }

    static func stem(_ w: String) -> String {
        for suffix in ["ing", "ed", "es", "s"] where w.count > suffix.count + 3 && w.hasSuffix(suffix) {
            return String(w.dropLast(suffix.count))
        }
        return w
    }

    /// The sentiment of one point by a small lexicon; `fallback` (the advisor's) when it says nothing.
    public static func pointSentiment(_ s: String, fallback: String) -> String {
        var score = 0
        var negate = false
        for raw in s.lowercased().split(whereSeparator: { !($0.isLetter || $0 == "'") }) {
            let w = String(raw)
            if negators.contains(w) { negate = true; continue }
            var v = 0
            if positiveWords.contains(w) { v = 1 } else if negativeWords.contains(w) { v = -1 }
            if v != 0 { score += negate ? -v : v; negate = false }
        }
        if score > 0 { return "positive" }
        if score < 0 { return "negative" }
        return ["positive", "negative"].contains(fallback) ? fallback : "neutral"
    }

    static let negators: Set<String> = ["not", "no", "never", "isn't", "doesn't", "don't", "hardly", "lacks", "without"]
    static let positiveWords: Set<String> = [
        "good", "great", "strong", "clear", "effective", "works", "excellent", "compelling", "engaging", "vivid",
        "concise", "helpful", "solid", "succeeds", "powerful", "well", "clean", "crisp", "memorable", "persuasive",
        "convincing", "natural", "readable", "fine", "keep", "lively", "fresh", "tight", "focused", "love", "like",
    ]
    static let negativeWords: Set<String> = [
        "weak", "unclear", "confusing", "vague", "poor", "bad", "wordy", "slow", "problem", "issue", "fails",
        "hard", "dense", "repetitive", "boring", "generic", "flat", "bland", "cluttered", "clunky", "awkward",
        "missing", "cut", "remove", "overlong", "rambling", "muddled", "jargon", "abrupt", "drags", "loses",
        "buried", "lacking", "undermines", "distracting", "unconvincing",
    ]
    static let stopWords: Set<String> = [
        "the", "and", "for", "are", "but", "not", "you", "all", "any", "can", "had", "her", "was", "one", "our",
        "out", "has", "him", "his", "how", "its", "may", "new", "now", "see", "two", "who", "did", "get", "use",
        "this", "that", "with", "have", "from", "they", "will", "would", "there", "their", "what", "about",
        "which", "when", "make", "like", "than", "then", "them", "these", "some", "could", "into", "more",
        "other", "also", "very", "just", "should", "your", "it's", "does", "being", "been", "were", "here",
        "only", "most", "much", "such", "each", "where", "while", "those", "because", "reader", "readers",
        "text", "piece", "writer", "draft", "feel", "feels",
    ]
}
