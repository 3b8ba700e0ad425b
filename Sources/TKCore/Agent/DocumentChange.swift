import Foundation

/// A change the indexer made, handed to the agent for heuristics, sidecars and review.
public enum DocumentChange: Sendable {
    /// A document was added or its content changed.
    case updated(relative: PathBytes, document: MarkdownDocument, sha256: String, previousSha256: String?)
    /// A document is gone.
    case deleted(relative: PathBytes, previousSha256: String)
    /// A document was renamed (same content under a new name).
    case moved(from: PathBytes, to: PathBytes, document: MarkdownDocument, sha256: String)

    /// The change without the parsed document (an empty stand-in): what the agent keeps of a whole
    /// scan for its extensions, which need paths and hashes, not 17,000 parsed documents.
    public var withoutContent: DocumentChange {
        switch self {
        case .updated(let rel, _, let sha, let previous):
            return .updated(relative: rel, document: MarkdownDocument.empty, sha256: sha, previousSha256: previous)
        case .deleted:
            return self
        case .moved(let from, let to, _, let sha):
            return .moved(from: from, to: to, document: MarkdownDocument.empty, sha256: sha)
        }
    }
}

extension MarkdownDocument {
    /// An empty document, standing in where the content is not carried.
    static let empty = MarkdownDocument(bytes: [], fileName: "")
}
