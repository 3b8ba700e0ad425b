import Dispatch
import Foundation
import Testing
@testable import TKCore

@Suite struct SidecarStoreTests {
    func tempDir() throws -> PathBytes {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tk-sidecar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return PathBytes(url.path)
    }

    func fresh(_ rel: PathBytes) -> ReviewSidecar {
        ReviewSidecar(document: rel.display, sha256: "0", updatedAt: "", words: 0)
    }

    @Test func lockIsReentrantSoRemoveInsideModifyDoesNotHang() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir.display) }
        let store = SidecarStore(lockFile: dir.appending("lock"))
        let project = dir.appending("p")
        let rel = PathBytes("a/b.md")
        _ = try store.modify(project: project, document: rel, rebuild: { fresh(rel) }) { _ in }
        #expect(FileSystem.lstatIfExists(ReviewSidecar.path(project: project, document: rel)) != nil)
        try store.withLock {
            try store.withLock { store.remove(project: project, document: rel) }
        }
        #expect(FileSystem.lstatIfExists(ReviewSidecar.path(project: project, document: rel)) == nil)
        // The emptied .tk/a folder went with it.
        #expect(FileSystem.lstatIfExists(project.appending(".tk/a")) == nil)
    }

    /// `modify` returns the sidecar exactly as the file now says it (it is not read back: the time
    /// of writing is set on it), whether it wrote a new file, changed one, or found nothing to change.
    @Test func modifyReturnsWhatTheFileSays() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir.display) }
        let store = SidecarStore(lockFile: dir.appending("lock"))
        let project = dir.appending("p")
        let rel = PathBytes("notes/a.md")
        func onDisk() throws -> ReviewSidecar {
            try JSON.decode(ReviewSidecar.self, from: FileSystem.read(ReviewSidecar.path(project: project, document: rel), limit: 1 << 20))
        }
        let created = try store.modify(project: project, document: rel, rebuild: { fresh(rel) }) { $0.words = 12 }
        #expect(created.wrote && !created.sidecar.updatedAt.isEmpty)
        let first = try onDisk()
        #expect(created.sidecar == first)
        let changed = try store.modify(project: project, document: rel, rebuild: { fresh(rel) }) { $0.words = 13 }
        let second = try onDisk()
        #expect(changed.wrote && changed.sidecar == second)
        let same = try store.modify(project: project, document: rel, rebuild: { fresh(rel) }) { $0.words = 13 }
        let third = try onDisk()
        #expect(!same.wrote && same.sidecar == third)
    }

    /// The database's compact copy is made from the bytes written, not by encoding the sidecar again:
    /// it must be exactly what the compact encoder gives, whatever the strings hold.
    @Test func theCompactCopyOfWrittenBytesIsTheCompactEncoding() throws {
        let tricky = "say \"so\" — a back\\slash, a/slash, tab\tand\nline, “curly” é {not: [json]} , : "
        var s = ReviewSidecar(document: "notes/draft one.md", sha256: String(repeating: "a", count: 64), updatedAt: "2026-11-27T10:00:00Z",
                              words: 42)
        s.quick = [
            Finding(id: "q1", rule: "weasel", category: .weasel, severity: .warning, message: tricky, text: "  very  ",
                    start: 3, end: 7, line: 1, column: 4, replacements: []),
            Finding(id: "q2", rule: "cliche", category: .cliche, severity: .info, message: "", text: "\\",
                    start: 10, end: 12, line: 2, column: 1, replacements: ["a", " b ", ""]),
        ]
        let written = try SidecarStore.encode(s)
        #expect(SidecarStore.compactJSON(ofWritten: written) == (try JSON.encode(s, pretty: false)))
        #expect(SidecarStore.compactJSON(ofWritten: try JSON.encode(s)) == nil)
        let copy = try #require(SidecarStore.compactJSON(ofWritten: written))
        #expect(try JSON.decode(ReviewSidecar.self, from: copy) == s)
    }

    @Test func concurrentModifiesLoseNoUpdate() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir.display) }
        let store = SidecarStore(lockFile: dir.appending("lock"))
        let project = dir.appending("p")
        let rel = PathBytes("n.md")
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<25 {
                _ = try? store.modify(project: project, document: rel, rebuild: { fresh(rel) }) { s in
                    s.journey.revisionCycle += 1
                }
            }
        }
        guard case .ok(let s, _) = store.read(project: project, document: rel) else {
            Issue.record("sidecar missing")
            return
        }
        #expect(s.journey.revisionCycle == 100)
    }

    @Test func moveKeepsContentAndPrunes() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(atPath: dir.display) }
        let store = SidecarStore(lockFile: dir.appending("lock"))
        let project = dir.appending("p")
        let old = PathBytes("x/y/old.md")
        _ = try store.modify(project: project, document: old, rebuild: { fresh(old) }) { $0.journey.revisionCycle = 3 }
        try store.move(project: project, from: old, to: PathBytes("new.md"))
        guard case .ok(let s, _) = store.read(project: project, document: PathBytes("new.md")) else {
            Issue.record("moved sidecar missing")
            return
        }
        #expect(s.journey.revisionCycle == 3)
        #expect(FileSystem.lstatIfExists(project.appending(".tk/x")) == nil)
        #expect(FileSystem.lstatIfExists(project.appending(".tk")) != nil)
        // Moving a sidecar that does not exist is a no-op.
        try store.move(project: project, from: PathBytes("none.md"), to: PathBytes("other.md"))
    }
}
