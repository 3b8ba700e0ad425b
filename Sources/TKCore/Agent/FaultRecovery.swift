import Foundation
import Synchronization

/// How the agent words and recovers from failures of the disk under it (full, read-only, gone).
enum FaultRecovery {
    /// How long after a failed index pass the project is scanned again (space may have returned).
    static let retryDelay: Duration = .seconds(3)

    /// One clear line for a failed index pass: "no space left on …" for a full disk, "read-only" for a
    /// read-only data folder, else the error as it is.
    static func indexProblem(_ error: any Error, dataDirectory: PathBytes) -> String {
        let text = "\(error)"
        if let kind = diskFault(text) {
            return "\(kind) on \(dataDirectory.display) (the index); indexing resumes by itself when that is fixed"
        }
        return "indexing failed: \(text); retrying"
    }

    /// "no space left" or "read-only file system" when an error message says so.
    static func diskFault(_ text: String) -> String? {
        let lower = text.lowercased()
        if lower.contains("no space left") || lower.contains("disk is full") || lower.contains("sqlite_full")
            || lower.contains("enospc") || lower.contains("quota") {
            return "no space left"
        }
        if lower.contains("read-only") || lower.contains("readonly") || lower.contains("erofs")
            || lower.contains("permission denied") || lower.contains("eacces") {
            return "cannot write (read-only or permission denied)"
        }
        return nil
    }

    /// Whether a sidecar could not be written for a reason that passes (a full or read-only disk):
    /// then every document of the project is gone through again soon, so its sidecar catches up.
    static func needsRetry<Key>(_ sidecarProblems: [Key: String?]) -> Bool {
        sidecarProblems.values.contains { $0.map { diskFault($0) != nil } ?? false }
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
