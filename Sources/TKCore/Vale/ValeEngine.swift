import Foundation
import Synchronization

/// A team's Vale styles, loaded and compiled once, ready to lint Markdown documents.
///
/// Pure apart from reading the configuration: `findings(bytes:relativePath:)` depends only on the
/// document and on what was loaded (whose `digest` covers the ini and every rule file).
public struct ValeEngine: Sendable {
    public let configuration: ValeConfiguration
    public let styles: ValeStyles
    /// The folder globs are relative to (Vale's working folder).
    public let root: String

    /// Digest of the ini and every file of the styles it loads: a derivation input.
    public var digest: String { styles.digest }

    public init(configuration: ValeConfiguration, root: String) {
        self.configuration = configuration
        self.styles = ValeStyles.load(configuration)
        self.root = root
    }

    /// One line each for stderr (or `status`): configuration problems and rules skipped.
    public var problems: [String] {
        configuration.problems + styles.problems
            + (styles.skipped.isEmpty ? [] : ["\(configuration.path): Vale rules skipped (\(styles.skipped.count)): "
                + styles.skipped.map { String($0.split(separator: ":").first ?? "") }.joined(separator: ", ")])
    }

    /// Lines for the `script` rules that failed while linting so far (after `problems`, which are known at load).
    public var runtimeProblems: [String] { styles.scriptFailures.all }

    /// The engine for the configuration Vale would find from `folder` (nil when there is none).
    /// Cached per (ini path, digest of ini and rules) for the life of the process.
    public static func discover(from folder: String) -> ValeEngine? {
        guard let path = ValeConfiguration.find(from: folder) else { return nil }
        return cached(path: path, root: folder)
    }

    private static let cache = Mutex<[String: (stamp: String, engine: ValeEngine)]>([:])

    /// The engine for the ini at `path`, reloaded when the ini or a rule file changes.
    public static func cached(path: String, root: String) -> ValeEngine? {
        let key = path + "\u{0}" + root
        let stamp = Self.stamp(path)
        if let hit = cache.withLock({ $0[key] }), hit.stamp == stamp { return hit.engine }
        guard let cfg = try? ValeConfiguration.load(path: path) else { return nil }
        let engine = ValeEngine(configuration: cfg, root: root)
        cache.withLock { $0[key] = (Self.stamp(path), engine) }
        return engine
    }

    /// Modification times of the ini and of the style folders' files (cheap change detection).
    static func stamp(_ path: String) -> String {
        var parts: [String] = []
        func mtime(_ p: String) -> String {
            var st = stat()
            guard stat(p, &st) == 0 else { return "-" }
            return "\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec).\(st.st_size)"
        }
        parts.append(mtime(path))
        if let cfg = try? ValeConfiguration.load(path: path), let sp = cfg.stylesPath {
            for style in cfg.styles + cfg.vocab.map({ "config/vocabularies/\($0)" }) + ["config/dictionaries", "config/ignore"] {
                let dir = (sp as NSString).appendingPathComponent(style)
                parts.append(mtime(dir))
                for n in ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() {
                    parts.append(n + mtime((dir as NSString).appendingPathComponent(n)))
                }
            }
        }
        return parts.joined(separator: "|")
    }

    /// The path Vale's section globs see for `absolutePath`: relative to `root` when inside it.
    public func relativePath(for absolutePath: String) -> String {
        Self.relativePath(absolutePath, root: root)
    }

    /// The path Vale's section globs see for `absolutePath` with `root` as the working folder.
    public static func relativePath(_ absolutePath: String, root: String) -> String {
        let r = root.hasSuffix("/") ? root : root + "/"
        return absolutePath.hasPrefix(r) ? String(absolutePath.dropFirst(r.count)) : absolutePath
    }

    /// The extension Vale's formats see for a path (`.md` when it has none).
    static func extensionOf(_ relativePath: String) -> String {
        let e = (relativePath as NSString).pathExtension
        return "." + (e.isEmpty ? "md" : e)
    }

