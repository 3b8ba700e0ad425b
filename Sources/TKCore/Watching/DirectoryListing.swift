import CInotify

#if canImport(Glibc)
import Glibc
#endif

/// Lists folders without following symbolic links (`open(O_DIRECTORY|O_NOFOLLOW)` + `fdopendir`).
enum DirectoryListing {
    struct Entry {
        var name: PathBytes
        /// From `d_type`; nil when the file system does not say (then `lstat` decides).
        var kind: FileStat.Kind?
    }

    /// The entries of `directory` (not `.` and `..`).
    /// - Parameter followLink: whether a symbolic link at `directory` itself may be followed
    ///   (only for a project root the user named).
    static func entries(of directory: PathBytes, followLink: Bool = false) throws(InotifyDescriptor.Errno) -> [Entry] {
        var flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC
        if !followLink { flags |= O_NOFOLLOW }
        let fd = try directory.withCString { path in valueOrErrno { open(path, flags) } }.get()
        guard let dir = fdopendir(fd) else {
            let code = errno
            close(fd)
            throw InotifyDescriptor.Errno(rawValue: code)
        }
        defer { closedir(dir) }
        var out: [Entry] = []
        while true {
            errno = 0
            guard let ent = readdir(dir) else {
                if errno != 0 { throw InotifyDescriptor.Errno(rawValue: errno) }
                break
            }
            let name = direntName(ent)
            if name == [46] || name == [46, 46] || name.isEmpty { continue }
            let kind: FileStat.Kind?
            switch Int32(ent.pointee.d_type) {
            case Int32(DT_REG): kind = .regular
            case Int32(DT_DIR): kind = .directory
            case Int32(DT_LNK): kind = .symlink
            case Int32(DT_UNKNOWN): kind = nil
            default: kind = .other
            }
            out.append(Entry(name: PathBytes(name), kind: kind))
        }
        return out
    }
}
