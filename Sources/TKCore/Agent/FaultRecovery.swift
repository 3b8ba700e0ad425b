import Foundation
import GRDB
import Synchronization

/// How the agent words and recovers from failures of the disk under it (full, read-only, gone).
enum FaultRecovery {
    /// How long after a failed index pass the project is scanned again (space may have returned).
    static let retryDelay: Duration = .seconds(3)

    /// A failure of the disk under the agent that passes by itself once the writer fixes it.
    enum DiskFault: Sendable, Hashable {
        /// ENOSPC, EDQUOT, SQLITE_FULL.
        case noSpace
        /// EROFS, EACCES, EPERM, SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN.
        case cannotWrite

        var words: String {
            switch self {
            case .noSpace: return "no space left"
            case .cannotWrite: return "cannot write (read-only or permission denied)"
            }
        }
    }

    /// One clear line for a failed index pass: "no space left on …" for a full disk, "cannot write"
    /// for a read-only data folder, else the error as it is.
    static func indexProblem(_ error: any Error, dataDirectory: PathBytes) -> String {
        if let fault = diskFault(error, dataDirectory: dataDirectory) {
            return "\(fault.words) on \(dataDirectory.display) (the index); indexing resumes by itself when that is fixed"
        }
        return "indexing failed: \(error); retrying"
    }

    /// The disk fault behind an error, from its cause as a value (the errno, the SQLite result
    /// code), never from its message. `dataDirectory`: an I/O error of SQLite counts as a full disk
    /// when that folder has no free space left.
    static func diskFault(_ error: any Error, dataDirectory: PathBytes? = nil) -> DiskFault? {
        switch error {
        case let e as DocumentStateError:
            return diskFault(e.cause, dataDirectory: dataDirectory)
        case let e as FileSystemError:
            return diskFault(errno: e.code)
        case let e as DatabaseError:
            switch e.resultCode {
            case .SQLITE_FULL: return .noSpace
            case .SQLITE_READONLY, .SQLITE_PERM, .SQLITE_CANTOPEN: return .cannotWrite
            case .SQLITE_IOERR:
                guard let dataDirectory, let free = freeBytes(dataDirectory) else { return nil }
                return free < 64 * 1024 ? .noSpace : nil
            default: return nil
            }
        case let e as CocoaError:
            if let posix = e.userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
                return diskFault(errno: Int32(posix.code))
            }
            switch e.code {
            case .fileWriteOutOfSpace: return .noSpace
            case .fileWriteVolumeReadOnly, .fileWriteNoPermission: return .cannotWrite
            default: return nil
            }
        case let e as POSIXError:
            return diskFault(errno: e.code.rawValue)
        default:
            let ns = error as NSError
            return ns.domain == NSPOSIXErrorDomain ? diskFault(errno: Int32(ns.code)) : nil
        }
    }

    static func diskFault(errno code: Int32) -> DiskFault? {
        switch code {
        case ENOSPC, EDQUOT: return .noSpace
        case EROFS, EACCES, EPERM: return .cannotWrite
        default: return nil
        }
    }

    /// Free bytes for an unprivileged writer on the file system holding `path` (`statvfs`).
    static func freeBytes(_ path: PathBytes) -> UInt64? {
        var st = statvfs()
        guard path.withCString({ statvfs($0, &st) }) == 0 else { return nil }
        return UInt64(st.f_bavail) * UInt64(st.f_frsize)
    }
}

extension AgentLock {
    /// A lock file taken again after the runtime folder was removed under a running agent (its first
    /// lock file is gone with the folder). Held until the process exits.
    private static let retaken = Mutex<Int32?>(nil)

    /// Makes the lock file again when it is missing, so that `status` and the other commands still
    /// find the running agent. Does nothing when another process holds a new lock already.
    static func retakeIfMissing(paths: Paths) {
        guard FileSystem.lstatIfExists(paths.lockFile) == nil else { return }
        try? paths.prepare()
        let fd = paths.lockFile.withCString { open($0, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        guard fd >= 0 else { return }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { close(fd); return }
        _ = ftruncate(fd, 0)
        let text = Array("\(getpid())\n".utf8)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        let old = retaken.withLock { slot -> Int32? in
            defer { slot = fd }
            return slot
        }
        if let old { close(old) }
    }
}
