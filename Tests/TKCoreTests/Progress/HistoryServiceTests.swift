import Foundation
import Synchronization
import Testing
@testable import TKCore

@Suite struct HistoryServiceTests {
    final class Clock: Sendable {
        let date = Mutex(Date(timeIntervalSince1970: 1_795_600_000))
        func advance(_ s: TimeInterval) { date.withLock { $0 = $0.addingTimeInterval(s) } }
        var now: Now { Now { [self] in date.withLock { $0 } } }
    }

    func make() throws -> (HistoryService, Clock, PathBytes) {
        let clock = Clock()
        let service = HistoryService(database: try AppDatabase.inMemory(), now: clock.now)
        return (service, clock, PathBytes("/projects/novel"))
    }

    var settings: ProgressSettings { Configuration.defaults.progress }
    var history: HistorySettings { Configuration.defaults.history }

    @Test func aMoveBetweenDocumentsIsNotWritingEitherOrder() throws {
        let (service, _, root) = try make()
        let a = PathBytes("a.md"), b = PathBytes("b.md")
        let para = "A paragraph of exactly eight words right here."
        // First sight of the project: nothing counts.
        try service.observe(project: root, events: [.saved(path: a, bytes: Array("Intro.\n\n\(para)\n".utf8)),
                                                     .saved(path: b, bytes: Array("Other.\n".utf8))],
                            progress: settings, history: history)
        // Cut first, paste next (two saves).
        let cut = try service.observe(project: root, events: [.saved(path: a, bytes: Array("Intro.\n".utf8))],
                                      progress: settings, history: history)
        #expect(cut.count.deleted == 8)
        let paste = try service.observe(project: root, events: [.saved(path: b, bytes: Array("Other.\n\n\(para)\n".utf8))],
                                        progress: settings, history: history)
        #expect(paste.count.written == 0)
        var today = try service.days(project: root, from: cut.day, to: cut.day)[cut.day]
        #expect(today == WordsWritten.Count(written: 0, imported: 0, deleted: 0))
        // Paste first, cut next: the words written are taken back.
        try service.observe(project: root, events: [.saved(path: a, bytes: Array("Intro.\n\n\(para)\n".utf8))],
                            progress: settings, history: history)
        try service.observe(project: root, events: [.saved(path: b, bytes: Array("Other.\n".utf8))],
                            progress: settings, history: history)
        today = try service.days(project: root, from: cut.day, to: cut.day)[cut.day]
        #expect(today?.written == 0)
        // Both in one batch.
        try service.observe(project: root, events: [.saved(path: a, bytes: Array("Intro.\n".utf8)),
                                                     .saved(path: b, bytes: Array("Other.\n\n\(para)\n".utf8))],
                            progress: settings, history: history)
        today = try service.days(project: root, from: cut.day, to: cut.day)[cut.day]
        #expect(today == WordsWritten.Count(written: 0, imported: 0, deleted: 0))
    }

    @Test func snapshotsAreDeduplicatedKeptOnIntervalAndFollowRenames() throws {
        let (service, clock, root) = try make()
        let a = PathBytes("a.md")
        try service.observe(project: root, events: [.saved(path: a, bytes: Array("One.\n".utf8))], progress: settings, history: history)
        clock.advance(60)
        try service.observe(project: root, events: [.saved(path: a, bytes: Array("One two.\n".utf8))], progress: settings, history: history)
        #expect(try service.list(project: root, path: a).count == 1)
        clock.advance(31 * 60)
        try service.observe(project: root, events: [.saved(path: a, bytes: Array("One two three.\n".utf8))], progress: settings, history: history)
        let list = try service.list(project: root, path: a)
        #expect(list.map(\.reason) == ["edit", "first"])
        #expect(list[0].added == 2)
        let s1 = try service.snapshot(project: root, path: a, bytes: Array("One two three.\n".utf8), reason: "manual")
        let s2 = try service.snapshot(project: root, path: a, bytes: Array("One two three.\n".utf8), reason: "manual")
        #expect(s1 == s2)
        let b = PathBytes("b.md")
        try service.observe(project: root, events: [.moved(from: a, to: b, bytes: Array("One two three.\n".utf8))],
                            progress: settings, history: history)
        #expect(try service.list(project: root, path: b).count == 3)
        #expect(try service.list(project: root, path: a).isEmpty)
        #expect(try service.content(service.list(project: root, path: b).last!) == Array("One.\n".utf8))
    }

    @Test func retentionKeepsRecentAllThenDailyThenWeekly() throws {
        let (service, clock, root) = try make()
        let a = PathBytes("a.md")
        // Four snapshots a day for 60 days.
        for day in 0..<60 {
            for k in 0..<4 {
                try service.snapshot(project: root, path: a, bytes: Array("v \(day) \(k)\n".utf8), reason: "edit")
                clock.advance(6 * 3600)
            }
            _ = day
        }
        try service.prune(project: root, path: a, keep: HistorySettings.Keep(allDays: 7, dailyDays: 30))
        let left = try service.list(project: root, path: a).count
        // 7 days × 4, about 30 daily, about 23 days / 7 weekly.
        #expect(left >= 28 + 29 && left <= 28 + 31 + 5)
    }
}

extension HistoryServiceTests {
    @Test func daysWithoutFiguresAreRebuiltFromTheVersionsKept() throws {
        let (service, clock, root) = try make()
        let a = PathBytes("a.md")
        try service.snapshot(project: root, path: a, bytes: Array("One two.\n".utf8), reason: "manual")
        clock.advance(86_400)
        try service.snapshot(project: root, path: a, bytes: Array("One two three four.\n".utf8), reason: "restore")
        clock.advance(3600)
        try service.snapshot(project: root, path: a, bytes: Array("One two.\n".utf8), reason: "edit")
        let filled = try service.rebuildProgress(project: root, settings: settings)
        #expect(filled.count == 1)
        let day = try #require(filled.first)
        #expect(try service.days(project: root, from: day, to: day)[day] == WordsWritten.Count(written: 2, imported: 0, deleted: 0))
        // Days with figures are left alone.
        #expect(try service.rebuildProgress(project: root, settings: settings).isEmpty)
    }
}
