import Foundation

/// A change the indexer made, handed to the document pipeline: the bytes read once (in the parsed
/// document) and their SHA-256.
public enum DocumentChange: Sendable {
    /// A document was added or its content changed.
    case updated(relative: PathBytes, document: MarkdownDocument, sha256: String, previousSha256: String?)
    /// A document is gone.
    case deleted(relative: PathBytes, previousSha256: String)
    /// A document was renamed (same content under a new name).
    case moved(from: PathBytes, to: PathBytes, document: MarkdownDocument, sha256: String)

    /// What the agent's extensions are told of this change: paths and digests only.
    public var indexed: IndexedChange {
        switch self {
        case .updated(let rel, _, let sha, let previous): return .updated(relative: rel, sha256: sha, previousSha256: previous)
        case .deleted(let rel, let previous): return .deleted(relative: rel, previousSha256: previous)
        case .moved(let from, let to, _, let sha): return .moved(from: from, to: to, sha256: sha)
        }
    }

    /// The document's path (its new one, for a move).
    public var path: PathBytes {
        switch self {
        case .updated(let rel, _, _, _), .deleted(let rel, _): return rel
        case .moved(_, let to, _, _): return to
        }
    }

    /// The SHA-256 of the bytes the index held before (nil: a new document, or a move).
    public var previousSha256: String? {
        switch self {
        case .updated(_, _, _, let previous): return previous
        case .deleted(_, let previous): return previous
        case .moved: return nil
        }
    }
}

/// An indexed change as the agent's extensions (the review queue) see it: which document, and the
/// digests of its bytes, without the bytes. What the agent keeps of a whole scan for them, which need
/// paths and hashes, not 17,000 parsed documents; an extension reads the file when it needs it.
public enum IndexedChange: Sendable, Equatable {
    /// A document was added (`previousSha256` nil) or its content changed.
    case updated(relative: PathBytes, sha256: String, previousSha256: String?)
    /// A document is gone.
    case deleted(relative: PathBytes, previousSha256: String)
    /// A document was renamed (same content under a new name).
    case moved(from: PathBytes, to: PathBytes, sha256: String)
}
