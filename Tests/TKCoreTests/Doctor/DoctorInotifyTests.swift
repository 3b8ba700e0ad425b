import Foundation
import Testing
@testable import TKCore

/// The inotify checks of `doctor`, with a stand-in for /proc/sys passed in (the binary reads the real one).
@Suite struct DoctorInotifyTests {
    /// A folder laid out like /proc/sys with the given limits, and a project of `folders` folders.
    private func setUp(watches: Int, instances: Int = 128, folders: Int) throws -> (procSys: String, project: PathBytes) {
        let root = TestScratch.url("tk-doctor")
        let ino = root.appendingPathComponent("proc/fs/inotify")
        try FileManager.default.createDirectory(at: ino, withIntermediateDirectories: true)
        try "\(watches)\n".write(to: ino.appendingPathComponent("max_user_watches"), atomically: true, encoding: .utf8)
        try "\(instances)\n".write(to: ino.appendingPathComponent("max_user_instances"), atomically: true, encoding: .utf8)
        let proj = root.appendingPathComponent("proj")
        try FileManager.default.createDirectory(at: proj, withIntermediateDirectories: true)
        for i in 0..<(folders - 1) {
            try FileManager.default.createDirectory(at: proj.appendingPathComponent("dir\(i)"), withIntermediateDirectories: true)
        }
        return (root.appendingPathComponent("proc").path, FileSystem.absolute(proj.path))
    }

    @Test func aLowWatchLimitFailsAndNamesTheFix() throws {
        let (procSys, project) = try setUp(watches: 20, folders: 31)
        let checks = Doctor.inotify(projects: [project], config: .defaults, procSys: procSys)
        let fail = checks.filter { $0.status == .fail }
        #expect(fail.count == 1)
        #expect(fail.first?.message.contains("max_user_watches is 20") == true)
        #expect(fail.first?.message.contains("31 folders") == true)
        #expect(fail.first?.fix?.contains("sysctl fs.inotify.max_user_watches=") == true)
    }

    @Test func roomyLimitsAreOk() throws {
        let (procSys, project) = try setUp(watches: 524_288, folders: 3)
        let checks = Doctor.inotify(projects: [project], config: .defaults, procSys: procSys)
        #expect(checks.allSatisfy { $0.status == .ok })
        #expect(checks.contains { $0.message == "max_user_watches is 524288 for 3 folders" })
    }

    @Test func tooFewInstancesFail() throws {
        let (procSys, project) = try setUp(watches: 524_288, instances: 2, folders: 1)
        let checks = Doctor.inotify(projects: [project], config: .defaults, procSys: procSys)
        #expect(checks.contains { $0.status == .fail && $0.message.contains("max_user_instances is 2") })
    }

    @Test func anUnreadableProcIsAWarning() {
        let checks = Doctor.inotify(projects: [], config: .defaults, procSys: "/nonexistent-proc")
        #expect(checks.contains { $0.status == .warn && $0.message.contains("cannot read /nonexistent-proc") })
    }
}
