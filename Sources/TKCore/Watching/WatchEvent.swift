/// What the `TreeWatcher` tells its consumer. Paths are absolute.
///
/// Apply them in order. To keep the index equal to disk: settle `changed` paths and then
/// `lstat`/read them; reconcile the whole subtree of a `rescan` with `DirectoryWalker.walk`;
/// drop everything below a `removed` folder.
public enum WatchEvent: Sendable, Hashable, CustomStringConvertible {
    /// A file that may have changed, appeared or disappeared (only document-shaped names).
    case changed(root: PathBytes, path: PathBytes)
    /// Reconcile this folder's subtree with disk (startup, new or moved-in folder, overflow,
    /// periodic safety rescan, watch-limit fallback). `reason` is for logs.
    case rescan(root: PathBytes, directory: PathBytes, reason: String)
    /// This folder's subtree is gone from here (moved out, renamed or deleted).
    case removed(root: PathBytes, directory: PathBytes)
    /// Something the user should fix, e.g. the inotify watch limit; show `message` in status.
    /// `kind` says what it is, so that consumers never read the message.
    case problem(root: PathBytes, kind: WatchProblem, message: String)
    /// The earlier problem for this root no longer applies.
    case problemCleared(root: PathBytes)
    /// The project's own configuration file (`<root>/.tk/config.json`) or its dictionary
    /// (`<root>/.tk/dictionary.txt`) was written, created or removed.
    case configChanged(root: PathBytes)

    /// The project root the event belongs to.
    public var root: PathBytes {
        switch self {
        case .changed(let root, _), .rescan(let root, _, _), .removed(let root, _), .problem(let root, _, _),
            .problemCleared(let root), .configChanged(let root):
            return root
        }
    }

    public var description: String {
        switch self {
        case .changed(_, let path): return "changed \(path.display)"
        case .rescan(_, let dir, let reason): return "rescan \(dir.display) (\(reason))"
        case .removed(_, let dir): return "removed \(dir.display)"
        case .problem(let root, _, let message): return "problem \(root.display): \(message)"
        case .problemCleared(let root): return "problem cleared \(root.display)"
        case .configChanged(let root): return "project configuration changed \(root.display)"
        }
    }
}

/// What kind of problem a `.problem` event reports.
public enum WatchProblem: Sendable, Hashable {
    /// The kernel's inotify watch limit was reached: part of the tree is not watched (periodic rescans stand in).
    case watchLimit
    /// The project folder is missing.
    case rootMissing
    /// Anything else (reading a folder failed…): still watching.
    case other

    /// Whether the project is no longer fully watched.
    public var stopsWatching: Bool { self != .other }
}

/// Why a `TreeWatcher` could not start.
public enum TreeWatcherError: Error, Sendable, CustomStringConvertible {
    /// `inotify_init1` failed; with `tooManyFiles`, the `max_user_instances` limit read at the time.
    case cannotOpen(InotifyDescriptor.Errno, instanceLimit: String?)

    public var description: String {
        switch self {
        case .cannotOpen(let error, let limit):
            if error == .tooManyFiles {
                return "cannot start watching: too many inotify instances (fs.inotify.max_user_instances\(limit.map { "=\($0)" } ?? "")):"
                    + " stop other file watchers or run 'sudo sysctl fs.inotify.max_user_instances=1024'"
            }
            return "cannot start watching: inotify_init1 failed: \(error)"
        }
    }
}

/// Tuning knobs of a `TreeWatcher`; the defaults suit production.
public struct TreeWatcherOptions: Sendable {
    /// How often a root is rescanned while its watches are incomplete (watch limit) or it is missing.
    public var fallbackRescanInterval: Duration = .seconds(60)
    /// Pretend the kernel's watch limit is this many watches (tests); nil: the real limit.
    public var maxWatches: Int?
    /// The shortest gap between two full rescans of a root caused by overflow or an unknown
    /// watch; it doubles while they keep coming, up to `maxFullRescanGap`.
    public var minFullRescanGap: Duration = .seconds(1)
    public var maxFullRescanGap: Duration = .seconds(60)
    /// Bytes read from the inotify descriptor at a time.
    public var readBufferSize: Int = 64 * 1024

    public init(
        fallbackRescanInterval: Duration = .seconds(60), maxWatches: Int? = nil,
        minFullRescanGap: Duration = .seconds(1), maxFullRescanGap: Duration = .seconds(60)
    ) {
        self.fallbackRescanInterval = fallbackRescanInterval
        self.maxWatches = maxWatches
        self.minFullRescanGap = minFullRescanGap
        self.maxFullRescanGap = maxFullRescanGap
    }
}
