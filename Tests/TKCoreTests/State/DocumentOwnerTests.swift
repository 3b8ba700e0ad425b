import Foundation
import Logging
import Synchronization
import Testing
@testable import TKCore

@Suite struct DocumentOwnerTests {
    func tempProject() throws -> (URL, PathBytes) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-owner-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return (dir, PathBytes(dir.path))
    }

    /// A save through the pipeline reaches the observers after the sidecar and the row are written,
    /// with the bytes and their digest; a journey change reports the stage move; moves and removals too.
    @Test func observersHearEveryChangeAfterItIsRecorded() throws {
        let (dir, root) = try tempProject()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try AppDatabase.inMemory()
        let observers = DocumentObservers()
        let events = Mutex<[String]>([])
        let rel = PathBytes("a.md")
        observers.add { event in
            var line = ""
            switch event {
            case .saved(_, let path, _, let previousSha, let bytes, let sha):
                // Recorded before observers hear of it.
                let recorded = (try? DocumentStateStore(database: db).derivations(project: root, paths: [path]))?[path]
                #expect(recorded?.hasPrefix(sha) == true)
                #expect(SHA256Digest.hex(bytes) == sha)
                line = "saved \(path.display) \(previousSha == nil ? "new" : "changed")"
            case .sidecarChanged(_, let path, let cause, _): line = "sidecar \(path.display) \(cause)"
            case .stageChanged(_, let path, let from, let to, _): line = "stage \(path.display) \(from.rawValue)→\(to.rawValue)"
            case .roundStarted(_, let path, let id): line = "round \(path.display) \(id)"
            case .moved(_, let from, let to): line = "moved \(from.display)→\(to.display)"
            case .removed(_, let path): line = "removed \(path.display)"
            }
            events.withLock { $0.append(line) }
        }
        let pipeline = DocumentPipeline(database: db, logger: Logger(label: "test"), sidecars: SidecarStore(),
                                        catalog: .builtIn, observers: observers)
        let bytes = Array("# A\n\nThe report was written by the team.\n".utf8)
        try FileSystem.writeAtomically(bytes, to: root.appending(rel))
        let doc = MarkdownDocument(bytes: bytes, fileName: "a.md")
        let problems = pipeline.apply([.updated(relative: rel, document: doc, sha256: SHA256Digest.hex(bytes), previousSha256: nil)],
                                      root: root, config: .defaults)
        #expect(problems[rel] == .some(nil))
        #expect(events.withLock { $0 } == ["sidecar a.md contentIndexed", "stage a.md canvas→draft", "saved a.md new"])

        let actions = JourneyActions(paths: Paths.resolve(environment: ["TK_DATA_DIR": dir.path + "/data"]), database: db,
                                     sidecars: SidecarStore(), catalog: .builtIn, environment: [:], observers: observers)
        _ = try actions.setJourney(DocumentLocation(project: root, relative: rel), stage: "final", storyType: nil,
                                   advisors: nil, draftStage: nil)
        #expect(events.withLock { Array($0.suffix(2)) } == ["sidecar a.md journeySet", "stage a.md draft→final"])

        try FileSystem.rename(root.appending(rel), to: root.appending("b.md"))
        _ = pipeline.apply([.moved(from: rel, to: PathBytes("b.md"), document: doc, sha256: SHA256Digest.hex(bytes))],
                           root: root, config: .defaults)
        #expect(events.withLock { $0 }.contains("moved a.md→b.md"))
        #expect(FileSystem.lstatIfExists(ReviewSidecar.path(project: root, document: PathBytes("b.md"))) != nil)
        _ = pipeline.apply([.deleted(relative: PathBytes("b.md"), previousSha256: SHA256Digest.hex(bytes))],
                           root: root, config: .defaults)
        #expect(events.withLock { $0.last } == "removed b.md")
        #expect(FileSystem.lstatIfExists(ReviewSidecar.path(project: root, document: PathBytes("b.md"))) == nil)
    }

    /// A kill between the index's deletion and the sidecar's leaves a sidecar of a document that is
    /// neither on disk nor indexed: the full scan's check removes it. One whose document is still
    /// indexed (the indexer will remove it) or still on disk stays.
    @Test func orphanSidecarsOfDeletedDocumentsAreRemoved() throws {
        let (dir, root) = try tempProject()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try AppDatabase.inMemory()
        for name in ["gone.md", "indexed.md", "kept.md"] {
            try FileSystem.writeAtomically(Array("# \(name)\n\nText.\n".utf8), to: root.appending(name))
        }
        let indexer = Indexer(database: db, logger: Logger(label: "test"))
        let projectID = try db.projectID(for: root)
        let pipeline = DocumentPipeline(database: db, logger: Logger(label: "test"), sidecars: SidecarStore(), catalog: .builtIn)
        _ = try indexer.sync(root: root, projectID: projectID, scopes: [.folder(PathBytes([]))], filter: PathFilter(ignore: []),
                             maxFileBytes: 1 << 20, commit: { try $0.commit(to: db); _ = pipeline.apply($0.changes, root: root, config: .defaults) })
        func sidecar(_ name: String) -> Bool { FileSystem.lstatIfExists(ReviewSidecar.path(project: root, document: PathBytes(name))) != nil }
        #expect(sidecar("gone.md") && sidecar("indexed.md") && sidecar("kept.md"))
        // gone.md: deleted from disk and from the index, its sidecar left behind (the kill).
        try FileManager.default.removeItem(atPath: root.appending("gone.md").display)
        _ = try db.apply(projectID: projectID, upserts: [], statOnly: [], deletions: [PathBytes("gone.md")])
        // indexed.md: deleted from disk, still indexed.
        try FileManager.default.removeItem(atPath: root.appending("indexed.md").display)
        let problems = pipeline.verifySidecars(root: root)
        #expect(!sidecar("gone.md"))
        #expect(problems[PathBytes("gone.md")] == .some(nil))
        #expect(sidecar("indexed.md") && sidecar("kept.md"))
    }

    /// The indexer reports unchanged documents whose recorded derivation is stale (another process
    /// indexed them, or the settings changed), so the agent derives their sidecars again.
    @Test func staleDerivationsAreReportedForUnchangedDocuments() throws {
        let (dir, root) = try tempProject()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try AppDatabase.inMemory()
        try FileSystem.writeAtomically(Array("# One\n\nText.\n".utf8), to: root.appending("one.md"))
        let indexer = Indexer(database: db, logger: Logger(label: "test"))
        let projectID = try db.projectID(for: root)
        // `tk-agent index`: no pipeline, no sidecar.
        _ = try indexer.sync(root: root, projectID: projectID, scopes: [.folder(PathBytes([]))], filter: PathFilter(ignore: []),
                             maxFileBytes: 1 << 20)
        let pipeline = DocumentPipeline(database: db, logger: Logger(label: "test"), sidecars: SidecarStore(), catalog: .builtIn)
        var config = Configuration.defaults
        var rereads: [Int] = []
        func agentScan() throws -> [PathBytes] {
            var seen: [PathBytes] = []
            let report = try indexer.sync(root: root, projectID: projectID, scopes: [.folder(PathBytes([]))], filter: PathFilter(ignore: []),
                                 maxFileBytes: 1 << 20, stale: pipeline.staleDerivations(root: root, config: config),
                                 commit: { batch in
                                     try batch.commit(to: db)
                                     let changes = batch.changes
                                     _ = pipeline.apply(changes, root: root, config: config)
                                     for case .updated(let rel, _, _, _) in changes { seen.append(rel) }
                                 })
            rereads.append(report.reread)
            return seen
        }
        #expect(try agentScan() == [PathBytes("one.md")])
        #expect(FileSystem.lstatIfExists(ReviewSidecar.path(project: root, document: PathBytes("one.md"))) != nil)
        #expect(try agentScan() == [])
        config.heuristics.maxSentenceWords = 5
        #expect(try agentScan() == [PathBytes("one.md")])
        // Read again though unchanged (the agent gives the memory of big re-reads back).
        #expect(rereads == [1, 0, 1])
        // The project's words are inputs too: the dictionary, a language, a name used a third time.
        try FileSystem.makeDirectories(root.appending(".tk"))
        try FileSystem.writeAtomically(Array("zorblax\n".utf8), to: root.appending(".tk/dictionary.txt"))
        #expect(try agentScan() == [PathBytes("one.md")])
        #expect(try agentScan() == [])
        config.heuristics.lang = "en_GB"
        #expect(try agentScan() == [PathBytes("one.md")])
        for name in ["two.md", "three.md", "four.md"] {
            try FileSystem.writeAtomically(Array("Vellamir came.\n".utf8), to: root.appending(name))
        }
        let seen = try agentScan()
        #expect(seen.contains(PathBytes("one.md")) && seen.count == 4)
        #expect(try agentScan() == [])
    }
}
