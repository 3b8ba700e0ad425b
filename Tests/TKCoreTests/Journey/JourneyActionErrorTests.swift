import Foundation
import Testing
@testable import TKCore

/// The suggestion and journey commands fail with typed errors a caller can tell apart (and whose
/// one line says what to do), not strings.
@Suite struct JourneyActionErrorTests {
    private func actions(_ root: String) throws -> JourneyActions {
        JourneyActions(paths: Paths.resolve(environment: ["TK_DATA_DIR": root + "/data"]), database: try AppDatabase.inMemory(),
                       sidecars: SidecarStore(), catalog: .builtIn, environment: [:])
    }

    @Test func locatingTellsAMissingFileAFolderAndANonMarkdownFileApart() throws {
        let root = TestScratch.path("tk-jae")
        try FileManager.default.createDirectory(atPath: root + "/notes.md", withIntermediateDirectories: true)
        try "plain".write(toFile: root + "/todo.txt", atomically: true, encoding: .utf8)
        let a = try actions(root)
        #expect { _ = try a.locate(file: root + "/gone.md") } throws: { e in
            guard case JourneyActionError.noSuchFile(let f) = e else { return false }
            return f.hasSuffix("gone.md") && "\(e)".hasSuffix("gone.md: no such file")
        }
        #expect { _ = try a.locate(file: root + "/notes.md") } throws: { e in
            if case JourneyActionError.notARegularFile = e { return true } else { return false }
        }
        #expect { _ = try a.locate(file: root + "/todo.txt") } throws: { e in
            if case JourneyActionError.notMarkdown = e { return true } else { return false }
        }
    }

    @Test func applyingASuggestionWhosePassageMovedSaysWhereItWas() throws {
        let root = TestScratch.path("tk-jae")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let path = root + "/draft.md"
        try "# Draft\n\nThe cat sat on the mat.\n".write(toFile: path, atomically: true, encoding: .utf8)
        let a = try actions(root)
        let loc = try a.locate(file: path)
        let added = try a.seed(loc, suggestions: [
            RawSuggestion(advisorId: "editor", type: .rephrase, originalText: "The cat sat", suggestedText: "A cat sat",
                          reasoning: "", priority: 1, confidence: 1),
        ])
        guard let id = added.first?.id else { Issue.record("no suggestion"); return }
        // The writer changed the passage after the suggestion was made.
        try "# Draft\n\nThe dog sat on the mat.\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect { _ = try a.decide(id: id, at: loc, status: .accepted, replacement: .suggested) } throws: { e in
            guard case JourneyActionError.passageMoved(let moved, let line, let document) = e else { return false }
            return moved == id && line == 3 && document == PathBytes("draft.md")
        }
        #expect { _ = try a.decide(id: "s-nope", at: loc, status: .accepted) } throws: { e in
            if case JourneyActionError.unknownSuggestion("s-nope") = e { return true } else { return false }
        }
        // Skipped, it is no longer pending: nothing to apply.
        _ = try a.decide(id: id, at: loc, status: .skipped)
        #expect { _ = try a.decide(id: id, at: loc, status: .accepted, replacement: .suggested) } throws: { e in
            if case JourneyActionError.notPending(_, .skipped) = e { return true } else { return false }
        }
    }

    @Test func aMissingStoredVersionIsTold() throws {
        let store = ObjectStore(database: try AppDatabase.inMemory())
        let sha = String(repeating: "ab", count: 32)
        #expect(throws: HistoryError.missingVersion(sha)) { _ = try store.get(sha) }
    }
}