    /// Vale's alerts for a Markdown document.
    public func alerts(bytes: [UInt8], relativePath: String) -> [ValeAlert] {
        let linter = ValeFileLinter(styles: styles, cfg: configuration, relativePath: relativePath, ext: Self.extensionOf(relativePath))
        guard linter.hasWork else { return [] }
        return linter.lint(bytes: bytes)
    }

    /// The alerts as tk-agent findings (category `vale`, rule `Style.Rule`, byte offsets into `bytes`).
    public func findings(bytes: [UInt8], relativePath: String) -> [Finding] {
        Self.findings(alerts(bytes: bytes, relativePath: relativePath), bytes: bytes)
    }

    /// The findings of a document walked on another thread (`walk` made with this engine's
    /// configuration from `bytes`), its rules shared among `threads` threads: the same findings as
    /// `findings(bytes:relativePath:)`, sooner on a machine with cores to spare.
    public func findings(bytes: [UInt8], walk: ValeDocumentWalk, threads: Int) -> [Finding] {
        ValeLintRun(engine: { self }, bytes: bytes, walk: walk, helpers: threads - 1, shares: ValeLintRun.shares(threads: threads))
            .findings()
    }

    static func findings(_ alerts: [ValeAlert], bytes: [UInt8]) -> [Finding] {
        findings(alerts, lines: ValeLineStarts(bytes))
    }

    static func findings(_ alerts: [ValeAlert], lines: ValeLineStarts) -> [Finding] {
        let bytes = lines.bytes
        var cursor = ValeLineStarts.Cursor()
        return alerts.map { a in
            let start = lines.offset(line: a.line, column: a.span.0, cursor: &cursor)
            var past = cursor
            var end = lines.offset(line: a.line, column: a.span.1 + 1, cursor: &past)
            if end < start { end = start }
            let text = String(decoding: bytes[start..<end], as: UTF8.self)
            let sev: Severity = a.severity == "error" ? .error : a.severity == "suggestion" ? .suggestion : .warning
            let id = "v-" + String(SHA256Digest.hex(Array("\(a.check)\u{0}\(start)\u{0}\(text)".utf8)).prefix(12))
            return Finding(id: id, rule: a.check, category: .vale, severity: sev, message: a.message, text: text,
                           start: start, end: end, line: a.line, column: a.span.0, replacements: a.replacements)
        }
    }
}

/// Where each line of a document starts, in its original bytes (`\n`, `\r\n` and a lone `\r` end
/// lines, as Vale reads them): Vale's line and column made a byte offset.
struct ValeLineStarts: Sendable {
    let bytes: [UInt8]
    private var starts = [0]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var i = 0
        while i < bytes.count {
            if bytes[i] == 10 { starts.append(i + 1) }
            else if bytes[i] == 13 {
                if i + 1 < bytes.count, bytes[i + 1] == 10 { i += 1 }
                starts.append(i + 1)
            }
            i += 1
        }
    }

    private func lineEnd(_ l: Int) -> Int {
        var e = l + 1 < starts.count ? starts[l + 1] : bytes.count
        while e > starts[l], bytes[e - 1] == 10 || bytes[e - 1] == 13 { e -= 1 }
        return e
    }

    /// The byte offset of 1-based `column` (Unicode scalars) of 1-based `line`, clamped to the line.
    func offset(line: Int, column: Int) -> Int {
        var cursor = Cursor()
        return offset(line: line, column: column, cursor: &cursor)
    }

    /// A place already counted to: `offset` of `column` on `line`.
    struct Cursor {
        var line = -1, column = 1, offset = 0
    }

    /// `offset(line:column:)`, counting on from `cursor` when it is on the same line at or before
    /// `column` (alerts come by line and column: a paragraph's findings are not each counted from
    /// the start of its line); `cursor` is left at the place found.
    func offset(line: Int, column: Int, cursor: inout Cursor) -> Int {
        let l = max(0, min(line - 1, starts.count - 1))
        let end = lineEnd(l)
        var p = starts[l], n = 1
        if cursor.line == l, cursor.column <= column { p = cursor.offset; n = cursor.column }
        while p < end, n < column {
            p += 1
            while p < end, bytes[p] & 0xC0 == 0x80 { p += 1 }
            n += 1
        }
        cursor = Cursor(line: l, column: n, offset: p)
        return p
    }
}

