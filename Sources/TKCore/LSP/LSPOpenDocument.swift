import Foundation
import Synchronization

/// One document open in the editor: its unsaved buffer, its findings, the pending suggestions of
/// its sidecar re-anchored in the buffer, and the diagnostics last computed.
struct LSPOpenDocument: Sendable {
    let uri: String
    var version: Int
    var buffer: LSPTextBuffer
    var path: PathBytes?
    /// The project whose configuration applies (also for a file not saved yet).
    var project: PathBytes?
    /// Set once the file exists on disk: where its sidecar lives.
    var location: DocumentLocation?
    var linter = LSPLinter()
    var findings: [Finding] = []
    /// Pending suggestions of the sidecar, each with its current byte range in the buffer (nil: its
    /// passage is not in the buffer any more).
    var pending: [Suggestion] = []
    /// What `journey set` recorded in the sidecar (story type, advisors, draft stage).
    var sidecarOverrides: JourneyOverrides?
    var anchors: [String: Range<Int>] = [:]
    var knownSuggestionIDs: Set<String> = []
    var sidecarStamp: [Int64]?
    var diagnostics: [JSONValue] = []
    /// Each diagnostic of `diagnostics` as JSON bytes, for the push (`publishBody`).
    var diagnosticBytes: [[UInt8]] = []
    /// The diagnostics of the last lint by what they show: a keystroke changes few of them, and
    /// the others are not built and encoded again (on a whole novel, thousands).
    var diagnosticCache: [DiagnosticKey: (JSONValue, [UInt8])] = [:]
    /// The buffer version the last push described.
    var publishedVersion: Int?
    var resultID = 0
    var dirty = true
    var lintTask: Task<Void, Never>?
    /// Set when the buffer is over the size limit (the one diagnostic says so).
    var tooBig: Int?
    /// The project's configuration, read again on save, on a sidecar change and on new settings.
    var config: LoadedConfiguration?
    /// The team's Vale findings (issue 22). A Vale pass over a whole chapter costs many times a
    /// keystroke's lint, so after a document's first lint it runs off the keystroke's path
    /// (`LSPServer.scheduleVale`); meanwhile the last findings move with the edits, and those an
    /// edit touches are dropped until the next pass.
    var valeFindings: [Finding] = []
    /// What `valeFindings` were computed on (`ValeJob.key`); nil before the first pass.
    var valeKey: String?
    /// The pass that would bring `valeFindings` up to date, set by `relint` (nil: they are current,
    /// or the project has no Vale styles).
    var valeJob: ValeJob?
    var valeTask: Task<Void, Never>?
    /// The scheduled pass's ticket: superseded when a newer pass is scheduled, so a pass still
    /// waiting for the worker is not run.
    var valeTicket: ValeTicket?
    /// Counts the edits to the buffer (a client need not number its versions).
    var edits = 0

    init(uri: String, text: String, version: Int) {
        self.uri = uri
        self.version = version
        buffer = LSPTextBuffer(text)
    }

    var fileName: String { path?.lastComponent.display ?? "untitled.md" }

    // MARK: Edits

    mutating func apply(range: LSPRange, text: String, encoding: LSPPositionEncoding) {
        let r = buffer.byteRange(range, encoding: encoding)
        let new = Array(text.utf8)
        buffer.replace(r, with: new)
        let delta = new.count - r.count
        edits += 1
        // Vale's findings after the edit move with it; one that touches it is dropped.
        if !valeFindings.isEmpty {
            valeFindings = Self.shift(valeFindings, editing: r, delta: delta)
        }
        // Suggestions after the edit move with it; one the edit touches is re-anchored at lint time.
        for (id, a) in anchors {
            if a.lowerBound >= r.upperBound {
                anchors[id] = (a.lowerBound + delta)..<(a.upperBound + delta)
            } else if a.upperBound > r.lowerBound {
                anchors[id] = a   // overlapping: checked against original_text when linting
            }
        }
        dirty = true
    }

    mutating func replaceAll(_ text: String) {
        let old = buffer.bytes
        buffer = LSPTextBuffer(text)
        edits += 1
        // A client that sends the whole text each time: the edit is what lies between the common
        // start and the common end, and Vale's findings move with it as with a ranged change.
        if !valeFindings.isEmpty {
            let (edit, delta) = Self.changedRange(old, buffer.bytes)
            valeFindings = Self.shift(valeFindings, editing: edit, delta: delta)
        }
        dirty = true
    }

