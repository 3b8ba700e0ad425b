import Foundation

/// API keys kept out of the config file: `<config>/tk/secrets.json` (0600, in a 0700 folder), a flat
/// object of dotted keys (`"providers.anthropic.api_key": "…"`, or `"api_key"` for any provider), or
/// the Secret Service through `secret-tool` when it is on PATH and a session bus exists.
public struct SecretsStore: Sendable {
    /// Where a secret was stored.
    public enum Location: Sendable, Equatable, CustomStringConvertible {
        case secretService
        case file(PathBytes)
        public var description: String {
            switch self {
            case .secretService: "the Secret Service (secret-tool)"
            case .file(let p): p.display
            }
        }
    }

    public let paths: Paths
    let environment: [String: String]

    public init(paths: Paths) {
        self.init(paths: paths, environment: ProcessEnvironment.current)
    }

    public init(paths: Paths, environment: [String: String]) {
        self.paths = paths
        self.environment = environment
    }

    /// Whether a dotted config key names a secret (`api_key`, `providers.<p>.api_key`).
    public static func isSecretKey(_ key: String) -> Bool {
        key == "api_key" || key.hasSuffix(".api_key")
    }

    /// The stored secret for a dotted key, or nil. Never logs the value.
    public func value(for key: String) -> String? {
        if let tool = secretTool, let v = Self.runSecretTool(tool, ["lookup", "service", "tk-agent", "key", key],
                                                             input: nil, environment: environment),
           !v.isEmpty {
            return v.hasSuffix("\n") ? String(v.dropLast()) : v
        }
        return fileSecrets()[key]
    }

    /// Where `value(for:)` finds the key, if anywhere (for `config show`).
    public func location(of key: String) -> Location? {
        if let tool = secretTool, let v = Self.runSecretTool(tool, ["lookup", "service", "tk-agent", "key", key],
                                                             input: nil, environment: environment), !v.isEmpty {
            return .secretService
        }
        return fileSecrets()[key] != nil ? .file(paths.secretsFile) : nil
    }

    /// Stores a secret: in the Secret Service when `secret-tool` works, else the 0600 secrets file.
    /// - Returns: where it went.
    /// - Throws: `FileSystemError` when the secrets file cannot be written.
    @discardableResult
    public func set(_ value: String, for key: String) throws(FileSystemError) -> Location {
        if let tool = secretTool,
           Self.runSecretTool(tool, ["store", "--label", "tk-agent", "service", "tk-agent", "key", key],
                              input: value, environment: environment) != nil {
            // Do not leave an older copy behind in the file.
            var secrets = fileSecrets()
            if secrets.removeValue(forKey: key) != nil { try writeFile(secrets) }
            return .secretService
        }
        var secrets = fileSecrets()
        secrets[key] = value
        try writeFile(secrets)
        return .file(paths.secretsFile)
    }

    func fileSecrets() -> [String: String] {
        guard let bytes = try? FileSystem.read(paths.secretsFile, limit: 1 << 20),
              let o = (try? JSONValue.parse(bytes))?.objectValue else { return [:] }
        var out: [String: String] = [:]
        for (k, v) in o { if let s = v.stringValue { out[k] = s } }
        return out
    }

    func writeFile(_ secrets: [String: String]) throws(FileSystemError) {
        let dir = paths.secretsFile.parent
        try FileSystem.makeDirectories(dir, mode: 0o700)
        _ = dir.withCString { chmod($0, 0o700) }
        let bytes = (try? JSON.encode(secrets)) ?? Array("{}\n".utf8)
        try FileSystem.writeAtomically(bytes, to: paths.secretsFile, mode: 0o600)
        _ = paths.secretsFile.withCString { chmod($0, 0o600) }
    }

    /// `secret-tool` when it is on PATH and a session bus is reachable; `TK_NO_SECRET_SERVICE=1` turns it off.
    var secretTool: String? {
        if environment["TK_NO_SECRET_SERVICE"].map({ !$0.isEmpty && $0 != "0" }) ?? false { return nil }
        guard let bus = environment["DBUS_SESSION_BUS_ADDRESS"], !bus.isEmpty else { return nil }
        for dir in (environment["PATH"] ?? "").split(separator: ":") {
            let candidate = "\(dir)/secret-tool"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// Runs secret-tool with a time limit; its stdout on success, nil on any failure.
    static func runSecretTool(_ tool: String, _ args: [String], input: String?,
                              environment: [String: String]) -> String? {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        p.environment = environment
        let out = Pipe()
        let inPipe = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        p.standardInput = inPipe
        do { try p.run() } catch { return nil }
        if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
        try? inPipe.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(5)
        while p.isRunning, Date() < deadline { usleep(20_000) }
        if p.isRunning {
            p.terminate()
            return nil
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        guard p.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// A secret for display: `sk-…abcd` (the first three and last four characters), or `****` when short.
    public static func mask(_ secret: String) -> String {
        secret.count >= 12 ? "\(secret.prefix(3))…\(secret.suffix(4))" : "****"
    }
}
