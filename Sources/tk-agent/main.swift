// The `tk-agent` command: a small front that answers `search` itself and hands everything else
// to `tk-agent-core`, the full CLI installed beside it.
//
// The full CLI links Foundation, GRDB and libcurl: some fifty shared libraries that cost about
// 18 ms before `main`. A search must answer in a few milliseconds, so this executable links only
// the Swift standard library (statically) and SQLite. Other commands pay one `execv` (well under
// a millisecond) on top of the full CLI's start-up.
import TKSearch
#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
// `search --hybrid`/`--semantic` need an embedding provider: the full CLI answers them.
if arguments.count > 1, arguments[1] == "search", !arguments.contains("--hybrid"), !arguments.contains("--semantic") {
    if case .exit(let status) = QuickSearch.run(Array(arguments.dropFirst(2))) { exit(status) }
}
CoreLauncher.exec(arguments)
