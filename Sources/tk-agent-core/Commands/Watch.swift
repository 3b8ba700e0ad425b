import ArgumentParser
import Foundation
import TKCore

extension TKAgent {
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Manage the persistent list of watched projects.",
            subcommands: [Add.self, Remove.self, List.self]
        )

        struct Add: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "add", abstract: "Watch a project folder (kept in the user config).")
            @Argument(help: "The project folder.", completion: .directory) var path: String
            func run() async throws {
                let paths = Paths.resolve()
                let added = try wrap { () throws(ProjectRegistry.Failure) in try ProjectRegistry.add(path, paths: paths) }
                let abs = FileSystem.absolute(path).display
                print(added ? "watching \(abs)" : "already watching \(abs)")
                if AgentLock.signal(paths: paths, SIGHUP) { printError("the running agent picked up the change") }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "remove", abstract: "Stop watching a project folder.")
            @Argument(help: "The project folder.", completion: .directory) var path: String
            func run() async throws {
                let paths = Paths.resolve()
                let removed = try wrap { () throws(ProjectRegistry.Failure) in try ProjectRegistry.remove(path, paths: paths) }
                let abs = FileSystem.absolute(path).display
                guard removed else { throw CLIError("\(abs) is not in the project list (see `tk-agent watch list`)") }
                print("no longer watching \(abs)")
                if AgentLock.signal(paths: paths, SIGHUP) { printError("the running agent picked up the change") }
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(commandName: "list",
                abstract: "List the watched project folders: the saved list and the running agent's own.",
                discussion: "Folders given to `tk-agent run PATH...` are watched for that run only and marked (this run).")
            @OptionGroup var output: OutputOptions
            func run() async throws {
                let paths = Paths.resolve()
                let loaded = ConfigurationStore(paths: paths).user()
                for p in loaded.problems { printError(p) }
                let saved = ProjectRegistry.configured(loaded.config)
                let live = StatusReporter.live(paths: paths)?.projects.map { FileSystem.absolute($0.path) } ?? []
                let entries = WatchListing.entries(saved: saved, running: live)
                if output.json {
                    let items = entries.map { e -> [String: JSONValue] in
                        ["path": .string(e.path.display), "exists": .bool(FileSystem.lstatIfExists(e.path)?.kind == .directory),
                         "saved": .bool(e.saved), "watching": .bool(e.watching)]
                    }
                    print(JSON.string(items))
                } else if entries.isEmpty {
                    printError("no projects yet: add one with `tk-agent watch add PATH` (or run `tk-agent run PATH` for one run)")
                } else {
                    for e in entries {
                        let exists = FileSystem.lstatIfExists(e.path)?.kind == .directory
                        print(e.path.display + WatchListing.marks(e, exists: exists))
                    }
                }
            }
        }
    }
}

/// `watch list`: the saved projects and the running agent's, each once.
enum WatchListing {
    struct Entry: Equatable {
        var path: PathBytes
        /// In the user config's `projects`.
        var saved: Bool
        /// Watched by the running agent now.
        var watching: Bool
    }

    static func entries(saved: [PathBytes], running: [PathBytes]) -> [Entry] {
        var out = saved.map { Entry(path: $0, saved: true, watching: running.contains($0)) }
        for r in running where !saved.contains(r) { out.append(Entry(path: r, saved: false, watching: true)) }
        return out
    }

    static func marks(_ e: Entry, exists: Bool) -> String {
        if !exists { return "  (missing)" }
        if !e.saved { return "  (this run: given to `tk-agent run`, not saved; `tk-agent watch add` keeps it)" }
        return ""
    }
}

/// Runs a throwing body and turns its typed error into a one-line CLI error.
func wrap<T, E: Error & CustomStringConvertible>(_ body: () throws(E) -> T) throws -> T {
    do { return try body() } catch { throw CLIError(error.description) }
}
