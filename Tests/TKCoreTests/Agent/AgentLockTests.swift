import Foundation
import Testing
@testable import TKCore

@Suite(.serialized) struct AgentLockTests {
    func paths() throws -> Paths {
        let dir = TestScratch.url("tklock")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let p = PathBytes(dir.path)
        return Paths(userConfig: p.appending("config.json"), configDirectory: p, dataDirectory: p.appending("data"),
                     runtimeDirectory: p.appending("run"))
    }

    /// Holds the lock file shared, as `tk-agent status` does for a moment, with `pid` in it.
    func holdShared(_ paths: Paths, pid: Int32) throws -> Int32 {
        try paths.prepare()
        let fd = paths.lockFile.withCString { open($0, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        #expect(fd >= 0)
        let text = Array("\(pid)\n".utf8)
        _ = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        #expect(flock(fd, LOCK_SH | LOCK_NB) == 0)
        return fd
    }

    @Test func aCommandsMomentaryReaderIsWaitedOut() throws {
        let paths = try paths()
        // The pid of an agent that has exited: no process has it.
        let fd = try holdShared(paths, pid: Int32.max - 1)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { close(fd) }
        let lock = try AgentLock.acquire(paths: paths)
        #expect(AgentLock.runningPID(paths: paths) == getpid())
        _ = lock
    }

    @Test func aLiveAgentIsReportedAtOnce() throws {
        let paths = try paths()
        let fd = try holdShared(paths, pid: getpid())
        defer { close(fd) }
        let start = Date()
        #expect(throws: AgentLock.Failure.self) { try AgentLock.acquire(paths: paths) }
        #expect(Date().timeIntervalSince(start) < 1)
    }

    /// The status file of the agent that ran before says nothing of the one that runs now: until the
    /// new agent writes its own, `status` says it is starting (a stale "idle, nothing pending" made
    /// a benchmark stop waiting before the new agent had embedded anything).
    @Test func aStatusFileFromTheAgentBeforeIsNotTakenForThisOnes() throws {
        let paths = try paths()
        let lock = try AgentLock.acquire(paths: paths)
        defer { _ = lock }
        func write(pid: Int32) throws {
            let old = StatusSnapshot(running: true, pid: pid, uptimeS: 5, startedAt: nil, updatedAt: nil, projects: [],
                                     index: .init(documents: 7, pending: 0), problems: [])
            try FileSystem.writeAtomically(Array(JSON.string(old).utf8), to: paths.statusFile, mode: 0o600)
        }
        try write(pid: Int32.max - 1)
        let starting = try #require(StatusReporter.live(paths: paths))
        #expect(starting.index.pending == 1)
        #expect(starting.problems.contains { $0.contains("starting") })
        try write(pid: getpid())
        let own = try #require(StatusReporter.live(paths: paths))
        #expect(own.index.documents == 7 && own.index.pending == 0)
    }

    /// Between taking the lock and writing its pid, an agent's pid cannot be read: a status file
    /// left by an agent killed with nothing queued must not be taken for the new one's (a harness
    /// waiting for "nothing queued" would stop it before it ran the rounds waiting in the database).
    @Test func aStatusFileIsNotTrustedBeforeTheNewAgentsPidIsWritten() throws {
        let paths = try paths()
        try paths.prepare()
        let old = StatusSnapshot(running: true, pid: Int32.max - 1, uptimeS: 5, startedAt: nil, updatedAt: nil,
                                 projects: [], index: .init(documents: 7, pending: 0), problems: [])
        try FileSystem.writeAtomically(Array(JSON.string(old).utf8), to: paths.statusFile, mode: 0o600)
        let fd = paths.lockFile.withCString { open($0, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600) }
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        #expect(AgentLock.runningPID(paths: paths) == -1)
        let starting = try #require(StatusReporter.live(paths: paths))
        #expect(starting.index.pending == 1)
        #expect(starting.pid == nil)
        #expect(starting.problems.contains { $0.contains("starting") })
    }
}
