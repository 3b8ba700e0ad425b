import Foundation
import Logging
import Synchronization
import Testing
@testable import TKCore

/// A temporary project folder, removed at the end.
private final class TempTree {
    let url: URL
    var root: PathBytes { PathBytes(url.path) }

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("tk-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func mkdir(_ rel: String) throws {
        try FileManager.default.createDirectory(at: url.appendingPathComponent(rel), withIntermediateDirectories: true)
    }

    func write(_ rel: String, _ text: String = "# x\n") throws {
        let u = url.appendingPathComponent(rel)
        try FileManager.default.createDirectory(at: u.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: u)
    }

    func path(_ rel: String) -> PathBytes { root.appending(rel) }
}

/// Collects a watcher's events in the background.
private final class EventCollector: Sendable {
    final class Store: Sendable { let events = Mutex<[WatchEvent]>([]) }
    private let store: Store
    private let task: Task<Void, Never>

    init(_ watcher: TreeWatcher) {
        let store = Store()
        self.store = store
        task = Task {
            for await event in watcher.events() { store.events.withLock { $0.append(event) } }
        }
    }

    var all: [WatchEvent] { store.events.withLock { $0 } }

    /// Waits (bounded, real time) until an event satisfies `match`.
    @discardableResult
    func wait(timeout: Duration = .seconds(20), _ match: (WatchEvent) -> Bool) async -> WatchEvent? {
        let clock = ContinuousClock()
        let end = clock.now + timeout
        while clock.now < end {
            if let e = all.first(where: match) { return e }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }

    func cancel() { task.cancel() }
}

private func makeWatcher(_ options: TreeWatcherOptions = TreeWatcherOptions()) throws -> TreeWatcher {
    try TreeWatcher(filter: { _ in PathFilter(ignore: ["skipped/"]) }, rescanInterval: nil,
                    logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }), options: options)
}

@Suite(.serialized) struct TreeWatcherTests {
    @Test func startupWatchesOnlyWantedFolders() async throws {
        let tree = try TempTree()
        for d in ["a/b", ".git/objects", "node_modules/x", "skipped/y", "c"] { try tree.mkdir(d) }
        try FileManager.default.createSymbolicLink(atPath: tree.url.appendingPathComponent("link").path,
                                                   withDestinationPath: tree.url.appendingPathComponent("a").path)
        let watcher = try makeWatcher()
        let events = EventCollector(watcher)
        watcher.addRoot(tree.root)
        let first = await events.wait { if case .rescan = $0 { return true } else { return false } }
        #expect(first == .rescan(root: tree.root, directory: tree.root, reason: "startup"))
        let watched = watcher.sync { watcher.watchedDirectories() }
        #expect(watched == [tree.root, tree.path("a"), tree.path("a/b"), tree.path("c")].sorted())
        watcher.shutdown()
        events.cancel()
    }

    @Test func documentChangesAreReportedAndTemporaryNamesAreNot() async throws {
        let tree = try TempTree()
        let watcher = try makeWatcher()
        let events = EventCollector(watcher)
        watcher.addRoot(tree.root)
        await events.wait { _ in true }
        try tree.write("4913", "")
        try tree.write(".note.md.swp")
        try tree.write("note.md~")
        try tree.write("notes.txt")
        try tree.write("note.md")
        let changed = await events.wait { if case .changed = $0 { return true } else { return false } }
        #expect(changed == .changed(root: tree.root, path: tree.path("note.md")))
        try await Task.sleep(for: .milliseconds(50))
        let paths = events.all.compactMap { e -> PathBytes? in
            if case .changed(_, let p) = e { return p } else { return nil }
        }
        #expect(Set(paths) == [tree.path("note.md")])
        watcher.shutdown()
        events.cancel()
    }

    @Test func newDirectoryTreeIsWatchedBeforeItIsListed() async throws {
        let tree = try TempTree()
        let watcher = try makeWatcher()
        let events = EventCollector(watcher)
        watcher.addRoot(tree.root)
        await events.wait { _ in true }
        try tree.write("n/a/b/c/deep.md")
        let rescan = await events.wait {
            if case .rescan(_, let d, let why) = $0 { return d == tree.path("n") && why == "new directory" }
            return false
        }
        #expect(rescan != nil)
        // Every level ends up watched, so a later write deep down is reported.
        try await Task.sleep(for: .milliseconds(50))
        try tree.write("n/a/b/c/later.md")
        let later = await events.wait { $0 == .changed(root: tree.root, path: tree.path("n/a/b/c/later.md")) }
        #expect(later != nil)
        watcher.shutdown()
        events.cancel()
    }