    /// The bytes of `old` that differ from `new` once their common start and end are set aside, and
    /// how many more bytes `new` has.
    static func changedRange(_ old: [UInt8], _ new: [UInt8]) -> (Range<Int>, Int) {
        let limit = min(old.count, new.count)
        var p = 0
        while p < limit && old[p] == new[p] { p += 1 }
        var s = 0
        while s < limit - p && old[old.count - 1 - s] == new[new.count - 1 - s] { s += 1 }
        return (p..<(old.count - s), new.count - old.count)
    }

    /// `findings` after replacing the bytes of `edit` with `delta` more: those wholly after it move,
    /// those wholly before it stay, and one that overlaps or touches it (an insertion where it starts
    /// or ends may have grown the word it flagged) is dropped.
    static func shift(_ findings: [Finding], editing edit: Range<Int>, delta: Int) -> [Finding] {
        findings.compactMap { f in
            if f.end < edit.lowerBound { return f }
            guard f.start > edit.upperBound else { return nil }
            var g = f
            g.start += delta
            g.end += delta
            return g
        }
    }

    /// Findings from two lists each in document order, merged by where they start (the first
    /// list's first on a tie), as `Finding.merged` orders a fresh derivation.
    static func mergedByStart(_ a: [Finding], _ b: [Finding]) -> [Finding] {
        if b.isEmpty { return a }
        var out: [Finding] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && a[i].start <= b[j].start) { out.append(a[i]); i += 1 } else { out.append(b[j]); j += 1 }
        }
        return out
    }

    // MARK: Sidecar

    /// Reads the sidecar's pending suggestions, positioned against the file on disk.
    mutating func loadSidecar(actions: LSPDocumentActions) {
        config = nil
        guard let loc = location else { pending = []; anchors = [:]; return }
        let st = FileSystem.lstatIfExists(actions.sidecarPath(loc))
        sidecarStamp = st.map { [$0.mtimeNs, $0.size] }
        guard let sidecar = actions.sidecar(loc) else { pending = []; anchors = [:]; dirty = true; return }
        pending = sidecar.suggestions.filter { $0.status == .pending }
        sidecarOverrides = sidecar.journey.overrides
        knownSuggestionIDs = Set(sidecar.suggestions.map(\.id))
        var next: [String: Range<Int>] = [:]
        for s in pending {
            if let start = s.start, let end = s.end, start <= end { next[s.id] = start..<end }
        }
        anchors = next
        dirty = true
    }

    /// The range of the suggestion's `original_text` in the buffer: at its tracked range if the
    /// text is still there, else its nearest exact occurrence; nil when it is gone.
    mutating func anchor(_ s: Suggestion) -> Range<Int>? {
        let needle = Array(s.originalText.utf8)
        guard !needle.isEmpty else { return nil }
        let bytes = buffer.bytes
        let hint = anchors[s.id]
        if let h = hint, h.lowerBound >= 0, h.upperBound <= bytes.count, h.count == needle.count,
           bytes[h].elementsEqual(needle) {
            return h
        }
        let target = hint?.lowerBound ?? 0
        var best: Int?
        bytes.withUnsafeBufferPointer { p in
            let n = p.count, m = needle.count
            guard m <= n else { return }
            let first = needle[0]
            var i = 0
            while i <= n - m {
                if p[i] == first {
                    var k = 1
                    while k < m, p[i + k] == needle[k] { k += 1 }
                    if k == m {
                        if best == nil || abs(i - target) < abs(best! - target) { best = i }
                        if i > target { break }
                    }
                }
                i += 1
            }
        }
        guard let b = best else { anchors[s.id] = nil; return nil }
        let r = b..<(b + needle.count)
        anchors[s.id] = r
        return r
    }

    // MARK: Linting

    /// Lints the buffer and rebuilds the diagnostics. Returns whether they changed.
    mutating func relint(actions: LSPDocumentActions, settings: LSPSettings, encoding: LSPPositionEncoding) -> Bool {
        dirty = false
        let projectRoot = project ?? DocumentResolver.projectRoot(forFile: FileSystem.absolute(FileManager.default.currentDirectoryPath).appending("-"))
        let loaded = config ?? actions.configuration(project: projectRoot)
        config = loaded
        let limit = settings.maxFileBytes ?? max(1, loaded.config.watch.maxFileBytes)
        var out: [JSONValue] = []
        var outBytes: [[UInt8]] = []
        // The diagnostics' JSON by what they show, kept across versions and added to; pruned when
        // stale entries outnumber the live ones.
        var cache = diagnosticCache
        diagnosticCache = [:]
        if buffer.bytes.count > limit {
            tooBig = buffer.bytes.count
            findings = []
            out.append([
                "range": LSPRange(start: LSPPosition(line: 0, character: 0), end: LSPPosition(line: 0, character: 0)).json,
                "severity": 3, "source": "tk-agent", "code": "too_large",
                "message": .string("This document is \(buffer.bytes.count) bytes, over the limit of \(limit) (watch.max_file_bytes, or the tk-agent.maxFileBytes setting): tk-agent does not check it."),
            ])
        } else {
            tooBig = nil
            // The one settings resolution (front matter › journey set › config › story type), as `check`
            // and the agent use, so the editor shows what the sidecar says.
            // The project's words too: the inputs `DocumentResolver` gives the agent and `check`.
            let project = actions.projectInputs(projectRoot, loaded: loaded)
            let resolved = DocumentSettings.resolve(
                flags: .init(), frontMatter: Self.frontMatterTK(buffer.bytes), overrides: sidecarOverrides,
                config: loaded.config, configured: loaded.configured, catalog: project.catalog)
            let options = settings.options(resolved.heuristics)
            findings = linter.findings(buffer.bytes, options: options, fileName: fileName, project: project.words)
            // The team's Vale styles (issue 22), as `DocumentResolver.derive` adds them: globs see
            // the path relative to the project. The first pass runs here; later ones off the
            // keystroke's path (`valeJob`), the last findings moved with the edits meanwhile.
            valeJob = nil
            if let vale = project.vale, let path {
                let job = ValeJob(engine: vale, bytes: buffer.bytes, edits: edits,
                                  relativePath: path.relative(to: projectRoot)?.display ?? path.display)
                if valeKey == nil {
                    valeFindings = job.run()
                    valeKey = job.key
                } else if valeKey != job.key {
                    valeJob = job
                }
                findings = Self.mergedByStart(findings, valeFindings.sorted { $0.start < $1.start })
            } else {
                valeFindings = []
                valeKey = nil
            }
            out.reserveCapacity(findings.count + pending.count)
            outBytes.reserveCapacity(findings.count + pending.count)
            var cursor = LSPTextBuffer.RangeCursor(buffer, encoding: encoding)
            for f in findings {
                guard let sev = settings.severity(rule: f.rule, category: f.category.rawValue, default: f.severity) else { continue }
                let range = cursor.range(f.start..<f.end)
                let key = DiagnosticKey(range: range, severity: sev, rule: f.rule, category: f.category.rawValue,
                                        message: f.message, replacements: f.replacements)
                if let hit = cache[key] {
                    out.append(hit.0)
                    outBytes.append(hit.1)
                    continue
                }
                var data: [String: JSONValue] = ["kind": "finding", "rule": .string(f.rule), "category": .string(f.category.rawValue)]
                if !f.replacements.isEmpty { data["replacements"] = .array(f.replacements.map { .string($0) }) }
                let d: JSONValue = [
                    "range": range.json,
                    "severity": .int(sev), "source": "tk-agent", "code": .string(f.rule),
                    "message": .string(f.message), "data": .object(data),
                ]
                let bytes = d.wireBytes
                out.append(d)
                outBytes.append(bytes)
                cache[key] = (d, bytes)
            }
        }
        if settings.showSuggestions {
            for s in pending {
                guard let r = anchor(s) else { continue }
                let advisor = actions.advisorName(s.advisorId)
                let rewrite = s.suggestedText.isEmpty ? "remove “\(Self.short(s.originalText))”" : "“\(Self.short(s.suggestedText))”"
                let d: JSONValue = [
                    "range": buffer.range(r, encoding: encoding).json,
                    "severity": 3, "source": "tk-agent", "code": "suggestion",
                    "message": .string("The \(advisor) suggests (\(s.type.rawValue), priority \(s.priority)): \(rewrite)"),
                    "data": ["kind": "suggestion", "id": .string(s.id)],
                ]
                out.append(d)
                outBytes.append(d.wireBytes)
            }
        }
        if tooBig != nil { outBytes = out.map(\.wireBytes) }
        if cache.count > 2 * out.count + 64 {
            var live = Set<[UInt8]>()
            live.reserveCapacity(outBytes.count)
            for b in outBytes { live.insert(b) }
            cache = cache.filter { live.contains($0.value.1) }
        }
        diagnosticCache = cache
        // The bytes say all the JSON values say (one comparison of flat arrays, not of trees).
        guard outBytes != diagnosticBytes else { return false }
        diagnostics = out
        diagnosticBytes = outBytes
        resultID += 1
        return true
    }

    /// The `params` of a `publishDiagnostics` for this document, encoded (keys sorted, as
    /// `JSONValue.wireBytes` writes them) from the cached bytes of each diagnostic.
    func publishParamsBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(diagnosticBytes.reduce(64 + uri.utf8.count) { $0 + $1.count + 1 })
        out += Array(#"{"diagnostics":["#.utf8)
        for (i, d) in diagnosticBytes.enumerated() {
            if i > 0 { out.append(44) }
            out += d
        }
        out += Array(#"],"uri":"#.utf8)
        out += JSONValue.string(uri).wireBytes
        out += Array(#","version":"#.utf8)
        out += JSONValue.int(version).wireBytes
        out.append(125)
        return out
    }

    static func short(_ s: String, max: Int = 120) -> String {
        let t = s.split(whereSeparator: \.isNewline).joined(separator: " ")
        return t.count > max ? String(t.prefix(max - 1)) + "…" : t
    }

    /// The `tk:` block of the buffer's front matter (parsing only the front matter, not the document).
    static func frontMatterTK(_ bytes: [UInt8]) -> TKBlock { FrontMatter.parse(bytes).0.tk }
}

/// What a diagnostic of a finding shows: equal keys give the same JSON.
struct DiagnosticKey: Hashable, Sendable {
    var range: LSPRange
    var severity: Int
    var rule: String
    var category: String
    var message: String
    var replacements: [String]

    /// Hashes the place and the sizes only: hashing thousands of messages (Unicode-normalised) per
    /// keystroke cost more than the rest of a diagnostic; equality still compares every field.
    func hash(into h: inout Hasher) {
        h.combine(range.start.line)
        h.combine(range.start.character)
        h.combine(range.end.line)
        h.combine(range.end.character)
        h.combine(severity)
        h.combine(rule.utf8.count)
        h.combine(message.utf8.count)
        h.combine(replacements.count)
    }
}

/// One Vale pass over a buffer version: what `LSPServer.scheduleVale` runs off the actor.
struct ValeJob: Sendable {
    let engine: ValeEngine
    let bytes: [UInt8]
    /// Set when the pass is scheduled; a superseded pass is skipped by the worker.
    var ticket: ValeTicket?
    /// `LSPOpenDocument.edits` when the bytes were taken.
    let edits: Int
    let relativePath: String

    /// The buffer's edit count, the styles and the path: findings are current while all three are.
    var key: String { "\(edits)\u{0}\(engine.digest)\u{0}\(relativePath)" }

    func run() -> [Finding] { engine.findings(bytes: bytes, relativePath: relativePath) }
}

/// Whether a scheduled Vale pass is still wanted.
final class ValeTicket: Sendable {
    private let superseded = Atomic<Bool>(false)
    func supersede() { superseded.store(true, ordering: .relaxed) }
    var isSuperseded: Bool { superseded.load(ordering: .relaxed) }
}

/// Runs the language server's Vale passes one at a time, on a serial queue of their own. A pass
/// over a whole novel takes seconds and cannot be interrupted; run as tasks of the cooperative pool
/// (one thread per core), an abandoned pass and its successor took both threads of a 2-core laptop
/// and keystrokes waited seconds for the server's actor to get a thread.
final class ValeWorker: Sendable {
    static let shared = ValeWorker()
    private let queue = DispatchQueue(label: "tk-agent.lsp.vale", qos: .utility)

    /// The job's findings; nil when its ticket was superseded before its turn came.
    func run(_ job: ValeJob) async -> [Finding]? {
        await withCheckedContinuation { (c: CheckedContinuation<[Finding]?, Never>) in
            queue.async {
                c.resume(returning: job.ticket?.isSuperseded == true ? nil : job.run())
            }
        }
    }
}
