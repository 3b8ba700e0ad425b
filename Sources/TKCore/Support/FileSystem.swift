import Foundation
import TKSearch

#if canImport(Glibc)
import Glibc
#endif

/// An error from a file-system call, with the path and the errno text.
public struct FileSystemError: Error, CustomStringConvertible, Sendable {
    public var operation: String
    public var path: PathBytes
    public var code: Int32
    public init(_ operation: String, _ path: PathBytes, _ code: Int32) {
        self.operation = operation
        self.path = path
        self.code = code
    }
    public var description: String { "\(operation) \(path.display): \(String(cString: strerror(code)))" }
    public var isNotFound: Bool { code == ENOENT || code == ENOTDIR }
}

/// What `lstat` says about a path (symbolic links are never followed).
public struct FileStat: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case regular, directory, symlink, other }
    public var kind: Kind
    public var size: Int64
    public var mtimeNs: Int64
    public var ctimeNs: Int64
    public var inode: UInt64
    public var device: UInt64
}

/// Thin, byte-exact wrappers over the POSIX calls the agent needs.
public enum FileSystem {
    /// `lstat` the path. The corresponding C function is `lstat`.
    public static func lstat(_ path: PathBytes) throws(FileSystemError) -> FileStat {
        var st = stat()
        let rc = path.withCString { Glibc.lstat($0, &st) }
        if rc != 0 { throw FileSystemError("stat", path, errno) }
        return fileStat(st)
    }

    /// `stat` the path, following symbolic links (what a file read with `followingLinks` reads).
    public static func statFollowingLinks(_ path: PathBytes) -> FileStat? {
        var st = stat()
        guard path.withCString({ stat($0, &st) }) == 0 else { return nil }
        return fileStat(st)
    }

