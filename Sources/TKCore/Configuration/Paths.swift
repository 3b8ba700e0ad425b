import Foundation

/// Where tk-agent keeps its files, resolved from the environment as the contract says.
public struct Paths: Sendable {
    /// The user config file (`$TK_CONFIG`, else `$XDG_CONFIG_HOME/tk/config.json`).
    public var userConfig: PathBytes
    /// The folder for custom roles and secrets (`$XDG_CONFIG_HOME/tk`).
    public var configDirectory: PathBytes
    /// The data folder: index, queue, usage (`$TK_DATA_DIR`, else `$XDG_DATA_HOME/tk-agent`).
    public var dataDirectory: PathBytes
    /// The runtime folder: lock, pid, live status (`$XDG_RUNTIME_DIR/tk-agent`, else `<data>/run`). Mode 0700.
    public var runtimeDirectory: PathBytes

    public init(userConfig: PathBytes, configDirectory: PathBytes, dataDirectory: PathBytes, runtimeDirectory: PathBytes) {
        self.userConfig = userConfig
        self.configDirectory = configDirectory
        self.dataDirectory = dataDirectory
        self.runtimeDirectory = runtimeDirectory
    }

    /// Resolves the paths from an environment (defaults to the process environment).
    public static func resolve(environment env: [String: String] = ProcessEnvironment.current) -> Paths {
        let home = env["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        func nonEmpty(_ k: String) -> String? { env[k].flatMap { $0.isEmpty ? nil : $0 } }
        let configHome = nonEmpty("XDG_CONFIG_HOME") ?? home + "/.config"
        let dataHome = nonEmpty("XDG_DATA_HOME") ?? home + "/.local/share"
        let configDir = FileSystem.absolute(configHome + "/tk")
        let userConfig = nonEmpty("TK_CONFIG").map { FileSystem.absolute($0) } ?? configDir.appending("config.json")
        let data = nonEmpty("TK_DATA_DIR").map { FileSystem.absolute($0) } ?? FileSystem.absolute(dataHome + "/tk-agent")
        let runtime: PathBytes
        if nonEmpty("TK_DATA_DIR") == nil, let xdgRuntime = nonEmpty("XDG_RUNTIME_DIR") {
            runtime = FileSystem.absolute(xdgRuntime + "/tk-agent")
        } else {
            // With an explicit data folder the runtime files live beside it, so that two data
            // folders (tests, several profiles) never share one lock.
            runtime = data.appending("run")
        }
        return Paths(userConfig: userConfig, configDirectory: configDir, dataDirectory: data, runtimeDirectory: runtime)
    }

    public var database: PathBytes { dataDirectory.appending("index.sqlite") }
    public var lockFile: PathBytes { runtimeDirectory.appending("agent.lock") }
    public var statusFile: PathBytes { runtimeDirectory.appending("status.json") }
    public var rolesDirectory: PathBytes { configDirectory.appending("roles") }
    public var secretsFile: PathBytes { configDirectory.appending("secrets.json") }

    /// Creates the data folder (0700) and the runtime folder (0700).
    public func prepare() throws(FileSystemError) {
        try FileSystem.makeDirectories(dataDirectory, mode: 0o700)
        try FileSystem.makeDirectories(runtimeDirectory, mode: 0o700)
        _ = runtimeDirectory.withCString { chmod($0, 0o700) }
        _ = dataDirectory.withCString { chmod($0, 0o700) }
    }
}
