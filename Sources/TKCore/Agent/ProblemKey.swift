/// What a project problem in `status` is about: one entry per key, replaced or cleared by the part
/// that owns it (never found by the text of its message or a string prefix).
public enum ProblemKey: Hashable, Sendable, Comparable {
    /// A line of the project's configuration problems.
    case config(String)
    /// A document the indexer could not take in (too large, unreadable, bad front matter).
    case document(PathBytes)
    /// A document whose sidecar or journey row could not be written, or was rebuilt.
    case sidecar(PathBytes)
    /// The last indexing run failed.
    case index
    /// The project folder is missing at start.
    case root
    /// The watcher's problem (watch limit, folder missing).
    case watch
    /// A line about the project's Vale styles (a rule that does not load, rule types skipped).
    case vale(String)

    /// The order problems are listed in.
    var sortKey: String {
        switch self {
        case .config(let line): return "config:" + line
        case .document(let rel): return "doc:" + rel.display
        case .index: return "index"
        case .root: return "root"
        case .sidecar(let rel): return "sidecar:" + rel.display
        case .watch: return "watch"
        case .vale(let line): return "vale:" + line
        }
    }

    public static func < (a: ProblemKey, b: ProblemKey) -> Bool { a.sortKey < b.sortKey }
}
