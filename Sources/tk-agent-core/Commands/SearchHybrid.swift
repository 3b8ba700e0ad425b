import Foundation
import TKCore

/// `search --hybrid` / `--semantic`: documents ranked by meaning (their best passage), in the
/// shape of `search --json`.
enum SearchHybrid {
    static func run(text: String, semantic: Bool, project: String?, pathGlob: String?, limit: Int, json: Bool) async throws {
        let started = Date()
        let db = try openDatabase()
        var projects = try db.projects()
        if let project {
            let abs = FileSystem.absolute(project)
            projects = projects.filter { $0.root == abs || abs.isWithin($0.root) }
            if projects.isEmpty { throw CLIError("\(project) is not an indexed project; run `tk-agent index \(project)` first") }
        }
        // Documents without passages (a large first index leaves them for later; the running agent
        // writes them after its scan) get them now.
        PassageBackfill.run(database: db, announce: PassageBackfill.announceOnStderr)
        let loaded = ConfigurationStore(paths: Paths.resolve()).load(project: projects.count == 1 ? projects[0].root : nil)
        let outcome = try await AskRetrieval.retrieve(text, database: db, configuration: loaded.config,
                                                      scope: RetrievalScope(projectIDs: projects.map(\.id)),
                                                      limit: max(50, limit * 5), mode: semantic ? .semantic : .hybrid)
        if let why = outcome.keywordOnlyReason {
            printError("note: keyword-only: \(why)")
        }
        let glob = pathGlob.map { GlobPattern($0) }
        var seen = Set<String>()
        var results: [JSONValue] = []
        var lines: [String] = []
        let style = Style(on: !json && stdoutIsColorTerminal)
        for r in outcome.passages {
            let p = r.passage
            if let glob, !glob.matches(p.path, isDirectory: false) { continue }
            let id = p.project.display + "\u{0}" + p.path.display
            guard seen.insert(id).inserted else { continue }
            let title = (try? db.document(projectID: p.projectID, path: p.path))??.title ?? p.path.display
            let snippet = String(p.text.split(whereSeparator: \.isNewline).first { !$0.hasPrefix("#") } ?? Substring(p.text)).prefix(200)
            results.append(.object([
                "project": .string(p.project.display), "path": .string(p.path.display), "title": .string(title),
                "line": .number(Double(p.startLine)), "snippet": .string(String(snippet)),
                "score": .number((r.score * 1e6).rounded() / 1e6),
            ]))
            lines.append(style.bold("\(p.path.display):\(p.startLine)") + "  " + title + "\n    " + snippet)
            if results.count >= limit { break }
        }
        let took = Date().timeIntervalSince(started) * 1000
        if json {
            writeOut(JSON.string(JSONValue.object(["query": .string(text), "took_ms": .number((took * 10).rounded() / 10),
                                          "mode": .string(semantic ? "semantic" : "hybrid"),
                                          "results": .array(results)]), pretty: true) + "\n")
            return
        }
        if lines.isEmpty { printError("no matches for \(text)"); return }
        writeOut(lines.joined(separator: "\n") + "\n")
    }
}
