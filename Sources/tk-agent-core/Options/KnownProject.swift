import Foundation
import TKCore

/// The `--project P` a command was given, checked against what tk-agent knows: the index, the
/// saved project list and the running agent's projects. A folder none of them knows is an error
/// that says how to add it, never an empty answer.
enum KnownProject {
    /// The absolute root of `path` when a project is (or contains) it; throws a `CLIError` otherwise.
    static func require(_ path: String, database: AppDatabase?) throws -> PathBytes {
        let abs = FileSystem.absolute(path)
        if known(paths: Paths.resolve(), database: database).contains(where: { abs == $0 || abs.bytes.starts(with: $0.bytes + [UInt8(ascii: "/")]) }) {
            return abs
        }
        throw CLIError(message(for: abs))
    }

    /// The error line for a folder that is not a project.
    static func message(for abs: PathBytes) -> String {
        let shown = abs.display
        guard FileSystem.lstatIfExists(abs)?.kind == .directory else {
            return "\(shown) is not a watched or indexed project (no such folder): give the root folder of a writing project"
        }
        return "\(shown) is not a watched or indexed project: add it with `tk-agent watch add \(shown)` (or index it once with `tk-agent index \(shown)`)"
    }

    /// Every project root tk-agent knows of.
    static func known(paths: Paths, database: AppDatabase?) -> [PathBytes] {
        var roots: [PathBytes] = []
        if let database, let indexed = try? database.projects() { roots += indexed.map(\.root) }
        roots += ProjectRegistry.configured(ConfigurationStore(paths: paths).user().config)
        if let live = StatusReporter.live(paths: paths) { roots += live.projects.map { FileSystem.absolute($0.path) } }
        return roots
    }
}
