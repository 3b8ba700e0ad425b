import Foundation

/// The outcome of anchoring a reply's suggestions in a document.
public struct AnchoringReport: Sendable, Equatable {
    /// Pending suggestions with positions; `original_text` is exactly the document bytes `[start, end)`.
    public var suggestions: [Suggestion]
    /// Suggestions whose passage could not be found (dropped, counted in the round's `unanchored`).
    public var unanchored: [RawSuggestion]
    /// Suggestions dropped because they repeat an anchored one or would change nothing in the document.
    public var redundant: Int
    /// How each kept suggestion was found, in the order of `suggestions`.
    public var methods: [AnchorMethod]

    public var unanchoredCount: Int { unanchored.count }

    public init(suggestions: [Suggestion] = [], unanchored: [RawSuggestion] = [], redundant: Int = 0,
                methods: [AnchorMethod] = []) {
        self.suggestions = suggestions; self.unanchored = unanchored; self.redundant = redundant; self.methods = methods
    }
}

/// Turns parsed suggestions into anchored `Suggestion`s of the sidecar.
public enum AnchoredSuggestion {
    /// Anchors each suggestion in the document and builds pending `Suggestion`s.
    ///
    /// The stored `original_text` is the exact document text at the anchor, so it always equals the bytes
    /// `[start, end)`; the model's own quotation is not kept. When a passage occurs several times, later
    /// suggestions prefer an occurrence no earlier suggestion took, then the one nearest the model's `start`.
    /// - Parameters:
    ///   - document: the document bytes as on disk.
    ///   - round: the round id stored in each suggestion.
    ///   - excluded: ranges no passage may overlap; nil means the document's front matter.
    ///   - makeID: the id of a suggestion given its round, the suggestion and its anchored range.
    public static func build(_ raw: [RawSuggestion], document: [UInt8], round: String, excluded: [Range<Int>]? = nil,
                             makeID: (String, RawSuggestion, Range<Int>) -> String = defaultID) -> AnchoringReport {
        let exclusions = excluded ?? (Anchoring.frontMatterRange(document).map { [$0] } ?? [])
        let anchorer = Anchorer(document: document, excluded: exclusions)
        var report = AnchoringReport()
        var taken: [Range<Int>] = []
        var seen: [(Range<Int>, String)] = []
        for s in raw {
            guard let match = anchorer.anchor(s.originalText, near: s.hint, avoiding: taken) else {
                report.unanchored.append(s)
                continue
            }
            let r = match.range
            let text = String(decoding: document[r], as: UTF8.self)
            if text == s.suggestedText || seen.contains(where: { $0.0 == r && $0.1 == s.suggestedText }) {
                report.redundant += 1
                continue
            }
            seen.append((r, s.suggestedText))
            taken.append(r)
            let pos = Anchoring.position(of: r.lowerBound, in: document)
            report.suggestions.append(Suggestion(
                id: makeID(round, s, r), round: round, advisorId: s.advisorId, type: s.type, originalText: text,
                suggestedText: s.suggestedText, reasoning: s.reasoning, priority: s.priority,
                confidence: s.confidence, status: .pending, start: r.lowerBound, end: r.upperBound,
                line: pos.line, column: pos.column))
            report.methods.append(match.method)
        }
        return report
    }

    /// A short id stable for the same round, place and change: `s` + 12 hex digits.
    public static func defaultID(round: String, suggestion s: RawSuggestion, range: Range<Int>) -> String {
        let key = "\(round)\n\(range.lowerBound)\n\(range.upperBound)\n\(s.advisorId)\n\(s.suggestedText)"
        return "s" + SHA256Digest.hex(Array(key.utf8)).prefix(12)
    }
}
