import Foundation
import Synchronization

/// The one place configuration is read: the user config, a project's `.tk/config.json`, the
/// environment layer and any flags, merged over the built-in defaults (`ConfigurationLoader`).
///
/// Every surface asks a store: the document resolver (a document's settings), the agent's project
/// state and its services (the review queue, the embedding worker, the watcher's ignore rules and
/// `status` all share the agent's one store), and each command once for the settings it needs.
/// A result is kept with the `stat` of each file it was read from and served again while they are
/// unchanged, so asking costs one `stat` per layer and an edit on disk is seen by the next ask.
public final class ConfigurationStore: Sendable {
    public let paths: Paths
    public let environment: [String: String]

    private struct Entry {
        var user: FileStat?
        var project: FileStat?
        var loaded: LoadedConfiguration
    }

    private let cache = Mutex<[PathBytes?: Entry]>([:])

    public init(paths: Paths, environment: [String: String] = ProcessEnvironment.current) {
        self.paths = paths
        self.environment = environment
    }

    /// The user configuration (no project), over the defaults, with the environment layer.
    public func user() -> LoadedConfiguration { load(project: nil) }

    /// The configuration that applies in `project`: its `.tk/config.json` over the user config over
    /// the defaults (the user config alone without a project).
    /// - Parameter flags: values given on the command line, as a partial tree (never kept).
    public func load(project: PathBytes?, flags: JSONValue = .object([:])) -> LoadedConfiguration {
        if case .object(let o) = flags, !o.isEmpty {
            return ConfigurationLoader.load(paths: paths, project: project, environment: environment, flags: flags)
        }
        let user = FileSystem.statFollowingLinks(paths.userConfig)
        let projectStamp = project.flatMap { FileSystem.statFollowingLinks(Self.projectFile($0)) }
        if let hit = cache.withLock({ $0[project] }), hit.user == user, hit.project == projectStamp {
            return hit.loaded
        }
        let loaded = ConfigurationLoader.load(paths: paths, project: project, environment: environment)
        // A file changed in the very instant it was read is read again next time (its stamp moved on).
        cache.withLock { $0[project] = Entry(user: user, project: projectStamp, loaded: loaded) }
        return loaded
    }

    /// A project's own configuration file.
    public static func projectFile(_ root: PathBytes) -> PathBytes { root.appending(".tk").appending("config.json") }
}
