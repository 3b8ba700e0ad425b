import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Throwaway folders for the unit tests, all inside one folder per test process
/// (`$TMPDIR/tk-unit-tests-<pid>`), which is removed when the process exits: a run leaves nothing
/// behind in the temporary folder, however many fixtures forget to clean up.
enum TestScratch {
    static let root: String = {
        let root = folder(pid: getpid())
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: TestScratch.folder(pid: getpid())) }
        return root
    }()

    static func folder(pid: Int32) -> String { NSTemporaryDirectory() + "tk-unit-tests-\(pid)" }

    /// A fresh path (not created) named `prefix-<uuid>` inside the process's folder.
    static func path(_ prefix: String) -> String { root + "/\(prefix)-\(UUID().uuidString)" }

    /// `path(prefix)` as a file URL.
    static func url(_ prefix: String) -> URL { URL(fileURLWithPath: path(prefix)) }
}
