import Foundation
import Logging
import Synchronization
import Testing
@testable import TKCore

@Suite struct DocumentPipelineJourneyTests {
    /// Saves through the pipeline follow suggestions with the previous bytes from the database, and the
    /// ready notification goes out once.
    @Test func savesFollowSuggestionsAndNotifyOnce() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-journey-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let root = PathBytes(dir.path)
        let rel = PathBytes("draft.md")
        let db = try AppDatabase.inMemory()
        let sent = Mutex<[String]>([])
        let pipeline = DocumentPipeline(database: db, logger: Logger(label: "test"), sidecars: SidecarStore(),
                                        catalog: .builtIn, notify: { title, body, _ in sent.withLock { $0.append(title + ": " + body) } })
        let config = Configuration.defaults
        func save(_ text: String) {
            let bytes = Array(text.utf8)
            try? FileSystem.writeAtomically(bytes, to: root.appending(rel))
            let doc = MarkdownDocument(bytes: bytes, fileName: "draft.md")
            let problems = pipeline.apply([.updated(relative: rel, document: doc, sha256: SHA256Digest.hex(bytes), previousSha256: nil)],
                                          root: root, config: config)
            #expect(problems[rel] == .some(nil))
        }
        let v1 = "The cat sat on the mat.\n\nIt was a dark and stormy night.\n"
        save(v1)
        // Nothing pending: the database keeps no copy of the bytes.
        #expect(pipeline.states.previousContent(project: root, document: rel) == nil)
        let actions = JourneyActions(paths: Paths.resolve(environment: ["TK_DATA_DIR": dir.path + "/data"]), database: db,
                                     sidecars: SidecarStore(), catalog: .builtIn, environment: [:])
        let loc = DocumentLocation(project: root, relative: rel)
        let added = try actions.seed(loc, suggestions: [
            RawSuggestion(advisorId: "editor", type: .rephrase, originalText: "The cat sat", suggestedText: "A cat sat",
                          reasoning: "", priority: 1, confidence: 1),
            RawSuggestion(advisorId: "editor", type: .rephrase, originalText: "dark and stormy night",
                          suggestedText: "storm", reasoning: "", priority: 1, confidence: 1),
        ])
        #expect(added.count == 2)
        // Suggestions anchored: the bytes they describe are kept for the next save's diff.
        #expect(pipeline.states.previousContent(project: root, document: rel)?.content == Array(v1.utf8))
        // The same phrase twice: only the diff tells which one moved.
        let v2 = "It was a dark and stormy night.\n\n" + v1.replacingOccurrences(of: "The cat sat", with: "A cat sat")
        save(v2)
        guard case .ok(let s, _) = pipeline.sidecars.read(project: root, document: rel) else {
            Issue.record("no sidecar")
            return
        }
        #expect(s.suggestions.map(\.status) == [.accepted, .pending])
        #expect(s.suggestions[1].start == 65 && s.suggestions[1].line == 5)
        #expect(sent.withLock { $0.isEmpty })
        save(v2.replacingOccurrences(of: "and stormy night.\n", with: "and quiet night.\n", options: .backwards))
        #expect(sent.withLock { $0.count } == 1)
        save(v2 + "More.\n")
        #expect(sent.withLock { $0.count } == 1)
        #expect(try db.journeyFacts(project: root)[rel] == JourneyFact(stage: .revise, pendingSuggestions: 0))
        #expect(pipeline.states.previousContent(project: root, document: rel) == nil)
    }
}
