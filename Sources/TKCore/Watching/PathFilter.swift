/// Decides which folders are watched and which files are documents, from path bytes alone.
///
/// Never watched, never reported: hidden names (a component starting with `.`: `.git`, `.tk`,
/// `.obsidian`, `.#lock`, `.note.md.swp`), `node_modules`, editor temporary, swap and backup
/// names, and the user's `watch.ignore` globs (see `GlobPattern`). Symbolic links are never
/// followed; that needs `lstat`, so `isDocument(_:kind:)` takes the kind.
public struct PathFilter: Sendable, Hashable {
    public let ignore: [GlobPattern]

    /// - Parameter ignore: `watch.ignore` globs, relative to the project.
    public init(ignore: [String] = []) {
        self.ignore = ignore.filter { !$0.isEmpty }.map(GlobPattern.init)
    }

    /// A filter that only drops hidden names, `node_modules` and temporary names.
    public static let standard = PathFilter()

    /// Whether a folder below the project should be watched and walked.
    /// - Parameter relativeDirectory: the folder relative to the project; empty for the project itself.
    public func shouldDescend(_ relativeDirectory: PathBytes) -> Bool {
        let parts = relativeDirectory.components
        var prefix: [UInt8] = []
        for part in parts {
            if !prefix.isEmpty { prefix.append(UInt8(ascii: "/")) }
            prefix.append(contentsOf: part.bytes)
            if !acceptsDirectoryName(part) || isIgnored(PathBytes(prefix), isDirectory: true) { return false }
        }
        return true
    }

    /// Whether a folder should be walked, given that its parent was accepted.
    ///
    /// Checks only the last name and the whole relative path; cheaper than `shouldDescend`.
    public func shouldDescend(child relativeDirectory: PathBytes) -> Bool {
        acceptsDirectoryName(relativeDirectory.lastComponent) && !isIgnored(relativeDirectory, isDirectory: true)
    }

    /// Whether a path names a document, by its bytes alone: ends in `.md` or `.markdown`
    /// (any case), no hidden component, not under `node_modules`, not a temporary name, not ignored.
    ///
    /// The caller must still check that `lstat` says it is a regular file (`isDocument(_:kind:)`).
    /// - Parameter relativePath: the file relative to the project.
    public func isDocument(_ relativePath: PathBytes) -> Bool {
        guard hasDocumentName(relativePath.lastComponent) else { return false }
        let parent = relativePath.parent
        return (parent.isEmpty || shouldDescend(parent)) && !isIgnored(relativePath, isDirectory: false)
    }

    /// Whether a file is a document, given that its folder was accepted (`shouldDescend`).
    public func isDocument(child relativePath: PathBytes) -> Bool {
        hasDocumentName(relativePath.lastComponent) && !isIgnored(relativePath, isDirectory: false)
    }

    /// Whether a path is a document, given what `lstat` says about it: only regular files are.
    public func isDocument(_ relativePath: PathBytes, kind: FileStat.Kind) -> Bool {
        kind == .regular && isDocument(relativePath)
    }

    /// Whether a single name has the shape of a document name (suffix, not hidden, not temporary).
    public func hasDocumentName(_ name: PathBytes) -> Bool {
        guard !name.isEmpty, name.bytes.first != UInt8(ascii: ".") else { return false }
        guard name.hasSuffix(".md") || name.hasSuffix(".markdown") else { return false }
        return !Self.isTemporaryName(name)
    }

    /// Whether a folder name may be walked: not hidden and not `node_modules`.
    public func acceptsDirectoryName(_ name: PathBytes) -> Bool {
        guard let first = name.bytes.first, first != UInt8(ascii: ".") else { return false }
        return name.bytes != Self.nodeModules
    }

    /// Whether a `watch.ignore` pattern matches this path itself (`shouldDescend` checks the ancestors).
    public func isIgnored(_ relativePath: PathBytes, isDirectory: Bool) -> Bool {
        guard !ignore.isEmpty else { return false }
        return ignore.contains { $0.matches(relativePath, isDirectory: isDirectory) }
    }

    static let nodeModules = Array("node_modules".utf8)

    /// Whether a name is an editor's temporary, swap, backup or lock file.
    ///
    /// `4913` (vim's probe), `*~`, `.*.sw?`, `.#*`, `#*#`, `*___jb_*___` (JetBrains),
    /// `.goutputstream-*` (GIO), `sedXXXXXX` (sed -i), `*.vsctmp`, `*.bak`, `*.tmp`.
    public static func isTemporaryName(_ name: PathBytes) -> Bool {
        let b = name.bytes
        guard let first = b.first, let last = b.last else { return false }
        if b == Array("4913".utf8) { return true }
        if last == UInt8(ascii: "~") { return true }
        if first == UInt8(ascii: "#") && last == UInt8(ascii: "#") && b.count >= 2 { return true }
        if first == UInt8(ascii: ".") {
            if b.starts(with: Array(".#".utf8)) || b.starts(with: Array(".goutputstream-".utf8)) { return true }
            // .*.swp, .*.swo, .*.swx …
            if b.count >= 5, b[b.count - 4] == UInt8(ascii: "."), b[b.count - 3] == UInt8(ascii: "s"),
                b[b.count - 2] == UInt8(ascii: "w")
            {
                return true
            }
        }
        if name.hasSuffix("___"), containsSequence(b, Array("___jb_".utf8)) { return true }
        if name.hasSuffix(".vsctmp") || name.hasSuffix(".bak") || name.hasSuffix(".tmp") { return true }
        // sed -i: "sed" followed by 6 random characters, no dot.
        if b.count == 9, b.starts(with: Array("sed".utf8)), !b.contains(UInt8(ascii: ".")) { return true }
        return false
    }

    private static func containsSequence(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        for i in 0...(haystack.count - needle.count) where haystack[i] == needle[0] {
            if Array(haystack[i..<(i + needle.count)]) == needle { return true }
        }
        return false
    }
}
