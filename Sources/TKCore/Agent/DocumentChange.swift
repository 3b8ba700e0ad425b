import Foundation

/// A change the indexer made, handed to the agent for heuristics, sidecars and review.
public enum DocumentChange: Sendable {
    /// A document was added or its content changed.
    case updated(relative: PathBytes, document: MarkdownDocument, sha256: String, previousSha256: String?)
    /// A document is gone.
    case deleted(relative: PathBytes, previousSha256: String)
    /// A document was renamed (same content under a new name).
    case moved(from: PathBytes, to: PathBytes, document: MarkdownDocument, sha256: String)
}