/// One document's Vale rules, linted in shares by whichever thread is free: the run's helper
/// threads from the start, and the thread that asks for the findings once it has done its own work
/// (`check` runs the quick heuristics first), which takes the shares no helper has started. Each
/// share's alerts become findings on the thread that linted it. Rules do not see each other's alerts
/// (consistency and conditional rules all go to one share, `ValeFileLinter`), so the shares' findings
/// merge to what one linter running every rule reports.
public final class ValeLintRun: Sendable {
    private let engine: @Sendable () -> ValeEngine
    private let lines: ValeLineStarts
    private let walk: ValeDocumentWalk
    private let shares: Int
    /// The next share to take, and how many are not yet done.
    private let taken = Atomic<Int>(0)
    private let pending: Atomic<Int>
    private let done = DispatchSemaphore(value: 0)
    private let results: Mutex<[[(finding: Finding, order: ValeAlert.Order)]]>

    /// How many shares for `threads` threads: one each. Smaller shares would even out the threads'
    /// ends, but each share replays the whole walk: on the chapter with the Microsoft pack and two
    /// cores, three or four shares cost more CPU than two and ended no sooner (bench/RESULTS.md).
    public static func shares(threads: Int) -> Int { max(1, threads) }

    /// Starts `helpers` threads on the shares (0: everything is linted by `findings()`'s caller).
    /// - Parameter engine: the styles, waited for on each thread that lints (they may still be loading).
    public init(engine: @escaping @Sendable () -> ValeEngine, bytes: [UInt8], walk: ValeDocumentWalk, helpers: Int, shares: Int) {
        self.engine = engine
        self.lines = ValeLineStarts(bytes)
        self.walk = walk
        self.shares = max(1, shares)
        pending = Atomic(self.shares)
        results = Mutex(Array(repeating: [], count: self.shares))
        for _ in 0..<max(0, min(helpers, self.shares)) {
            _ = Background<Void> { [self] in help() }
        }
    }

    /// Lints shares until none is left to take.
    private func help() {
        while true {
            let share = taken.wrappingAdd(1, ordering: .relaxed).oldValue
            if share >= shares { return }
            let e = engine()
            let linter = ValeFileLinter(styles: e.styles, cfg: e.configuration, relativePath: walk.relativePath, ext: walk.ext,
                                        part: share, of: shares)
            let alerts = linter.hasWork ? linter.lint(walk.log) : []
            let found = zip(ValeEngine.findings(alerts, lines: lines), alerts).map { (finding: $0, order: $1.order) }
            results.withLock { $0[share] = found }
            if pending.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue == 0 { done.signal() }
        }
    }

    /// The findings in Vale's order (line, column, then the order the alerts were reported in); lints
    /// the shares no other thread has taken, then waits for those that are being linted.
    public func findings() -> [Finding] {
        help()
        done.wait()
        done.signal()
        return results.withLock { $0 }.joined()
            .sorted { a, b in (a.finding.line, a.finding.column, a.order) < (b.finding.line, b.finding.column, b.order) }
            .map(\.finding)
    }
}

extension ValeEngine {
    /// The Vale findings for a document of a project (the agent's sidecar and the LSP): the
    /// `.vale.ini` Vale would find from the project root; globs match the path relative to it.
    public static func findings(bytes: [UInt8], projectRoot: String, relativePath: String) -> [Finding] {
        guard let engine = discover(from: projectRoot) else { return [] }
        return engine.findings(bytes: bytes, relativePath: relativePath)
    }

    /// The digest of the project's Vale configuration (ini and rule files), "" when it has none:
    /// part of what a document's derived findings depend on.
    public static func digest(projectRoot: String) -> String {
        discover(from: projectRoot)?.digest ?? ""
    }
}

extension Finding {
    /// Built-in findings and Vale's, in document order (stable: ties keep `a` before `b`).
    public static func merged(_ a: [Finding], _ b: [Finding]) -> [Finding] {
        if b.isEmpty { return a }
        return (a + b).enumerated().sorted { x, y in
            (x.element.line, x.element.column, x.offset) < (y.element.line, y.element.column, y.offset)
        }.map(\.element)
    }
}
