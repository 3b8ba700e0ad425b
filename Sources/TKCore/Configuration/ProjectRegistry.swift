import Foundation

/// The persistent project list: the `projects` key of the user config.
public enum ProjectRegistry {
    public enum Failure: Error, CustomStringConvertible {
        case notADirectory(String)
        case notUTF8(String)
        case brokenConfig(String)
        case io(String)
        public var description: String {
            switch self {
            case .notADirectory(let p): return "\(p) is not a folder; give the root folder of a writing project"
            case .notUTF8(let p): return "\(p): project folders must have UTF-8 names to be kept in the config"
            case .brokenConfig(let m): return m
            case .io(let m): return m
            }
        }
    }

    /// The configured project roots, absolute and normalised.
    public static func configured(_ config: Configuration) -> [PathBytes] {
        var seen = Set<PathBytes>()
        return config.projects.compactMap { p in
            let abs = FileSystem.absolute(p)
            return seen.insert(abs).inserted ? abs : nil
        }
    }

    /// Adds a folder to the user config's project list; returns false when it was there already.
    @discardableResult
    public static func add(_ path: String, paths: Paths) throws(Failure) -> Bool {
        let abs = FileSystem.absolute(path)
        guard DirectoryWalker.isFolderFollowingLinks(abs) else { throw .notADirectory(abs.display) }
        guard let s = abs.validUTF8 else { throw .notUTF8(abs.display) }
        var list = try currentList(paths)
        if list.contains(where: { FileSystem.absolute($0) == abs }) { return false }
        list.append(s)
        try write(list, paths: paths)
        return true
    }

    /// Removes a folder from the user config's project list; returns false when it was not there.
    @discardableResult
    public static func remove(_ path: String, paths: Paths) throws(Failure) -> Bool {
        let abs = FileSystem.absolute(path)
        var list = try currentList(paths)
        let before = list.count
        list.removeAll { FileSystem.absolute($0) == abs }
        if list.count == before { return false }
        try write(list, paths: paths)
        return true
    }

    static func currentList(_ paths: Paths) throws(Failure) -> [String] {
        let (tree, problem) = ConfigurationLoader.readLayer(paths.userConfig)
        if let problem { throw .brokenConfig(problem + " — fix it before changing the project list") }
        return tree?["projects"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    static func write(_ list: [String], paths: Paths) throws(Failure) {
        let (tree, _) = ConfigurationLoader.readLayer(paths.userConfig)
        let updated = ConfigurationLoader.setting(.array(list.map { .string($0) }), at: "projects", in: tree ?? .object([:]))
        try writeUserConfig(updated, paths: paths)
    }

    /// Writes the user config tree atomically (its folder is created 0700).
    public static func writeUserConfig(_ tree: JSONValue, paths: Paths) throws(Failure) {
        do {
            try FileSystem.makeDirectories(paths.userConfig.parent, mode: 0o700)
            let bytes = try JSON.encode(tree)
            try FileSystem.writeAtomically(bytes, to: paths.userConfig, mode: 0o644)
        } catch let e as FileSystemError {
            throw .io("cannot write \(paths.userConfig.display): \(e)")
        } catch {
            throw .io("cannot write \(paths.userConfig.display): \(error)")
        }
    }
}
