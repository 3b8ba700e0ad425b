import Foundation
import Synchronization
import Testing
@testable import TKCore

private func ms(_ n: Int) -> Duration { .milliseconds(n) }

@Suite struct SettleScheduleTests {
    @Test func quietPeriod() {
        var s = SettleSchedule<String>(settle: ms(300), maxDelay: ms(5000))
        s.touch("a", at: ms(0))
        #expect(s.deadline(of: "a") == ms(300))
        #expect(s.releaseDue(at: ms(299)).isEmpty)
        s.touch("a", at: ms(200))  // still changing: pushed back
        #expect(s.deadline(of: "a") == ms(500))
        #expect(s.releaseDue(at: ms(499)).isEmpty)
        #expect(s.nextDeadline() == ms(500))
        #expect(s.releaseDue(at: ms(500)) == ["a"])
        #expect(s.isEmpty && s.nextDeadline() == nil)
    }

    @Test func maxDelayForAFileThatNeverStopsChanging() {
        var s = SettleSchedule<String>(settle: ms(300), maxDelay: ms(2000))
        var released: [(Duration, [String])] = []
        var t = ms(0)
        // Touched every 100 ms for 5 s: never quiet for 300 ms.
        while t <= ms(5000) {
            let due = s.releaseDue(at: t)
            if !due.isEmpty { released.append((t, due)) }
            s.touch("busy", at: t)
            t += ms(100)
        }
        // Released at its first touch + max delay, and again max delay after each new first touch.
        #expect(released.map(\.0) == [ms(2000), ms(4000)])
        #expect(released.allSatisfy { $0.1 == ["busy"] })
    }

    @Test func independentKeysReleaseInDeadlineOrder() {
        var s = SettleSchedule<String>(settle: ms(100), maxDelay: ms(1000))
        s.touch("b", at: ms(50))
        s.touch("a", at: ms(0))
        s.touch("c", at: ms(10))
        #expect(s.count == 3)
        #expect(s.releaseDue(at: ms(109)) == ["a"])
        #expect(s.releaseDue(at: ms(1000)) == ["c", "b"])
    }

    @Test func retouchAfterReleaseStartsAfresh() {
        var s = SettleSchedule<Int>(settle: ms(100), maxDelay: ms(300))
        s.touch(1, at: ms(0))
        #expect(s.releaseDue(at: ms(100)) == [1])
        s.touch(1, at: ms(150))
        #expect(s.deadline(of: 1) == ms(250))
        #expect(s.releaseAll() == [1])
        #expect(s.releaseAll().isEmpty)
    }

    @Test func staleHeapEntriesAreNeverReleasedTwice() {
        var s = SettleSchedule<Int>(settle: ms(100), maxDelay: ms(10_000))
        for i in 0..<50 { s.touch(7, at: ms(i)) }
        #expect(s.count == 1)
        #expect(s.nextDeadline() == ms(149))
        #expect(s.releaseDue(at: ms(10_000)) == [7])
        #expect(s.nextDeadline() == nil)
    }

    @Test func degenerateSettings() {
        // A max delay below the settle time is raised to it; negative settle is zero.
        let s = SettleSchedule<Int>(settle: ms(500), maxDelay: ms(100))
        #expect(s.maxDelay == ms(500))
        var z = SettleSchedule<Int>(settle: ms(-5), maxDelay: ms(0))
        z.touch(1, at: ms(10))
        #expect(z.releaseDue(at: ms(10)) == [1])
    }
}

/// A clock that only moves when the test says so.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by d: Duration) -> Instant { Instant(offset: offset + d) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private struct Sleeper {
        var id: Int
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [Sleeper] = []
        var nextID = 0
    }

    private let state = Mutex(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    /// How many tasks are sleeping on this clock.
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { s in
            s.nextID += 1
            return s.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = state.withLock { s in
                    if deadline <= s.now { return true }
                    s.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: c))
                    return false
                }
                if resumeNow { c.resume() }
            }
        } onCancel: {
            let c = state.withLock { s -> CheckedContinuation<Void, any Error>? in
                guard let i = s.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return s.sleepers.remove(at: i).continuation
            }
            c?.resume(throwing: CancellationError())
        }
    }

    func advance(by d: Duration) {
        let due = state.withLock { s -> [CheckedContinuation<Void, any Error>] in
            s.now = s.now.advanced(by: d)
            let now = s.now
            let due = s.sleepers.filter { $0.deadline <= now }.map(\.continuation)
            s.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for c in due { c.resume() }
    }
}

/// Collects a settler's batches in the background.
final class BatchCollector<Key: Hashable & Sendable>: Sendable {
    final class Store: Sendable {
        let batches = Mutex<[[Key]]>([])
    }
    private let store: Store
    private let task: Task<Void, Never>

