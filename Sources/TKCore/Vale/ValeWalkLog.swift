import Foundation
import Synchronization

/// What Vale's walker does to a document, for linters that run the rules on other threads.
///
/// The walk (finding the blocks, masking the placed text in the content, counting scopes) does not
/// depend on the rules, and on a long document it costs about as much as running a pack's rules.
/// `check` walks a document once, while the styles are still loading, and hands the walk to the
/// threads that share the rules: each replays the events in order, so that every rule sees the
/// content, comments, summary and counts it would have seen inline, and reports what it would have.
enum ValeWalkEvent: Sendable {
    /// The document as prepared for the walk (the first event).
    case start(ValeFileLinter.Prepared)
    /// The walker masked the one-byte characters of `content[at..<at + count]` (`maskInContent`).
    case mask(at: Int, count: Int)
    /// Text appended to the summary scope.
    case summary(String)
    /// One more element counted for the metrics.
    case metric(String)
    /// The in-document comment switches, as they are from now on.
    case comments([String: Bool])
    /// A block to lint (its context is the content as masked so far when `fromContent`; it is
    /// then left out here, and the replaying linter puts its own content in). `made` holds what
    /// every share makes of the block's text alike: the first share to need it makes it.
    case block(ValeBlock, lookup: Bool, made: ValeBlockMade)
}

/// A walked block's text as the rules read it, and the prefilter's verdict on it: the same for
/// every share of the rules (one pack, one text), so the first share to need one makes it and the
/// others take it (before, each share made both for every block).
final class ValeBlockMade: Sendable {
    private let state = Mutex<(text: ValeText?, hits: ValePrefilter.Hits??)>((nil, .none))

    func text(_ make: () -> ValeText) -> ValeText {
        state.withLock { s in
            if let t = s.text { return t }
            let t = make()
            s.text = t
            return t
        }
    }

    func hits(_ make: () -> ValePrefilter.Hits?) -> ValePrefilter.Hits? {
        state.withLock { s in
            if case .some(let h) = s.hits { return h }
            let h = make()
            s.hits = .some(h)
            return h
        }
    }
}

/// The events of one walk, written by one thread and read, each from the start, by any number.
///
/// `@unchecked Sendable` is safe because `events` and `finished` are only read or written with
/// `condition` locked.
final class ValeWalkLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var events: [ValeWalkEvent] = []
    private var finished = false

    /// Adds events and wakes the readers.
    func append(_ more: [ValeWalkEvent]) {
        guard !more.isEmpty else { return }
        condition.lock()
        events.append(contentsOf: more)
        condition.broadcast()
        condition.unlock()
    }

    /// The walk is over: readers stop after the last event.
    func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// The events from `index` on, waiting until there is one; empty once the walk is over and
    /// every event was read.
    func events(from index: Int) -> [ValeWalkEvent] {
        condition.lock()
        defer { condition.unlock() }
        while events.count <= index && !finished { condition.wait() }
        return index < events.count ? Array(events[index...]) : []
    }
}

/// A Markdown document being walked on a thread of its own as Vale walks it, with a configuration
/// (and no rules yet): what `ValeEngine.findings(walk:…)` runs the rules over.
public final class ValeDocumentWalk: Sendable {
    let relativePath: String
    let ext: String
    let log = ValeWalkLog()
    /// The walking thread (its value only says it is done).
    private let walking: Background<Bool>

    /// Starts the walk of `bytes` (the path as Vale's section globs see it). The engine that lints
    /// the walk must have been loaded from the same configuration.
    public init(bytes: [UInt8], relativePath: String, configuration: ValeConfiguration) {
        self.relativePath = relativePath
        let ext = ValeEngine.extensionOf(relativePath)
        self.ext = ext
        let log = log
        walking = Background {
            let walker = ValeFileLinter(styles: ValeStyles(), cfg: configuration, relativePath: relativePath, ext: ext)
            walker.record(walker.prepare(bytes: bytes), into: log)
            return true
        }
    }
}
