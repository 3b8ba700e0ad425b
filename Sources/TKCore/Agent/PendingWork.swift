/// Work the watching service settles and the indexing service takes, a project at a time.
enum PendingWork: Hashable, Sendable {
    case file(root: PathBytes, relative: PathBytes)
    case folder(root: PathBytes, relative: PathBytes)
    /// Recompute every document's quick findings (the project's heuristics settings changed).
    case refresh(root: PathBytes)
}

/// A desktop notification for the notification service: title, body, the document's absolute path.
struct DesktopNotification: Sendable {
    var title: String
    var body: String
    var document: String
}
