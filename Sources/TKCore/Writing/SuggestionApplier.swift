import Foundation

/// Applies anchored suggestions to a document's bytes. Pure.
public enum SuggestionApplier {
    /// One change to make: replace bytes `[start, end)` by `text`.
    public struct Edit: Sendable, Equatable {
        public var start: Int
        public var end: Int
        public var text: String
        public init(start: Int, end: Int, text: String) { self.start = start; self.end = end; self.text = text }
    }

    /// The result of applying edits.
    public struct Outcome: Sendable, Equatable {
        public var bytes: [UInt8]
        /// The edits applied, in document order.
        public var applied: [Edit]
        /// Edits left out because they overlap an earlier one or fall outside the document.
        public var skipped: [Edit]
    }

    /// The edit a pending suggestion stands for, or nil when it has no position.
    public static func edit(for s: Suggestion, replacement: String? = nil) -> Edit? {
        guard let start = s.start, let end = s.end else { return nil }
        return Edit(start: start, end: end, text: replacement ?? s.suggestedText)
    }

    /// Applies the edits that do not overlap one another; the first given wins when two overlap.
    /// - Parameters:
    ///   - edits: in priority order (earlier edits win overlaps).
    ///   - bytes: the document.
    public static func apply(_ edits: [Edit], to bytes: [UInt8]) -> Outcome {
        var chosen: [Edit] = []
        var skipped: [Edit] = []
        for e in edits {
            if e.start < 0 || e.end > bytes.count || e.start > e.end {
                skipped.append(e)
                continue
            }
            let overlaps = chosen.contains { c in
                // Two insertions at one point, or any shared byte, count as overlapping.
                (e.start < c.end && c.start < e.end) || (e.start == c.start && (e.start == e.end || c.start == c.end))
            }
            if overlaps { skipped.append(e) } else { chosen.append(e) }
        }
        chosen.sort { $0.start < $1.start }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var cursor = 0
        for e in chosen {
            out.append(contentsOf: bytes[cursor..<e.start])
            out.append(contentsOf: Array(e.text.utf8))
            cursor = e.end
        }
        out.append(contentsOf: bytes[cursor...])
        return Outcome(bytes: out, applied: chosen, skipped: skipped)
    }

    /// Applies suggestions (most important first wins overlaps: priority, then confidence).
    public static func apply(_ suggestions: [Suggestion], to bytes: [UInt8]) -> Outcome {
        let ordered = suggestions.enumerated().sorted { a, b in
            if a.element.priority != b.element.priority { return a.element.priority < b.element.priority }
            if a.element.confidence != b.element.confidence { return a.element.confidence > b.element.confidence }
            return a.offset < b.offset
        }.map(\.element)
        return apply(ordered.compactMap { edit(for: $0) }, to: bytes)
    }
}
