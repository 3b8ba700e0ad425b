import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The one-agent-per-data-folder lock: `flock` on `<runtime>/agent.lock`, which holds the pid.
public final class AgentLock: Sendable {
    private let fd: Int32
    public let path: PathBytes

    private init(fd: Int32, path: PathBytes) { self.fd = fd; self.path = path }
    deinit { close(fd) }

    public enum Failure: Error, CustomStringConvertible {
        case alreadyRunning(pid: Int32?, dataDirectory: String)
        case io(FileSystemError)
        public var description: String {
            switch self {
            case .alreadyRunning(let pid, let dir):
                let who = pid.map { "pid \($0)" } ?? "another process"
                return "another tk-agent is already running for \(dir) (\(who)); stop it first or use another TK_DATA_DIR"
            case .io(let e): return "cannot take the agent lock: \(e)"
            }
        }
    }

    /// Takes the lock or fails when another agent holds it.
    public static func acquire(paths: Paths) throws(Failure) -> AgentLock {
        do { try paths.prepare() } catch { throw .io(error) }
        let path = paths.lockFile
        let fd = path.withCString { open($0, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        if fd < 0 { throw .io(FileSystemError("open", path, errno)) }
        // `status` and the other commands take the lock shared for a moment to ask whether an agent
        // runs; wait out such a reader (a real agent holds the lock for good) before giving up.
        var tries = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            tries += 1
            if tries < 30, readPID(fd).map({ $0 <= 0 || kill($0, 0) != 0 }) ?? true {
                usleep(100_000)
                continue
            }
            let pid = readPID(fd)
            close(fd)
            throw .alreadyRunning(pid: pid, dataDirectory: paths.dataDirectory.display)
        }
        _ = ftruncate(fd, 0)
        let text = Array("\(getpid())\n".utf8)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        return AgentLock(fd: fd, path: path)
    }

    /// The pid of the running agent for these paths, or nil when none runs.
    public static func runningPID(paths: Paths) -> Int32? {
        let fd = paths.lockFile.withCString { open($0, O_RDONLY | O_CLOEXEC) }
        if fd < 0 { return nil }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return nil
        }
        return readPID(fd) ?? -1
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buf = [UInt8](repeating: 0, count: 32)
        let n = buf.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return nil }
        return Int32(String(decoding: buf[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Asks the running agent to do something: SIGHUP reloads the configuration (projects),
    /// SIGUSR1 wakes the review queue. Returns false when no agent runs.
    @discardableResult
    public static func signal(paths: Paths, _ sig: Int32) -> Bool {
        guard let pid = runningPID(paths: paths), pid > 0 else { return false }
        return kill(pid, sig) == 0
    }
}
