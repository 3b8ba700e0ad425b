internal import CSQLite
#if canImport(Glibc)
import Glibc
#endif

/// `tk-agent search` without Foundation, GRDB or libcurl in the process.
///
/// Searching is the one command a writer runs interactively and often, so it must start in a
/// couple of milliseconds; the full CLI loads Foundation, libcurl and some fifty shared libraries
/// (about 18 ms before it does anything). This path handles the common case: well-formed arguments
/// and an existing index. Anything else (`--help`, a usage error, no index yet, a database that
/// needs migrating or fails) is left to the full CLI, which says what is wrong, so both paths
/// behave the same for the user.
public enum QuickSearch {
    public enum Outcome: Equatable {
        /// Done; exit with this status.
        case exit(Int32)
        /// Not handled here: run the full CLI with the same arguments.
        case fallback
    }

    /// The parsed `search` arguments.
    public struct Arguments: Equatable {
        public var terms: [String] = []
        public var project: String?
        public var path: String?
        public var limit = 20
        public var json = false
    }

    /// Parses the arguments after `search`, or nil when the full parser must handle them
    /// (help, an unknown option, a missing or bad value, no terms).
    public static func parse(_ args: [String]) -> Arguments? {
        var a = Arguments()
        var i = 0
        var onlyTerms = false
        /// The value of `--name=value` or `--name value` (not one that looks like an option).
        func value(_ name: String, _ arg: String) -> String? {
            if arg.hasPrefix(name + "=") { return String(arg.dropFirst(name.count + 1)) }
            guard arg == name, i + 1 < args.count, !args[i + 1].hasPrefix("-") else { return nil }
            i += 1
            return args[i]
        }
        func names(_ arg: String, _ name: String) -> Bool { arg == name || arg.hasPrefix(name + "=") }
        while i < args.count {
            let arg = args[i]
            defer { i += 1 }
            if onlyTerms || !arg.hasPrefix("-") {
                a.terms.append(arg)
            } else if arg == "--" {
                onlyTerms = true
            } else if arg == "--json" {
                a.json = true
            } else if names(arg, "--project") {
                guard let v = value("--project", arg) else { return nil }
                a.project = v
            } else if names(arg, "--path") {
                guard let v = value("--path", arg) else { return nil }
                a.path = v
            } else if names(arg, "--limit") {
                guard let v = value("--limit", arg), let n = Int(v), n >= 1 else { return nil }
                a.limit = n
            } else {
                // Help, `-`, an unknown option: the full parser answers.
                return nil
            }
        }
        if a.terms.allSatisfy({ SearchQuery.trimmed($0).isEmpty }) { return nil }
        return a
    }

    /// Runs `search` with the arguments after the word `search`.
    public static func run(_ args: [String], environment: (String) -> String? = QuickSearch.environment) -> Outcome {
        guard let parsed = parse(args) else { return .fallback }
        let text = parsed.terms.joined(separator: " ")
        let query = SearchQuery(text)
        guard !query.isEmpty, let database = databasePath(environment: environment) else { return .fallback }
        // No index yet, or not readable: the full CLI creates it or explains.
        guard access(database, R_OK | W_OK) == 0 else { return .fallback }
        SQLiteSettings.disableMemoryStatistics()
        guard let db = open(database) else { return .fallback }
        defer { sqlite3_close(db) }
        // A second connection ranks half the documents on another core.
        let helper = open(database)
        defer { if let helper { sqlite3_close(helper) } }
        var options = SearchOptions(pathGlob: parsed.path, limit: parsed.limit)
        if let p = parsed.project {
            guard let cwd = currentDirectory() else { return .fallback }
            options.project = Array(absolute(p, cwd: cwd, home: environment("HOME")).utf8)
        }
        guard let results = try? SearchEngine.search(connection: db, helper: helper, query: query, options: options, queryText: text) else {
            return .fallback
        }
        // Nothing in a --project: the full CLI tells a project it does not know from an empty answer.
        if parsed.project != nil, results.results.isEmpty { return .fallback }
        if parsed.json {
            write(SearchOutput.json(results) + "\n", to: STDOUT_FILENO)
        } else if results.results.isEmpty {
            write("no matches for \(text)\n", to: STDERR_FILENO)
        } else {
            let color = isatty(STDOUT_FILENO) != 0 && (environment("NO_COLOR") ?? "").isEmpty
            write(SearchOutput.text(results, color: color), to: STDOUT_FILENO)
            write(SearchOutput.summary(results) + "\n", to: STDERR_FILENO)
        }
        return .exit(0)
    }

    /// A read-only use of an existing database (never created here), or nil.
    static func open(_ path: String) -> OpaquePointer? {
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db else {
            sqlite3_close(db)
            return nil
        }
        sqlite3_busy_timeout(db, 5000)
        sqlite3_exec(db, "PRAGMA query_only = 1", nil, nil, nil)
        return db
    }

    static func close(_ db: OpaquePointer) { sqlite3_close(db) }

    /// The index database of the data folder, by the rules of TKCore's `Paths`:
    /// `TK_DATA_DIR`, else `$XDG_DATA_HOME/tk-agent`, else `~/.local/share/tk-agent`.
    public static func databasePath(environment: (String) -> String?) -> String? {
        func nonEmpty(_ k: String) -> String? { environment(k).flatMap { $0.isEmpty ? nil : $0 } }
        guard let cwd = currentDirectory() else { return nil }
        let home = nonEmpty("HOME")
        let data: String
        if let d = nonEmpty("TK_DATA_DIR") {
            data = absolute(d, cwd: cwd, home: home)
        } else if let x = nonEmpty("XDG_DATA_HOME") {
            data = absolute(x + "/tk-agent", cwd: cwd, home: home)
        } else if let home {
            data = absolute(home + "/.local/share/tk-agent", cwd: cwd, home: home)
        } else {
            return nil
        }
        return data == "/" ? "/index.sqlite" : data + "/index.sqlite"
    }

    /// An absolute, normalised path (`~/`, `.` and `..` resolved textually, no links followed): the
    /// rule of every path a user gives (`FileSystem.absolute` in TKCore calls this).
    public static func absolute(_ path: String, cwd: String, home: String?) -> String {
        var p = path
        if p.hasPrefix("~/"), let home { p = home + p.dropFirst(1) }
        let full = p.hasPrefix("/") ? p : cwd + "/" + p
        var parts: [Substring] = []
        for comp in full.split(separator: "/", omittingEmptySubsequences: true) {
            if comp == "." { continue }
            if comp == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(comp)
        }
        return "/" + parts.joined(separator: "/")
    }

    public static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    static func currentDirectory() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes all of `s` to a file descriptor (a closed pipe is not an error worth reporting).
    public static func write(_ s: String, to fd: Int32) {
        var s = s
        s.withUTF8 { buf in
            guard let base = buf.baseAddress else { return }
            var offset = 0
            while offset < buf.count {
                let n = Glibc.write(fd, base + offset, buf.count - offset)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { return }
                offset += n
            }
        }
    }
}

/// Process-wide SQLite settings.
public enum SQLiteSettings {
    /// Turns off SQLite's memory statistics, which take a global mutex on every allocation (the
    /// FTS5 tokenizer allocates for every token). Call before the first connection opens; later
    /// it does nothing.
    public static func disableMemoryStatistics() {
        _ = tk_sqlite_disable_memstatus()
    }
}
