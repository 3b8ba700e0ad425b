import ArgumentParser
import Foundation
import TKCore

extension TKAgent {
    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Write an old version of a document back (the current one is kept first).",
            discussion: """
                The version the file has now is kept in the history (reason "restore") before the old one is \
                written, so a restore can itself be undone with another restore. Restored words are not counted \
                as written.
                """)
        @Argument(help: "The markdown document.", completion: .file(extensions: ["md", "markdown"])) var file: String
        @Argument(help: "The version to write back (from `tk-agent history`, or HEAD~N).") var rev: String
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let (service, _) = try HistoryCLI.service()
            let actions = SuggestionLookup.actions()
            let loc = try SuggestionLookup.locate(file: file, actions: actions, deleted: true)
            let config = actions.resolver.configuration(project: loc.project).config
            let list = try service.list(project: loc.project, path: loc.relative)
            let target = try HistoryCLI.resolve(rev, in: list, file: file)
            let old: [UInt8]
            do { old = try service.content(target) } catch { throw CLIError("\(file): cannot read version \(target.number) (\(error))") }
            if FileSystem.lstatIfExists(loc.absolute) == nil {
                // A deleted document comes back: there is no current version to keep first.
                do { try FileSystem.writeAtomically(old, to: loc.absolute, mode: 0o644, durable: true) } catch {
                    throw CLIError("\(file): cannot write (\(error))")
                }
                try? service.markSeen(project: loc.project, path: loc.relative, bytes: old)
                SuggestionLookup.nudgeAgent()
                if output.json {
                    print(JSON.string(["restored": JSONValue.number(Double(target.number)), "kept": .null]))
                } else {
                    print("restored version \(target.number) of \(loc.relative.display), which had been deleted")
                }
                return
            }
            var kept: SnapshotRecord?
            let written: (old: [UInt8], new: [UInt8])?
            do {
                written = try DocumentRewriter.rewrite(loc.absolute) { current in
                    // The version on disk is kept first, whether or not it differs.
                    do {
                        kept = try service.snapshot(project: loc.project, path: loc.relative, bytes: current, reason: "restore",
                                                    note: "before restoring version \(target.number)", history: config.history)
                    } catch { throw CLIError("\(file): cannot keep the current version, nothing written (\(error))") }
                    return current == old ? nil : old
                }
            } catch let error as DocumentRewriteError { throw CLIError("\(file): \(error)") }
            if written != nil { try? service.markSeen(project: loc.project, path: loc.relative, bytes: old) }
            guard let kept else { throw CLIError("\(file): cannot keep the current version, nothing written") }
            SuggestionLookup.nudgeAgent()
            if output.json {
                print(JSON.string(["restored": JSONValue.number(Double(target.number)), "kept": .number(Double(kept.number))]))
            } else {
                print("restored version \(target.number) of \(loc.relative.display); the version it replaced is kept as \(kept.number) "
                    + "(`tk-agent restore \(file) \(kept.number)` undoes this)")
            }
        }
    }
}
