import Synchronization

/// Set when the agent stops: blocking work (a scan, a backfill) checks it between files and
/// batches, and gives up what it has not committed, which the next start finishes.
public final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    /// Whether the work should stop.
    public var isSet: Bool { flag.load(ordering: .acquiring) }

    /// Asks the work to stop (from any thread; once set, it stays set).
    public func set() { flag.store(true, ordering: .releasing) }

    /// Runs blocking `body` with a flag that is set when the current task is cancelled.
    public static func whileRunning<T>(_ body: (StopFlag) -> T) async -> T {
        let stop = StopFlag()
        return await withTaskCancellationHandler { body(stop) } onCancel: { stop.set() }
    }
}

/// Where the scans of whole projects stand: documents done of total, per project root. Written by
/// the indexing thread, read by the status snapshot and the terminal progress line.
public final class ScanProgress: Sendable {
    public struct Entry: Sendable, Equatable {
        public var done: Int
        public var total: Int
    }

    private let entries = Mutex<[PathBytes: Entry]>([:])
    /// Told of each change (the status nudge, a progress line on a terminal).
    private let observer: @Sendable (PathBytes, Entry?) -> Void

    public init(observer: @escaping @Sendable (PathBytes, Entry?) -> Void = { _, _ in }) {
        self.observer = observer
    }

    func update(_ root: PathBytes, done: Int, total: Int) {
        let e = Entry(done: done, total: total)
        entries.withLock { $0[root] = e }
        observer(root, e)
    }

    func finish(_ root: PathBytes) {
        let had = entries.withLock { $0.removeValue(forKey: root) != nil }
        if had { observer(root, nil) }
    }

    /// The scan of a project in progress, if any.
    func entry(_ root: PathBytes) -> Entry? { entries.withLock { $0[root] } }
}
