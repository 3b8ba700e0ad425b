import Synchronization

/// Releases dirty keys once they have been quiet for a while, in batches.
///
/// `touch` marks a key dirty; it is released on `released` once nothing touched it for `settle`
/// (default 300 ms), or `maxDelay` (default 5 s) after its first touch if it never goes quiet.
/// A single task sleeps until the earliest deadline plus `batchWindow` (so keys due close
/// together leave in one batch); when nothing is waiting it sleeps until the next `touch`.
/// No polling. The clock is injected, so tests drive it by hand.
public final class Settler<Key: Hashable & Sendable>: Sendable {
    /// Batches of settled keys, earliest first. One consumer.
    public let released: AsyncStream<[Key]>

    private let state: Box
    private let clock: SettlerClock
    private let output: AsyncStream<[Key]>.Continuation
    private let wake: AsyncStream<Void>.Continuation
    private let runner: Mutex<Task<Void, Never>?>

    /// - Parameters:
    ///   - settle: how long a key must stay untouched (`watch.settle_ms`).
    ///   - maxDelay: the longest a key waits after its first touch (`watch.max_settle_ms`).
    ///   - batchWindow: extra wait after the earliest deadline so neighbours join the batch;
    ///     default `settle / 5`, at most 100 ms.
    ///   - clock: the clock to sleep on (`ContinuousClock()` in production).
    public init(
        settle: Duration = .milliseconds(300), maxDelay: Duration = .milliseconds(5000),
        batchWindow: Duration? = nil, clock: any Clock<Duration> = ContinuousClock()
    ) {
        let schedule = SettleSchedule<Key>(settle: settle, maxDelay: maxDelay)
        let state = Box(schedule)
        let clock = SettlerClock(clock)
        let window = batchWindow ?? min(settle / 5, .milliseconds(100))
        let (released, output) = AsyncStream.makeStream(of: [Key].self, bufferingPolicy: .unbounded)
        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.released = released
        self.state = state
        self.clock = clock
        self.output = output
        self.wake = wake
        let task = Task {
            await Self.run(state: state, clock: clock, window: window, wakeups: wakeups, output: output)
        }
        self.runner = Mutex(task)
        output.onTermination = { _ in
            task.cancel()
            wake.finish()
        }
    }

    deinit {
        runner.withLock { $0?.cancel() }
        wake.finish()
        output.finish()
    }

    /// Marks `key` dirty now.
    public func touch(_ key: Key) {
        let now = clock.now()
        let wasEmpty = state.withLock { schedule in
            let wasEmpty = schedule.isEmpty
            schedule.touch(key, at: now)
            return wasEmpty
        }
        if wasEmpty { wake.yield() }
    }

    /// Marks every key dirty now.
    public func touch<S: Sequence>(_ keys: S) where S.Element == Key {
        let now = clock.now()
        let wasEmpty = state.withLock { schedule in
            let wasEmpty = schedule.isEmpty
            for key in keys { schedule.touch(key, at: now) }
            return wasEmpty
        }
        if wasEmpty { wake.yield() }
    }

    /// How many keys are waiting.
    public var pendingCount: Int { state.withLock { $0.count } }

    /// Releases every waiting key now, as one batch (for shutdown or an explicit flush).
    public func flush() {
        let batch = state.withLock { $0.releaseAll() }
        if !batch.isEmpty { output.yield(batch) }
    }

    /// Stops the settler: waiting keys are dropped and `released` finishes.
    public func finish() {
        runner.withLock { $0?.cancel() }
        wake.finish()
        output.finish()
    }

    private static func run(
        state: Box, clock: SettlerClock, window: Duration,
        wakeups: AsyncStream<Void>, output: AsyncStream<[Key]>.Continuation
    ) async {
        for await _ in wakeups {
            while !Task.isCancelled {
                guard let next = state.withLock({ $0.nextDeadline() }) else { break }
                do {
                    try await clock.sleep(until: next + window)
                } catch {
                    return
                }
                let now = clock.now()
                let batch = state.withLock { $0.releaseDue(at: now) }
                if !batch.isEmpty { output.yield(batch) }
            }
        }
    }
}

extension Settler {
    /// The schedule behind a lock, shared with the runner task.
    final class Box: Sendable {
        let mutex: Mutex<SettleSchedule<Key>>
        init(_ schedule: SettleSchedule<Key>) { mutex = Mutex(schedule) }
        func withLock<R: Sendable>(_ body: (inout SettleSchedule<Key>) -> R) -> R { mutex.withLock { body(&$0) } }
    }
}

/// An `any Clock<Duration>` opened once into closures over offsets from its creation.
struct SettlerClock: Sendable {
    let now: @Sendable () -> Duration
    let sleep: @Sendable (Duration) async throws -> Void

    init(_ clock: any Clock<Duration>) {
        (now, sleep) = Self.open(clock)
    }

    func sleep(until offset: Duration) async throws { try await sleep(offset) }

    private static func open<C: Clock<Duration>>(
        _ clock: C
    ) -> (@Sendable () -> Duration, @Sendable (Duration) async throws -> Void) {
        let origin = clock.now
        return (
            { origin.duration(to: clock.now) },
            { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
        )
    }
}
