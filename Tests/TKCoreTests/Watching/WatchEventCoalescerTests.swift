import Testing
@testable import TKCore

private let root = PathBytes("/p")
private let other = PathBytes("/q")
private func changed(_ s: String, _ r: PathBytes = root) -> WatchEvent { .changed(root: r, path: PathBytes(s)) }
private func rescan(_ s: String, _ r: PathBytes = root, _ why: String = "x") -> WatchEvent {
    .rescan(root: r, directory: PathBytes(s), reason: why)
}
private func removed(_ s: String, _ r: PathBytes = root) -> WatchEvent { .removed(root: r, directory: PathBytes(s)) }

@Suite struct WatchEventCoalescerTests {
    @Test func duplicatesGoFirstOccurrenceStays() {
        let events = [changed("/p/a.md"), changed("/p/b.md"), changed("/p/a.md"), changed("/p/a.md")]
        #expect(WatchEventCoalescer.coalesce(events) == [changed("/p/a.md"), changed("/p/b.md")])
    }

    @Test func changesInsideARescanGo() {
        let events = [changed("/p/d/a.md"), rescan("/p/d"), changed("/p/d/e/b.md"), changed("/p/x.md"), changed("/p/dd.md")]
        #expect(WatchEventCoalescer.coalesce(events) == [rescan("/p/d"), changed("/p/x.md"), changed("/p/dd.md")])
    }

    @Test func nestedRescansCollapseIntoTheOuterOne() {
        let events = [rescan("/p/a/b", root, "new directory"), rescan("/p/a"), rescan("/p/a"), rescan("/p/c")]
        #expect(WatchEventCoalescer.coalesce(events) == [rescan("/p/a"), rescan("/p/c")])
    }

    @Test func otherRootsAreIndependent() {
        // The same folder can belong to two roots (nested projects); each root keeps its own events.
        let events = [rescan("/p"), changed("/p/a.md", other), changed("/p/a.md"), rescan("/q/z", other)]
        #expect(WatchEventCoalescer.coalesce(events) == [rescan("/p"), changed("/p/a.md", other), rescan("/q/z", other)])
    }

    @Test func removedSplitsTheBatch() {
        // Order across a `.removed` matters: a folder gone, then recreated and rescanned.
        let events = [
            changed("/p/d/a.md"), changed("/p/d/a.md"), removed("/p/d"), rescan("/p/d"), changed("/p/d/a.md"),
            removed("/p/d"),
        ]
        #expect(WatchEventCoalescer.coalesce(events) == [changed("/p/d/a.md"), removed("/p/d"), rescan("/p/d"), removed("/p/d")])
    }

    @Test func problemsPassThrough() {
        let events: [WatchEvent] = [
            .problem(root: root, kind: .watchLimit, message: "watch limit"), changed("/p/a.md"), .problemCleared(root: root),
            .problem(root: root, kind: .watchLimit, message: "watch limit"),
        ]
        #expect(WatchEventCoalescer.coalesce(events) == events)
    }

    @Test func pathPrefixIsNotContainment() {
        // /p/dd.md is not inside /p/d.
        #expect(WatchEventCoalescer.coalesce([rescan("/p/d"), changed("/p/dd/x.md")]) == [rescan("/p/d"), changed("/p/dd/x.md")])
    }

    @Test func smallBatchesAreUntouched() {
        #expect(WatchEventCoalescer.coalesce([]) == [])
        #expect(WatchEventCoalescer.coalesce([changed("/p/a.md")]) == [changed("/p/a.md")])
    }

    @Test func largeBatchIsFast() {
        var events: [WatchEvent] = []
        for i in 0..<20_000 { events.append(changed("/p/burst/f\(i % 5000).md")) }
        let clock = ContinuousClock()
        var out: [WatchEvent] = []
        let t = clock.measure { out = WatchEventCoalescer.coalesce(events) }
        #expect(out.count == 5000)
        #expect(t < .seconds(2))
    }
}
