import Foundation
import Testing
@testable import TKCore

struct DocumentRewriterTests {
    struct Refused: Error {}

    private func file(_ text: String, mode: mode_t = 0o640) throws -> (dir: String, path: PathBytes) {
        let dir = NSTemporaryDirectory() + "rewriter-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = PathBytes(dir + "/doc.md")
        try FileSystem.writeAtomically(Array(text.utf8), to: path, mode: mode)
        return (dir, path)
    }

    @Test func theChangeSeesTheBytesOnDiskAndTheFileKeepsItsMode() throws {
        let (dir, path) = try file("one two\n", mode: 0o600)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try DocumentRewriter.rewrite(path) { current in
            #expect(current == Array("one two\n".utf8))
            return Array("one three\n".utf8)
        }
        #expect(r?.old == Array("one two\n".utf8))
        #expect(try FileSystem.read(path, limit: 1 << 20) == Array("one three\n".utf8))
        #expect(DocumentRewriter.mode(of: path) == 0o600)
        // No temporary file is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["doc.md"])
    }

    @Test func aRefusalOrNothingToDoLeavesTheFileAlone() throws {
        let (dir, path) = try file("keep me\n")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(throws: Refused.self) { try DocumentRewriter.rewrite(path) { _ in throw Refused() } }
        #expect(try DocumentRewriter.rewrite(path) { _ in nil } == nil)
        #expect(try FileSystem.read(path, limit: 1 << 20) == Array("keep me\n".utf8))
    }

    @Test func aMissingDocumentIsUnreadableAndNothingIsCreated() throws {
        let (dir, _) = try file("x")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let missing = PathBytes(dir + "/gone.md")
        var called = false
        do {
            try DocumentRewriter.rewrite(missing) { _ in called = true; return [1] }
            Issue.record("a missing document was rewritten")
        } catch let e as DocumentRewriteError {
            #expect(e.reason == .unreadable)
            #expect(e.description.contains("gone.md"))
        }
        #expect(!called)
        #expect(FileSystem.lstatIfExists(missing) == nil)
    }
}
