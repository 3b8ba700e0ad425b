import Foundation
import Testing
@testable import TKCore

/// `ConfigurationStore` is where every surface reads configuration: it must see an edit at once,
/// serve an unchanged file without reading it again, and read a config file that is a link into a
/// dotfiles folder (the loader used to refuse one as "too many levels of symbolic links").
@Suite struct ConfigurationStoreTests {
    struct Home {
        let dir: URL
        let paths: Paths
        var root: PathBytes { PathBytes(dir.appendingPathComponent("project").path) }

        init() throws {
            dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-cfgstore-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir.appendingPathComponent("project/.tk"), withIntermediateDirectories: true)
            paths = Paths(userConfig: PathBytes(dir.appendingPathComponent("config.json").path),
                          configDirectory: PathBytes(dir.path), dataDirectory: PathBytes(dir.path),
                          runtimeDirectory: PathBytes(dir.path))
        }

        func write(_ relative: String, _ text: String) throws {
            try Data(text.utf8).write(to: dir.appendingPathComponent(relative))
        }
    }

    @Test func anEditIsSeenByTheNextAsk() throws {
        let home = try Home()
        defer { try? FileManager.default.removeItem(at: home.dir) }
        let store = ConfigurationStore(paths: home.paths, environment: [:])
        try home.write("config.json", #"{"heuristics": {"max_sentence_words": 25}}"#)
        #expect(store.load(project: home.root).config.heuristics.maxSentenceWords == 25)
        try home.write("project/.tk/config.json", #"{"heuristics": {"max_sentence_words": 40}}"#)
        #expect(store.load(project: home.root).config.heuristics.maxSentenceWords == 40)
        #expect(store.load(project: home.root).sources["heuristics.max_sentence_words"] == .project)
        // The user's file changing is seen in the project too (same size, so only its time tells).
        try home.write("project/.tk/config.json", "{}")
        try home.write("config.json", #"{"heuristics": {"max_sentence_words": 27}}"#)
        #expect(store.load(project: home.root).config.heuristics.maxSentenceWords == 27)
        #expect(store.user().config.heuristics.maxSentenceWords == 27)
        try FileManager.default.removeItem(at: home.dir.appendingPathComponent("config.json"))
        #expect(store.load(project: home.root).config.heuristics.maxSentenceWords == 30)
    }

    @Test func flagsAreNeverKeptAndProblemsStay() throws {
        let home = try Home()
        defer { try? FileManager.default.removeItem(at: home.dir) }
        let store = ConfigurationStore(paths: home.paths, environment: ["TK_MODEL": "from-env"])
        try home.write("project/.tk/config.json", #"{"review": {"quiet_seconds": "soon"}}"#)
        let flagged = store.load(project: home.root, flags: .object(["model": .string("m9")]))
        #expect(flagged.config.model == "m9")
        #expect(store.load(project: home.root).config.model == "from-env")
        // A broken layer's problem is said on every ask, not only the first (the result is kept).
        #expect(store.load(project: home.root).problems.count == 1)
        #expect(store.load(project: home.root).problems.count == 1)
        try home.write("project/.tk/config.json", #"{"review": {"quiet_seconds": 5}}"#)
        #expect(store.load(project: home.root).problems.isEmpty)
        #expect(store.load(project: home.root).config.review.quietSeconds == 5)
    }

    @Test func aLinkedConfigFileIsRead() throws {
        let home = try Home()
        defer { try? FileManager.default.removeItem(at: home.dir) }
        try FileManager.default.createDirectory(at: home.dir.appendingPathComponent("dotfiles"), withIntermediateDirectories: true)
        try home.write("dotfiles/tk.json", #"{"heuristics": {"max_sentence_words": 22}}"#)
        try FileManager.default.createSymbolicLink(atPath: home.dir.appendingPathComponent("config.json").path,
                                                   withDestinationPath: home.dir.appendingPathComponent("dotfiles/tk.json").path)
        try home.write("dotfiles/project.json", #"{"review": {"quiet_seconds": 9}}"#)
        try FileManager.default.createSymbolicLink(atPath: home.dir.appendingPathComponent("project/.tk/config.json").path,
                                                   withDestinationPath: home.dir.appendingPathComponent("dotfiles/project.json").path)
        let store = ConfigurationStore(paths: home.paths, environment: [:])
        let loaded = store.load(project: home.root)
        #expect(loaded.problems.isEmpty, "\(loaded.problems)")
        #expect(loaded.config.heuristics.maxSentenceWords == 22)
        #expect(loaded.config.review.quietSeconds == 9)
        // An edit of the link's target is seen through the link.
        try home.write("dotfiles/tk.json", #"{"heuristics": {"max_sentence_words": 23, "max_grade": 12}}"#)
        #expect(store.load(project: home.root).config.heuristics.maxSentenceWords == 23)
    }
}
