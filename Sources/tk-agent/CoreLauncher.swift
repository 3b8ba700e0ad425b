import TKSearch
#if canImport(Glibc)
import Glibc
#endif

/// Finds `tk-agent-core` and replaces this process with it.
enum CoreLauncher {
    static let coreName = "tk-agent-core"

    /// Where the full CLI may be, first found wins: beside this executable (a build folder,
    /// `~/.local/bin`), then in `../libexec/tk-agent/` (a packaged install).
    static func candidates(executable: String) -> [String] {
        var dir = executable
        if let slash = dir.lastIndex(of: "/") { dir = String(dir[..<slash]) } else { dir = "." }
        if dir.isEmpty { dir = "/" }
        let parent = dir.lastIndex(of: "/").map { String(dir[..<$0]) } ?? "."
        return [dir + "/" + coreName, (parent.isEmpty ? "" : parent) + "/libexec/tk-agent/" + coreName]
    }

    /// This executable's real path (symbolic links resolved), from `/proc/self/exe`.
    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func exec(_ arguments: [String]) -> Never {
        let me = executablePath() ?? CommandLine.arguments[0]
        let paths = candidates(executable: me)
        for path in paths where access(path, X_OK) == 0 {
            var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
            argv.append(nil)
            execv(path, &argv)
            QuickSearch.write("tk-agent: cannot run \(path): error \(errno)\n", to: STDERR_FILENO)
            exit(1)
        }
        QuickSearch.write("tk-agent: the full CLI (\(coreName)) is not installed beside \(me); install both "
                          + "binaries (see the README, Install)\n", to: STDERR_FILENO)
        exit(1)
    }
}
