import Foundation

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
        buffer = LSPTextBuffer(text)
        dirty = true
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
            // the path relative to the project.
            if let vale = project.vale, let path {
                findings = Finding.merged(findings, vale.findings(bytes: buffer.bytes,
                                                                  relativePath: path.relative(to: projectRoot)?.display ?? path.display))
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