    init(_ settler: Settler<Key>) {
        let store = Store()
        self.store = store
        task = Task {
            for await batch in settler.released { store.batches.withLock { $0.append(batch) } }
        }
    }

    var all: [[Key]] { store.batches.withLock { $0 } }

    /// Waits (real time, bounded) until `count` batches arrived.
    func wait(for count: Int, timeout: Duration = .seconds(5)) async -> [[Key]] {
        let clock = ContinuousClock()
        let end = clock.now + timeout
        while clock.now < end {
            let b = all
            if b.count >= count { return b }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return all
    }

    /// Gives the settler's task a moment to run (real time) without expecting anything.
    static func settle() async {
        for _ in 0..<20 { await Task.yield() }
        try? await Task.sleep(for: .milliseconds(20))
    }

    func cancel() { task.cancel() }
}

@Suite struct SettlerTests {
    @Test func releasesAfterTheQuietPeriod() async {
        let clock = ManualClock()
        let settler = Settler<String>(settle: ms(300), maxDelay: ms(5000), batchWindow: .zero, clock: clock)
        let collector = BatchCollector(settler)
        settler.touch("a.md")
        #expect(settler.pendingCount == 1)
        await BatchCollector<String>.settle()
        clock.advance(by: ms(200))
        settler.touch("a.md")  // pushes the deadline to 500
        await BatchCollector<String>.settle()
        clock.advance(by: ms(200))  // t = 400: not quiet long enough
        await BatchCollector<String>.settle()
        #expect(collector.all.isEmpty)
        #expect(settler.pendingCount == 1)
        clock.advance(by: ms(100))  // t = 500
        #expect(await collector.wait(for: 1) == [["a.md"]])
        #expect(settler.pendingCount == 0)
        settler.finish()
        collector.cancel()
    }

    @Test func maxDelayReleasesAFileThatNeverStopsChanging() async {
        let clock = ManualClock()
        let settler = Settler<String>(settle: ms(300), maxDelay: ms(1000), batchWindow: .zero, clock: clock)
        let collector = BatchCollector(settler)
        // Written every 100 ms; never quiet for 300 ms.
        for _ in 0..<10 {
            settler.touch("slow.md")
            await BatchCollector<String>.settle()
            #expect(collector.all.isEmpty)
            clock.advance(by: ms(100))
        }
        // t = 1000 = first touch + max delay.
        #expect(await collector.wait(for: 1) == [["slow.md"]])
        settler.finish()
        collector.cancel()
    }

    @Test func neighboursLeaveInOneBatch() async {
        let clock = ManualClock()
        let settler = Settler<Int>(settle: ms(100), maxDelay: ms(1000), batchWindow: ms(50), clock: clock)
        let collector = BatchCollector(settler)
        settler.touch(1)
        await BatchCollector<Int>.settle()
        clock.advance(by: ms(30))
        settler.touch([2, 3])
        await BatchCollector<Int>.settle()
        clock.advance(by: ms(120))  // t = 150 = first deadline (100) + window (50); 2 and 3 are due at 130
        let batches = await collector.wait(for: 1)
        #expect(batches.count == 1)
        #expect(Set(batches.first ?? []) == [1, 2, 3])
        settler.finish()
        collector.cancel()
    }

    @Test func flushReleasesEverythingAtOnce() async {
        let clock = ManualClock()
        let settler = Settler<Int>(settle: ms(1000), maxDelay: ms(5000), batchWindow: .zero, clock: clock)
        let collector = BatchCollector(settler)
        settler.touch([1, 2])
        settler.flush()
        let batches = await collector.wait(for: 1)
        #expect(batches.map { Set($0) } == [[1, 2]])
        #expect(settler.pendingCount == 0)
        settler.finish()
        collector.cancel()
    }

    @Test func idleSettlerDoesNotSleepOnTheClock() async {
        let clock = ManualClock()
        let settler = Settler<Int>(settle: ms(100), maxDelay: ms(500), batchWindow: .zero, clock: clock)
        let collector = BatchCollector(settler)
        await BatchCollector<Int>.settle()
        #expect(clock.sleeperCount == 0)  // no polling loop while nothing is waiting
        settler.touch(1)
        clock.advance(by: ms(100))
        #expect(await collector.wait(for: 1) == [[1]])
        await BatchCollector<Int>.settle()
        #expect(clock.sleeperCount == 0)
        settler.finish()
        collector.cancel()
    }

    @Test func realClockEndToEnd() async {
        let settler = Settler<String>(settle: ms(20), maxDelay: ms(200))
        let collector = BatchCollector(settler)
        settler.touch("x")
        let batches = await collector.wait(for: 1, timeout: .seconds(30))  // a bound, not a speed test: loaded CI machines starve the pool
        #expect(batches == [["x"]])
        settler.finish()
        collector.cancel()
    }
}