    private static func fileStat(_ st: stat) -> FileStat {
        let fmt = st.st_mode & S_IFMT
        let kind: FileStat.Kind =
            fmt == S_IFREG ? .regular : fmt == S_IFDIR ? .directory : fmt == S_IFLNK ? .symlink : .other
        return FileStat(
            kind: kind, size: Int64(st.st_size),
            mtimeNs: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
            ctimeNs: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec),
            inode: UInt64(st.st_ino), device: UInt64(st.st_dev))
    }

    /// `lstat`, or nil when the path does not exist.
    public static func lstatIfExists(_ path: PathBytes) -> FileStat? { try? lstat(path) }

    /// Reads a whole file without following a final symbolic link. At most `limit` bytes.
    /// - Parameter followingLinks: follow a final symbolic link too (a configuration file kept in a
    ///   dotfiles repository and linked into place); documents are never read through one.
    public static func read(_ path: PathBytes, limit: Int = Int.max, followingLinks: Bool = false) throws(FileSystemError) -> [UInt8] {
        let fd = path.withCString { open($0, O_RDONLY | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW)) }
        if fd < 0 { throw FileSystemError("open", path, errno) }
        defer { close(fd) }
        var out = [UInt8]()
        var st = stat()
        if fstat(fd, &st) == 0, st.st_size > 0 { out.reserveCapacity(min(Int(st.st_size), limit) + 1) }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while out.count < limit {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileSystemError("read", path, errno)
            }
            if n == 0 { break }
            out.append(contentsOf: chunk[0..<n])
        }
        if out.count > limit { out.removeLast(out.count - limit) }
        return out
    }

    /// The names in a directory (not `.` and `..`), as bytes, with their `d_type` when known.
    public static func list(_ dir: PathBytes) throws(FileSystemError) -> [(name: PathBytes, type: FileStat.Kind?)] {
        guard let d = dir.withCString({ opendir($0) }) else { throw FileSystemError("open directory", dir, errno) }
        defer { closedir(d) }
        var out: [(PathBytes, FileStat.Kind?)] = []
        while let ent = readdir(d) {
            let name = direntName(ent)
            if name == [46] || name == [46, 46] { continue }
            let t: FileStat.Kind?
            switch Int32(ent.pointee.d_type) {
            case Int32(DT_REG): t = .regular
            case Int32(DT_DIR): t = .directory
            case Int32(DT_LNK): t = .symlink
            case Int32(DT_UNKNOWN): t = nil
            default: t = .other
            }
            out.append((PathBytes(name), t))
        }
        return out
    }

    /// Creates a directory and its parents with `mode` (existing ones are left as they are).
    public static func makeDirectories(_ path: PathBytes, mode: mode_t = 0o755) throws(FileSystemError) {
        if let st = lstatIfExists(path) {
            if st.kind == .directory { return }
            // A symbolic link to a folder (a project root or a home named through a link) is fine.
            if st.kind == .symlink, TreeWatcher.statFollowing(path)?.kind == .directory { return }
            throw FileSystemError("create directory", path, EEXIST)
        }
        let parent = path.parent
        if !parent.isEmpty, parent != path { try makeDirectories(parent, mode: mode) }
        let rc = path.withCString { mkdir($0, mode) }
        if rc != 0 && errno != EEXIST { throw FileSystemError("create directory", path, errno) }
    }

    /// Writes `bytes` atomically: a temporary file in the same folder, then rename.
    ///
    /// With `durable` (the default) the data is fsynced before the rename, so a crash leaves the old
    /// or the new content. Derived files that can be rebuilt (sidecars) pass `false`: a burst of
    /// thousands of saves must not cost thousands of disk flushes.
    public static func writeAtomically(_ bytes: [UInt8], to path: PathBytes, mode: mode_t = 0o644, durable: Bool = true) throws(FileSystemError) {
        let dir = path.parent
        var tmpName = path.lastComponent.bytes
        tmpName.insert(UInt8(ascii: "."), at: 0)
        tmpName.append(contentsOf: Array(".tk-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp".utf8))
        let tmp = dir.isEmpty ? PathBytes(tmpName) : dir.appending(PathBytes(tmpName))
        let fd = tmp.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }
        if fd < 0 { throw FileSystemError("create", tmp, errno) }
        var ok = false
        defer {
            if !ok { _ = tmp.withCString { unlink($0) } }
        }
        var written = 0
        let writeError: Int32? = bytes.withUnsafeBytes { raw -> Int32? in
            while written < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += n
            }
            return nil
        }
        if let e = writeError { close(fd); throw FileSystemError("write", tmp, e) }
        _ = fchmod(fd, mode)
        if durable, fsync(fd) != 0 { let e = errno; close(fd); throw FileSystemError("sync", tmp, e) }
        close(fd)
        let rc = tmp.withCString { t in path.withCString { p in Glibc.rename(t, p) } }
        if rc != 0 { throw FileSystemError("rename", path, errno) }
        ok = true
    }

    /// Removes a file; a missing one is not an error.
    public static func remove(_ path: PathBytes) throws(FileSystemError) {
        let rc = path.withCString { unlink($0) }
        if rc != 0 && errno != ENOENT { throw FileSystemError("remove", path, errno) }
    }

    /// Removes an empty directory; returns false when it is not empty or missing.
    @discardableResult
    public static func removeEmptyDirectory(_ path: PathBytes) -> Bool {
        path.withCString { rmdir($0) } == 0
    }

    /// Renames a path. The corresponding C function is `rename`.
    public static func rename(_ from: PathBytes, to: PathBytes) throws(FileSystemError) {
        let rc = from.withCString { f in to.withCString { t in Glibc.rename(f, t) } }
        if rc != 0 { throw FileSystemError("rename", from, errno) }
    }

    /// The absolute, lexically normalised form of a user-given path (no symlinks resolved).
    /// One rule with the quick search path (`QuickSearch.absolute`), which has no Foundation.
    public static func absolute(_ path: String, cwd: String = FileManager.default.currentDirectoryPath) -> PathBytes {
        PathBytes(QuickSearch.absolute(path, cwd: cwd, home: ProcessEnvironment.current["HOME"]))
    }
}

/// The name of a directory entry, read in place up to its NUL.
///
/// Never `ent.pointee.d_name`: that copies all 256 bytes of the declared array, but the kernel's
/// record ends after the name (`d_reclen`), and a record at the end of `readdir`'s buffer then reads
/// past the mapped memory (an intermittent SIGSEGV in the directory walk).
func direntName(_ ent: UnsafeMutablePointer<dirent>) -> [UInt8] {
    guard let offset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else { return [] }
    let name = UnsafeRawPointer(ent).advanced(by: offset).assumingMemoryBound(to: CChar.self)
    return Array(UnsafeRawBufferPointer(start: name, count: strlen(name)))
}
