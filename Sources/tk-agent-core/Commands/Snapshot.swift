import ArgumentParser
import Foundation
import TKCore

extension TKAgent {
    struct Snapshot: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "snapshot", abstract: "Keep the current version of a document in its history.")
        @Argument(help: "The markdown document.", completion: .file(extensions: ["md", "markdown"])) var file: String
        @Option(name: .shortAndLong, help: "A note to remember the version by.") var message: String?
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let (service, _) = try HistoryCLI.service()
            let actions = SuggestionLookup.actions()
            let loc = try SuggestionLookup.locate(file: file, actions: actions)
            let config = actions.resolver.configuration(project: loc.project).config
            let bytes: [UInt8]
            do { bytes = try FileSystem.read(loc.absolute, limit: max(1, config.watch.maxFileBytes)) } catch {
                throw CLIError("\(file): cannot read (\(error))")
            }
            let s: SnapshotRecord
            do {
                s = try service.snapshot(project: loc.project, path: loc.relative, bytes: bytes, reason: "manual",
                                         note: message, history: config.history)
            } catch { throw CLIError("\(file): cannot keep a snapshot (\(error))") }
            if output.json {
                print(JSON.string(["rev": JSONValue.number(Double(s.number)), "time": .string(s.time), "words": .number(Double(s.words))]))
            } else {
                print("kept version \(s.number) of \(loc.relative.display) (\(s.words) words)")
            }
        }
    }
}
