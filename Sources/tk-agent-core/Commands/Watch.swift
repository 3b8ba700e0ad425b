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
            static let configuration = CommandConfiguration(abstract: "Watch a project folder (kept in the user config).")
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
            static let configuration = CommandConfiguration(abstract: "Stop watching a project folder.")
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
            static let configuration = CommandConfiguration(abstract: "List the watched project folders.")
            @OptionGroup var output: OutputOptions
            func run() async throws {
                let paths = Paths.resolve()
                let loaded = ConfigurationLoader.load(paths: paths)
                for p in loaded.problems { printError(p) }
                let roots = ProjectRegistry.configured(loaded.config)
                if output.json {
                    let items = roots.map { r -> [String: JSONValue] in
                        let exists = FileSystem.lstatIfExists(r)?.kind == .directory
                        return ["path": .string(r.display), "exists": .bool(exists)]
                    }
                    print(JSON.string(items))
                } else if roots.isEmpty {
                    printError("no projects yet: add one with `tk-agent watch add PATH`")
                } else {
                    for r in roots {
                        let exists = FileSystem.lstatIfExists(r)?.kind == .directory
                        print(exists ? r.display : "\(r.display)  (missing)")
                    }
                }
            }
        }
    }
}

/// Runs a throwing body and turns its typed error into a one-line CLI error.
func wrap<T, E: Error & CustomStringConvertible>(_ body: () throws(E) -> T) throws -> T {
    do { return try body() } catch { throw CLIError(error.description) }
}
