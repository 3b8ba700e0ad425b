import CInotify

#if canImport(Glibc)
import Glibc
#endif

/// An inotify file descriptor, wrapped the swift-system way: `-1` becomes an `Errno` in one place.
public struct InotifyDescriptor: Sendable, Hashable {
    /// An `errno` value from a failed system call.
    public struct Errno: Error, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        public static let noSpace = Errno(rawValue: ENOSPC)
        public static let wouldBlock = Errno(rawValue: EAGAIN)
        public static let interrupted = Errno(rawValue: EINTR)
        public static let noEntry = Errno(rawValue: ENOENT)
        public static let notDirectory = Errno(rawValue: ENOTDIR)
        public static let invalid = Errno(rawValue: EINVAL)
        public static let tooManyFiles = Errno(rawValue: EMFILE)
        public var description: String { String(cString: strerror(rawValue)) }
    }

    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Opens a non-blocking, close-on-exec inotify instance.
    ///
    /// The corresponding C function is `inotify_init1`.
    /// - Throws: `Errno` (`EMFILE` when `fs.inotify.max_user_instances` is reached).
    public static func open() throws(Errno) -> InotifyDescriptor {
        let fd = try valueOrErrno { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }.get()
        return InotifyDescriptor(rawValue: fd)
    }

    /// Adds (or updates) a watch on `path`.
    ///
    /// The corresponding C function is `inotify_add_watch`.
    /// - Throws: `Errno` (`ENOSPC` when `fs.inotify.max_user_watches` is reached).
    public func addWatch(_ path: PathBytes, mask: InotifyEvent.Mask) throws(Errno) -> WatchDescriptor {
        let wd = try path.withCString { cPath in
            valueOrErrno { inotify_add_watch(rawValue, cPath, mask.rawValue) }
        }.get()
        return WatchDescriptor(rawValue: wd)
    }

    /// Removes a watch. The kernel then queues `IN_IGNORED` for it.
    ///
    /// The corresponding C function is `inotify_rm_watch`.
    public func removeWatch(_ wd: WatchDescriptor) throws(Errno) {
        _ = try valueOrErrno { inotify_rm_watch(rawValue, wd.rawValue) }.get()
    }

    /// Reads queued events into `buffer`; returns the byte count.
    ///
    /// The corresponding C function is `read`.
    /// - Throws: `Errno.wouldBlock` when nothing is queued.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        try valueOrErrno { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }.get()
    }

    /// Closes the descriptor. The corresponding C function is `close`.
    public func close() throws(Errno) {
        _ = try valueOrErrno(retryOnInterrupt: false) { Glibc.close(rawValue) }.get()
    }
}

/// Runs a C call that returns `-1` and sets `errno` on failure; retries `EINTR`.
@inline(__always)
func valueOrErrno<T: FixedWidthInteger>(
    retryOnInterrupt: Bool = true, _ body: () -> T
) -> Result<T, InotifyDescriptor.Errno> {
    while true {
        let value = body()
        if value != -1 { return .success(value) }
        let code = errno
        if retryOnInterrupt && code == EINTR { continue }
        return .failure(InotifyDescriptor.Errno(rawValue: code))
    }
}