    @Test func overflowAndUnknownWatchRescanTheRoot() async throws {
        let tree = try TempTree()
        let watcher = try makeWatcher()
        let events = EventCollector(watcher)
        watcher.addRoot(tree.root)
        await events.wait { _ in true }
        watcher.inject(InotifyEventParser.encode([InotifyEvent(watch: WatchDescriptor(rawValue: -1), mask: .queueOverflow)]))
        let overflow = await events.wait { $0 == .rescan(root: tree.root, directory: tree.root, reason: "overflow") }
        #expect(overflow != nil)
        // A second overflow right away is rate-limited (delayed), not dropped and not immediate.
        watcher.inject(InotifyEventParser.encode([InotifyEvent(watch: 9999, mask: .modify, name: "x.md")]))
        try await Task.sleep(for: .milliseconds(100))
        #expect(!events.all.contains { if case .rescan(_, _, "unknown watch") = $0 { return true } else { return false } })
        let delayed = await events.wait(timeout: .seconds(5)) {
            if case .rescan(_, _, "unknown watch") = $0 { return true } else { return false }
        }
        #expect(delayed != nil)
        watcher.shutdown()
        events.cancel()
    }

    @Test func watchLimitIsAProblemWithTheRemedy() async throws {
        let tree = try TempTree()
        for d in ["a", "b", "c", "d"] { try tree.mkdir(d) }
        let watcher = try makeWatcher(TreeWatcherOptions(fallbackRescanInterval: .milliseconds(200), maxWatches: 2))
        let events = EventCollector(watcher)
        watcher.addRoot(tree.root)
        let problem = await events.wait { if case .problem = $0 { return true } else { return false } }
        guard case .problem(let root, _, let message) = problem else {
            Issue.record("no problem reported")
            return
        }
        #expect(root == tree.root)
        #expect(message.contains("sysctl fs.inotify.max_user_watches="))
        #expect(!message.contains("\n"))
        // While degraded, fallback rescans keep coming.
        let fallback = await events.wait { $0 == .rescan(root: tree.root, directory: tree.root, reason: "watch limit") }
        #expect(fallback != nil)
        watcher.shutdown()
        events.cancel()
    }

    @Test func movedOutFolderIsRemovedAndForgotten() async throws {
        let tree = try TempTree()
        let outside = try TempTree()
        try tree.write("d/e/x.md")
        let watcher = try makeWatcher()
        let events = EventCollector(watcher)
        watcher.addRoot(tree.root)
        await events.wait { _ in true }
        try FileManager.default.moveItem(at: tree.url.appendingPathComponent("d"), to: outside.url.appendingPathComponent("d"))
        let removed = await events.wait { $0 == .removed(root: tree.root, directory: tree.path("d")) }
        #expect(removed != nil)
        try await Task.sleep(for: .milliseconds(50))
        #expect(watcher.sync { watcher.watchedDirectories() } == [tree.root])
        // Writes out there are not reported under the old path.
        let seen = events.all.count
        try outside.write("d/e/y.md")
        try await Task.sleep(for: .milliseconds(100))
        #expect(!events.all[seen...].contains { if case .changed = $0 { return true } else { return false } })
        watcher.shutdown()
        events.cancel()
    }

    @Test func projectConfigEditsAreReportedButNotSidecarWrites() async throws {
        let tree = try TempTree()
        let watcher = try makeWatcher()
        let events = EventCollector(watcher)
        watcher.addRoot(tree.root)
        await events.wait { _ in true }
        // The .tk folder appears (e.g. the first sidecar): watched, reported once.
        try tree.mkdir(".tk/sub")
        #expect(await events.wait { $0 == .configChanged(root: tree.root) } != nil)
        try await Task.sleep(for: .milliseconds(50))
        let seen = events.all.count
        try tree.write(".tk/a.md.review.json", "{}")
        try tree.write(".tk/sub/b.md.review.json", "{}")
        try await Task.sleep(for: .milliseconds(100))
        #expect(events.all.count == seen)  // sidecar writes are not news
        try tree.write(".tk/config.json", "{}")
        await events.wait { _ in events.all.count > seen }
        #expect(Set(events.all[seen...]) == [.configChanged(root: tree.root)])
        // Only .tk itself is watched, never below it.
        #expect(watcher.sync { watcher.watchedDirectories() } == [tree.root, tree.path(".tk")])
        watcher.shutdown()
        events.cancel()
    }
}
