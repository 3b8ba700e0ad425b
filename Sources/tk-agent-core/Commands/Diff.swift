import ArgumentParser
import Foundation
import TKCore

extension TKAgent {
    struct Diff: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "diff",
            abstract: "Show what changed between two versions of a document.",
            discussion: """
                No REV: the newest version kept against the file as it is now. One REV: that version against \
                the file. Two: the first against the second. REV is a number from `tk-agent history` or HEAD~N \
                (N versions before the newest). Coloured on a terminal.
                """)
        @Argument(help: "The markdown document.", completion: .file(extensions: ["md", "markdown"])) var file: String
        @Argument(help: "Versions to compare.") var revs: [String] = []
        @Flag(name: .long, help: "Word by word instead of line by line: each changed region with a few words around it.") var words = false

        func validate() throws {
            if revs.count > 2 { throw ValidationError("give at most two versions") }
        }

        func run() async throws {
            let (service, _) = try HistoryCLI.service()
            let loc = try SuggestionLookup.locate(file: file, actions: SuggestionLookup.actions(), deleted: true)
            let list = try service.list(project: loc.project, path: loc.relative)
            guard !list.isEmpty else { throw CLIError("\(file): no versions kept yet (see `tk-agent snapshot`)") }
            func content(_ s: SnapshotRecord) throws -> String {
                do { return String(decoding: try service.content(s), as: UTF8.self) } catch {
                    throw CLIError("\(file): cannot read version \(s.number) (\(error))")
                }
            }
            let current = { () throws -> String in
                do { return String(decoding: try FileSystem.read(loc.absolute, limit: 256 << 20), as: UTF8.self) } catch {
                    throw CLIError("\(file): cannot read (\(error))")
                }
            }
            let old: String, new: String, oldName: String, newName: String
            switch revs.count {
            case 0:
                old = try content(list[0]); oldName = "version \(list[0].number)"
                new = try current(); newName = "now"
            case 1:
                let a = try HistoryCLI.resolve(revs[0], in: list, file: file)
                old = try content(a); oldName = "version \(a.number)"
                new = try current(); newName = "now"
            default:
                let a = try HistoryCLI.resolve(revs[0], in: list, file: file)
                let b = try HistoryCLI.resolve(revs[1], in: list, file: file)
                old = try content(a); oldName = "version \(a.number)"
                new = try content(b); newName = "version \(b.number)"
            }
            let color = stdoutIsColorTerminal
            if old == new {
                print("\(loc.relative.display): no change between \(oldName) and \(newName)")
                return
            }
            if words {
                print(WordDiff.render(old: old, new: new, color: color), terminator: "")
                return
            }
            let text = UnifiedDiff.diff(old: old, new: new, oldName: "\(loc.relative.display) (\(oldName))",
                                        newName: "\(loc.relative.display) (\(newName))")
            guard color else { print(text, terminator: text.hasSuffix("\n") ? "" : "\n"); return }
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("+++") || line.hasPrefix("---") { print("\u{1B}[1m\(line)\u{1B}[0m") }
                else if line.hasPrefix("+") { print("\u{1B}[32m\(line)\u{1B}[0m") }
                else if line.hasPrefix("-") { print("\u{1B}[31m\(line)\u{1B}[0m") }
                else if line.hasPrefix("@@") { print("\u{1B}[36m\(line)\u{1B}[0m") }
                else { print(line) }
            }
        }
    }
}
