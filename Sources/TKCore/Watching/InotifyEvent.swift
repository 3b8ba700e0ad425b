/// One event read from an inotify descriptor (`struct inotify_event`).
///
/// `name` is the file name inside the watched directory, as the exact bytes the kernel gave
/// (NUL padding trimmed); it is empty when the event is about the watched directory itself.
public struct InotifyEvent: Sendable, Hashable {
    /// The watch descriptor the event belongs to (`-1` for `IN_Q_OVERFLOW`).
    public var watch: WatchDescriptor
    public var mask: Mask
    /// Pairs `IN_MOVED_FROM` with `IN_MOVED_TO` of the same rename; 0 otherwise.
    public var cookie: UInt32
    public var name: [UInt8]

    public init(watch: WatchDescriptor, mask: Mask, cookie: UInt32 = 0, name: [UInt8] = []) {
        self.watch = watch
        self.mask = mask
        self.cookie = cookie
        self.name = name
    }

    public init(watch: Int32, mask: Mask, cookie: UInt32 = 0, name: String) {
        self.init(watch: WatchDescriptor(rawValue: watch), mask: mask, cookie: cookie, name: Array(name.utf8))
    }
}

/// A watch descriptor returned by `inotify_add_watch`.
public struct WatchDescriptor: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }
    public static func < (a: WatchDescriptor, b: WatchDescriptor) -> Bool { a.rawValue < b.rawValue }
    public var description: String { "wd\(rawValue)" }
}

extension InotifyEvent {
    /// The inotify event and flag bits (`IN_*` from `<sys/inotify.h>`).
    public struct Mask: OptionSet, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let access = Mask(rawValue: 0x0000_0001)
        public static let modify = Mask(rawValue: 0x0000_0002)
        public static let attrib = Mask(rawValue: 0x0000_0004)
        public static let closeWrite = Mask(rawValue: 0x0000_0008)
        public static let closeNoWrite = Mask(rawValue: 0x0000_0010)
        public static let open = Mask(rawValue: 0x0000_0020)
        public static let movedFrom = Mask(rawValue: 0x0000_0040)
        public static let movedTo = Mask(rawValue: 0x0000_0080)
        public static let create = Mask(rawValue: 0x0000_0100)
        public static let delete = Mask(rawValue: 0x0000_0200)
        public static let deleteSelf = Mask(rawValue: 0x0000_0400)
        public static let moveSelf = Mask(rawValue: 0x0000_0800)
        // Flags the kernel sets on events.
        public static let unmount = Mask(rawValue: 0x0000_2000)
        public static let queueOverflow = Mask(rawValue: 0x0000_4000)
        public static let ignored = Mask(rawValue: 0x0000_8000)
        public static let isDirectory = Mask(rawValue: 0x4000_0000)
        // Flags for `inotify_add_watch`.
        public static let onlyDirectory = Mask(rawValue: 0x0100_0000)
        public static let dontFollow = Mask(rawValue: 0x0200_0000)
        public static let excludeUnlinked = Mask(rawValue: 0x0400_0000)
        public static let maskCreate = Mask(rawValue: 0x1000_0000)
        public static let maskAdd = Mask(rawValue: 0x2000_0000)
        public static let oneShot = Mask(rawValue: 0x8000_0000)

        /// What the agent watches on every directory (watchman's mask plus `IN_CLOSE_WRITE`).
        public static let agentDirectory: Mask = [
            .attrib, .create, .delete, .deleteSelf, .modify, .moveSelf, .movedFrom, .movedTo,
            .dontFollow, .onlyDirectory, .excludeUnlinked, .closeWrite,
        ]

        /// Events that mean "this name may now have different content or no longer exist".
        public static let pathDirty: Mask = [.create, .modify, .closeWrite, .attrib, .movedTo, .movedFrom, .delete]

        private static let names: [(Mask, String)] = [
            (.access, "ACCESS"), (.modify, "MODIFY"), (.attrib, "ATTRIB"), (.closeWrite, "CLOSE_WRITE"),
            (.closeNoWrite, "CLOSE_NOWRITE"), (.open, "OPEN"), (.movedFrom, "MOVED_FROM"), (.movedTo, "MOVED_TO"),
            (.create, "CREATE"), (.delete, "DELETE"), (.deleteSelf, "DELETE_SELF"), (.moveSelf, "MOVE_SELF"),
            (.unmount, "UNMOUNT"), (.queueOverflow, "Q_OVERFLOW"), (.ignored, "IGNORED"), (.isDirectory, "ISDIR"),
            (.onlyDirectory, "ONLYDIR"), (.dontFollow, "DONT_FOLLOW"), (.excludeUnlinked, "EXCL_UNLINK"),
            (.maskCreate, "MASK_CREATE"), (.maskAdd, "MASK_ADD"), (.oneShot, "ONESHOT"),
        ]

        /// The flag names joined with `|`, e.g. `CREATE|ISDIR`.
        public var description: String {
            var parts = Self.names.filter { contains($0.0) }.map(\.1)
            let known = Self.names.reduce(UInt32(0)) { $0 | $1.0.rawValue }
            let rest = rawValue & ~known
            if rest != 0 { parts.append("0x" + String(rest, radix: 16)) }
            return parts.isEmpty ? "0" : parts.joined(separator: "|")
        }
    }
}
