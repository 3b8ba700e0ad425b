import ArgumentParser
import Foundation
import TKCore

/// What the history commands share.
enum HistoryCLI {
    static func service() throws -> (HistoryService, Paths) {
        let paths = Paths.resolve()
        return (HistoryService(paths: paths, database: try openDatabase()), paths)
    }

    /// Keeps a snapshot of a document about to be rewritten (errors only warn: the write goes on).
    static func snapshotBeforeWrite(_ absolute: PathBytes, bytes: [UInt8], reason: String) {
        let actions = SuggestionLookup.actions()
        guard let loc = try? actions.locate(file: absolute.display), let db = try? AppDatabase.open(paths: actions.paths) else {
            printError("warning: no snapshot kept of \(absolute.display) before the write (not in a known project)")
            return
        }
        if ProgressHooks.snapshot(paths: actions.paths, database: db, project: loc.project, document: loc.relative, bytes: bytes,
                                  config: actions.resolver.configuration(project: loc.project).config, reason: reason) == nil {
            printError("warning: no snapshot kept of \(loc.relative.display) before the write")
        }
    }

    /// A version named by `REV` (its number in this document's history, or `HEAD~N`: N versions
    /// before the newest).
    static func resolve(_ rev: String, in list: [SnapshotRecord], file: String) throws -> SnapshotRecord {
        if rev.uppercased().hasPrefix("HEAD") {
            let n = rev.count > 5 ? Int(rev.dropFirst(5)) : 0
            guard let n, n >= 0, n < list.count else { throw CLIError("\(file): no version \(rev) (see `tk-agent history \(file)`)") }
            return list[n]
        }
        guard let n = Int(rev), let s = list.first(where: { $0.number == n }) else {
            throw CLIError("\(file): no version \(rev) (see `tk-agent history \(file)`)")
        }
        return s
    }

    static func timeText(_ rfc: String) -> String {
        guard let d = RFC3339.date(rfc) else { return rfc }
        let f = DateFormatter()
        f.dateFormat = "yyyy-MM-dd HH:mm"
        return f.string(from: d)
    }
}

extension TKAgent {
    struct History: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "history",
            abstract: "List the versions kept of a document, newest first.",
            discussion: """
                Versions are kept when a review round starts, when the journey stage changes, before accept --apply \
                and pipe --apply write, on `tk-agent snapshot`, and every history.interval_minutes while the document \
                is edited. Renames keep the history, and so does a deletion: `history`, `diff` and `restore` still take \
                a deleted document's path.
                """)
        @Argument(help: "The markdown document.", completion: .file(extensions: ["md", "markdown"])) var file: String
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let (service, _) = try HistoryCLI.service()
            let loc = try SuggestionLookup.locate(file: file, actions: SuggestionLookup.actions(), deleted: true)
            let list = try service.list(project: loc.project, path: loc.relative)
            if output.json {
                struct Row: Encodable { var rev: Int; var time: String; var reason: String; var note: String?; var words: Int; var added: Int; var removed: Int }
                print(JSON.string(list.map { Row(rev: $0.number, time: $0.time, reason: $0.displayReason, note: $0.note, words: $0.words,
                                                 added: $0.added, removed: $0.removed) }))
                return
            }
            if list.isEmpty {
                print("no versions kept of \(loc.relative.display) yet (they are kept while the agent runs, or with `tk-agent snapshot`)")
                return
            }
            for s in list {
                let reason = s.displayReason.padding(toLength: max(8, s.displayReason.count), withPad: " ", startingAt: 0)
                var line = String(format: "%4ld  ", s.number) + HistoryCLI.timeText(s.time) + "  " + reason
                    + String(format: " %6ld words  +%ld -%ld", s.words, s.added, s.removed)
                if let note = s.note { line += "  \(note)" }
                print(line)
            }
        }
    }
}
