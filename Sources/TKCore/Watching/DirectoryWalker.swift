/// Walks a project subtree for documents, never following symbolic links.
///
/// Applies the same `PathFilter` as the watcher, so a rescan finds exactly the files the watcher
/// would report. Only candidate documents (by name) are `lstat`ed.
public enum DirectoryWalker {
    /// Whether `path` is a folder, following a symbolic link (a project root may be named through one).
    public static func isFolderFollowingLinks(_ path: PathBytes) -> Bool {
        TreeWatcher.statFollowing(path)?.kind == .directory
    }

    /// One document found on disk.
    public typealias Document = (path: PathBytes, stat: FileStat)

    /// Every document below `directory` (which must be `root` or inside it).
    ///
    /// A missing, hidden, ignored or non-folder `directory` yields no documents and no problem:
    /// everything the index holds below it is gone. Folders that vanish during the walk are skipped.
    /// - Parameters:
    ///   - root: the project root (it may itself be a symbolic link the user named).
    ///   - directory: the folder to walk, `root` for the whole project.
    ///   - filter: the project's filter.
    /// - Returns: absolute document paths with their `lstat`, sorted by path bytes, and one line per
    ///   folder that could not be read.
    public static func walk(
        root: PathBytes, directory: PathBytes, filter: PathFilter
    ) -> (documents: [(path: PathBytes, stat: FileStat)], problems: [String]) {
        var documents: [Document] = []
        var problems: [String] = []
        guard directory.isWithin(root) else { return ([], []) }
        let isRoot = directory == root
        if !isRoot {
            guard let relative = directory.relative(to: root), filter.shouldDescend(relative) else { return ([], []) }
            // Every folder between the root and `directory` must be a real folder, not a link.
            var current = root
            for part in relative.components {
                current = current.appending(part)
                guard let st = FileSystem.lstatIfExists(current), st.kind == .directory else { return ([], []) }
            }
        }
        var stack: [PathBytes] = [directory]
        while let dir = stack.popLast() {
            let entries: [DirectoryListing.Entry]
            do {
                entries = try DirectoryListing.entries(of: dir, followLink: isRoot && dir == root)
            } catch {
                if error == .noEntry || error == .notDirectory { continue }
                problems.append("cannot read folder \(dir.display): \(error)")
                continue
            }
            for entry in entries {
                let path = dir.appending(entry.name)
                guard let relative = path.relative(to: root) else { continue }
                var kind = entry.kind
                if kind == .directory || kind == nil {
                    guard filter.acceptsDirectoryName(entry.name) || filter.hasDocumentName(entry.name) else { continue }
                }
                if kind == nil {
                    guard let st = FileSystem.lstatIfExists(path) else { continue }
                    kind = st.kind
                }
                switch kind {
                case .directory:
                    if filter.shouldDescend(child: relative) { stack.append(path) }
                case .regular:
                    guard filter.isDocument(child: relative) else { continue }
                    if let st = FileSystem.lstatIfExists(path), st.kind == .regular {
                        documents.append((path, st))
                    }
                default:
                    continue
                }
            }
        }
        documents.sort { $0.path < $1.path }
        return (documents, problems)
    }
}
