import Dispatch
import Foundation

/// A value computed on another thread while the caller goes on: `check` loads a team's Vale styles
/// while it reads its configuration and dictionaries, and lints a document with them while the
/// heuristics run, on the machine's other core.
///
/// `@unchecked Sendable` is safe because `result` is written once, by the background block, before
/// it signals `done`, and read only by `value` after `done` was waited on, which orders the write
/// before the read. `value` signals `done` again after its wait, so any number of threads may ask.
public final class Background<T: Sendable>: @unchecked Sendable {
    private var result: T?
    private let done = DispatchSemaphore(value: 0)

    /// On a thread of its own: Dispatch's global queues also hold the heuristics' warm-up jobs,
    /// and a value queued behind them waited for them on a 2-core machine.
    public init(_ work: @escaping @Sendable () -> T) {
        let thread = Thread { [self] in
            result = work()
            done.signal()
        }
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// The value, once computed (blocks until then; from any thread).
    public var value: T {
        done.wait()
        done.signal()
        // `result` is set before `done` is signalled: only a block that never returned leaves it nil.
        guard let result else { preconditionFailure("Background: the work did not finish") }
        return result
    }
}

/// Lets go of a large value on another thread: freeing a document's walk (thousands of blocks,
/// each with its own arrays) took `check` milliseconds on its one thread after the rules had run,
/// while the report waited. The caller's reference is taken from `value` (left nil), so the
/// last reference, and the freeing, is the other thread's.
public enum Disposal {
    public static func later<T: AnyObject & Sendable>(_ value: inout T?) {
        guard let object = value else { return }
        value = nil
        DispatchQueue.global(qos: .utility).async { withExtendedLifetime(object) {} }
    }
}
