import Foundation
import Synchronization
import Testing
@testable import TKCore

/// Collects what the server sends.
final class Sent: Sendable {
    let messages = Mutex<[JSONValue]>([])
    var all: [JSONValue] { messages.withLock { $0 } }
    func notifications(_ method: String) -> [JSONValue] { all.filter { $0["method"]?.stringValue == method } }
}

private func makeServer(_ root: URL, sent: Sent) -> LSPServer {
    let env = ["TK_CONFIG": root.appendingPathComponent("user.json").path, "TK_DATA_DIR": root.appendingPathComponent("data").path,
               "XDG_CONFIG_HOME": root.appendingPathComponent("xdg").path, "HOME": root.path]
    let paths = Paths.resolve(environment: env)
    let output = LSPOutput { bytes in
        var f = LSPFramer()
        f.append(bytes)
        if case .message(let body)? = f.next(), let v = try? JSONValue.parse(body) { sent.messages.withLock { $0.append(v) } }
    }
    return LSPServer(output: output, actions: LSPDocumentActions(paths: paths, environment: env),
                     pollInterval: .seconds(3600), onExit: { _ in })
}

private func tempDir() -> URL {
    let u = FileManager.default.temporaryDirectory.appendingPathComponent("tk-lsp-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: u.appendingPathComponent(".tk"), withIntermediateDirectories: true)
    return u
}

private func request(_ s: LSPServer, _ sent: Sent, id: Int, _ method: String, _ params: JSONValue) async -> JSONValue? {
    await s.handle(.request(id: .int(id), method: method, params: params))
    return sent.all.last(where: { $0["id"] == .int(id) })
}

@Suite struct LSPServerTests {
    let text = "# Café ☕\n\nThe cake was eaten by the dog. 😀 It was very good.\n"

    @Test func diagnosticsUseUTF16ByDefaultAndBytesWhenOffered() async throws {
        for (enc, expected) in [("utf-16", 9), ("utf-8", 9)] {   // "The cake was eaten": ASCII before it
            let root = tempDir()
            let sent = Sent()
            let s = makeServer(root, sent: sent)
            let caps: JSONValue = enc == "utf-8" ? ["general": ["positionEncodings": ["utf-8", "utf-16"]]] : [:]
            let r = await request(s, sent, id: 1, "initialize", ["capabilities": caps])
            #expect(r?["result"]?["capabilities"]?["positionEncoding"]?.stringValue == enc)
            let uri = "file://" + root.appendingPathComponent("a.md").path
            await s.handle(.notification(method: "textDocument/didOpen", params: [
                "textDocument": ["uri": .string(uri), "languageId": "markdown", "version": 1, "text": .string(text)]]))
            let pub = try #require(sent.notifications("textDocument/publishDiagnostics").last)
            let diags = pub["params"]?["diagnostics"]?.arrayValue ?? []
            let passive = try #require(diags.first { $0["code"]?.stringValue == "passive" })
            #expect(passive["source"]?.stringValue == "tk-agent")
            #expect(passive["range"]?["start"]?["line"]?.intValue == 2)
            #expect(passive["range"]?["start"]?["character"]?.intValue == expected)
            // "very" after the emoji: 2 UTF-16 units or 4 bytes for 😀.
            let weasel = try #require(diags.first { $0["code"]?.stringValue == "weasel" || $0["code"]?.stringValue == "adverb" })
            let line = "The cake was eaten by the dog. 😀 It was "
            let want = enc == "utf-8" ? line.utf8.count : line.utf16.count
            #expect(weasel["range"]?["start"]?["character"]?.intValue == want)
            #expect([2, 3, 4].contains(weasel["severity"]?.intValue ?? 0))
            try? FileManager.default.removeItem(at: root)
        }
    }

    @Test func incrementalChangeRelintsAndPullReportsUnchanged() async throws {
        let root = tempDir()
        let sent = Sent()
        let s = makeServer(root, sent: sent)
        _ = await request(s, sent, id: 1, "initialize", ["capabilities": ["textDocument": ["diagnostic": [:]]],
                                                         "initializationOptions": ["tk-agent": ["debounceMs": 0]]])
        let uri = "file://" + root.appendingPathComponent("b.md").path
        await s.handle(.notification(method: "textDocument/didOpen", params: [
            "textDocument": ["uri": .string(uri), "languageId": "markdown", "version": 1, "text": "Plain words here.\n"]]))
        #expect(sent.notifications("textDocument/publishDiagnostics").isEmpty)   // a pull client is not pushed to
        let first = await request(s, sent, id: 2, "textDocument/diagnostic", ["textDocument": ["uri": .string(uri)]])
        #expect(first?["result"]?["kind"]?.stringValue == "full")
        #expect(first?["result"]?["items"]?.arrayValue?.isEmpty == true)
        let rid = try #require(first?["result"]?["resultId"])
        let same = await request(s, sent, id: 3, "textDocument/diagnostic", ["textDocument": ["uri": .string(uri)], "previousResultId": rid])
        #expect(same?["result"]?["kind"]?.stringValue == "unchanged")
        await s.handle(.notification(method: "textDocument/didChange", params: [
            "textDocument": ["uri": .string(uri), "version": 2],
            "contentChanges": [["range": LSPRange(start: LSPPosition(line: 0, character: 0), end: LSPPosition(line: 0, character: 0)).json,
                                "text": "The ball was thrown by Ana. "]]]))
        let after = await request(s, sent, id: 4, "textDocument/diagnostic", ["textDocument": ["uri": .string(uri)], "previousResultId": rid])
        #expect(after?["result"]?["kind"]?.stringValue == "full")
        #expect(after?["result"]?["items"]?.arrayValue?.contains { $0["code"]?.stringValue == "passive" } == true)
        try? FileManager.default.removeItem(at: root)
    }

    @Test func settingsSwitchRulesOffAndChangeSeverity() async throws {
        let root = tempDir()
        let sent = Sent()
        let s = makeServer(root, sent: sent)
        _ = await request(s, sent, id: 1, "initialize", ["capabilities": [:], "initializationOptions": ["tk-agent": ["severity": ["passive": "warning"]]]])
        let uri = "file://" + root.appendingPathComponent("c.md").path
        await s.handle(.notification(method: "textDocument/didOpen", params: [
            "textDocument": ["uri": .string(uri), "languageId": "markdown", "version": 1, "text": .string(text)]]))
        var diags = sent.notifications("textDocument/publishDiagnostics").last?["params"]?["diagnostics"]?.arrayValue ?? []
        #expect(diags.first { $0["code"]?.stringValue == "passive" }?["severity"]?.intValue == 2)
        await s.handle(.notification(method: "workspace/didChangeConfiguration", params: ["settings": ["tk-agent": ["rules": ["passive": false]]]]))
        diags = sent.notifications("textDocument/publishDiagnostics").last?["params"]?["diagnostics"]?.arrayValue ?? []
        #expect(!diags.contains { $0["code"]?.stringValue == "passive" })
        try? FileManager.default.removeItem(at: root)
    }

    @Test func codeActionsAndHover() async throws {
        let root = tempDir()
        let sent = Sent()
        let s = makeServer(root, sent: sent)
        _ = await request(s, sent, id: 1, "initialize", ["capabilities": [:]])
        let uri = "file://" + root.appendingPathComponent("d.md").path
        let body = "---\ntitle: x\n---\nIn order to win, we ran.\n"
        await s.handle(.notification(method: "textDocument/didOpen", params: [
            "textDocument": ["uri": .string(uri), "languageId": "markdown", "version": 1, "text": .string(body)]]))
        let diags = sent.notifications("textDocument/publishDiagnostics").last?["params"]?["diagnostics"]?.arrayValue ?? []
        let wordy = try #require(diags.first { $0["data"]?["replacements"] != nil })
        let r = await request(s, sent, id: 2, "textDocument/codeAction", ["textDocument": ["uri": .string(uri)], "range": wordy["range"]!,
                                                                          "context": ["diagnostics": [wordy]]])
        let actions = r?["result"]?.arrayValue ?? []
        #expect(actions.contains { $0["title"]?.stringValue?.hasPrefix("Replace with") == true })
        let here = try #require(actions.first { $0["title"]?.stringValue?.hasSuffix(" here") == true })
        let hereEdit = here["edit"]?["changes"]?[uri]?.arrayValue?.first
        #expect(hereEdit?["range"]?["start"]?["line"]?.intValue == 3)   // its own line after the front matter
        #expect(hereEdit?["newText"]?.stringValue?.hasPrefix("<!-- tk-ignore-next-line ") == true)
        let ignore = try #require(actions.first { $0["title"]?.stringValue?.hasSuffix(" in this file") == true })
        let edit = ignore["edit"]?["changes"]?[uri]?.arrayValue?.first
        #expect(edit?["range"]?["start"]?["line"]?.intValue == 3)   // after the front matter
        #expect(edit?["newText"]?.stringValue?.hasPrefix("<!-- tk-ignore-file ") == true)
        let h = await request(s, sent, id: 3, "textDocument/hover", ["textDocument": ["uri": .string(uri)], "position": wordy["range"]!["start"]!])
        #expect(h?["result"]?["contents"]?["value"]?.stringValue?.contains("tk-agent") == true)
        // Unknown methods and commands: clear errors.
        let unknown = await request(s, sent, id: 4, "textDocument/formatting", [:])
        #expect(unknown?["error"]?["code"]?.intValue == JSONRPCError.methodNotFound)
        let cmd = await request(s, sent, id: 5, "workspace/executeCommand", ["command": "tk.nothing", "arguments": []])
        #expect(cmd?["error"]?["code"]?.intValue == JSONRPCError.invalidParams)
        try? FileManager.default.removeItem(at: root)
    }

    @Test func arrivalMessageNamesTheAdvisors() {
        let m = LSPServer.arrivalMessage(["editor", "copywriter", "editor"], name: { $0 })
        #expect(m == "3 suggestions from the editor and the copywriter")
        #expect(LSPServer.arrivalMessage(["editor"], name: { $0 }) == "1 suggestion from the editor")
    }

    @Test func dictionaryCommandAppendsOnce() throws {
        let root = tempDir()
        let a = LSPDocumentActions(paths: Paths.resolve(environment: ["HOME": root.path]), environment: ["HOME": root.path])
        let p = PathBytes(root.path)
        try a.addToDictionary(project: p, word: "Elizabet")
        try a.addToDictionary(project: p, word: "Elizabet")
        try a.addToDictionary(project: p, word: "Darcy")
        let s = try String(contentsOf: root.appendingPathComponent(".tk/dictionary.txt"), encoding: .utf8)
        #expect(s == "Elizabet\nDarcy\n")
        try? FileManager.default.removeItem(at: root)
    }
}

@Suite struct LSPLinterTests {
    /// Everything a finding shows, so "equal" means the editor shows the same (the memo leaves `id`
    /// empty: the language server shows none).
    static func shown(_ fs: [Finding]) -> [String] {
        fs.map { "\($0.rule) \($0.start)-\($0.end) \($0.line):\($0.column) \($0.severity) \($0.message) \($0.replacements)" }
    }

    static func whole(_ bytes: [UInt8], _ options: HeuristicsOptions = HeuristicsOptions()) -> [Finding] {
        HeuristicsEngine(options: options).findings(in: MarkdownDocument(bytes: bytes, fileName: "x.md"))
    }

    @Test func memoizedLintMatchesWholeLintAndRechecksOneParagraph() throws {
        var para: [String] = []
        for i in 0..<2600 {
            para.append("Paragraph \(i): the report was written by the team. It was very clear, and there are many reasons. 😀 Café naïve.")
        }
        para.insert("```\ncode was written by me\n\nstill code\n```", at: 10)
        let text = "---\ntitle: T\n---\n" + para.joined(separator: "\n\n") + "\n"
        let bytes = Array(text.utf8)
        var linter = LSPLinter()
        let first = linter.findings(bytes, options: HeuristicsOptions(), fileName: "x.md")
        #expect(Self.shown(first) == Self.shown(Self.whole(bytes)))
        #expect(linter.lastLinted == linter.lastChunks)
        // An edit in one paragraph re-checks that paragraph only, and the result is still exact.
        var edited = bytes
        let at = text.utf8.count / 2
        edited.insert(contentsOf: Array(" Honestly, it was eaten.".utf8), at: at)
        let second = linter.findings(edited, options: HeuristicsOptions(), fileName: "x.md")
        #expect(linter.lastLinted <= 2)
        #expect(Self.shown(second) == Self.shown(Self.whole(edited)))
        // Other options start afresh.
        var options = HeuristicsOptions()
        options.disabled = ["passive"]
        let third = linter.findings(edited, options: options, fileName: "x.md")
        #expect(linter.lastLinted == linter.lastChunks)
        #expect(Self.shown(third) == Self.shown(Self.whole(edited, options)))
    }

    /// The document-level passes see the whole buffer on every keystroke: a third use of a made-up
    /// name in another paragraph makes it a name (no spelling finding anywhere, and the cap of three
    /// holds the next unknown words), and removing that use brings the findings back.
    @Test func documentLevelPassesStayExactAcrossParagraphs() throws {
        var options = HeuristicsOptions()
        options.maxSpellingFindings = 3
        let filler = (0..<40).map { "Plain words in plain line number \($0) here." }
        var parts = filler
        parts[3] = "Zorbath walked in."
        parts[20] = "Then Zorbath left."
        parts[30] = "Wrods and mroe wrods."
        var linter = LSPLinter()
        func check(_ parts: [String]) -> [Finding] {
            let bytes = Array((parts.joined(separator: "\n\n") + "\n").utf8)
            let memoized = linter.findings(bytes, options: options, fileName: "x.md")
            #expect(Self.shown(memoized) == Self.shown(Self.whole(bytes, options)))
            return memoized
        }
        let before = check(parts)
        #expect(linter.lastChunks == 40)
        #expect(before.contains { $0.rule == "spelling" && $0.text == "Zorbath" })
        parts[35] = "Zorbath again."
        let after = check(parts)
        #expect(linter.lastLinted == 1)
        #expect(!after.contains { $0.rule == "spelling" && $0.text == "Zorbath" })
        parts[35] = filler[35]
        let back = check(parts)
        #expect(back.contains { $0.rule == "spelling" && $0.text == "Zorbath" })
    }

    @Test func ignoreRegionsSpanningParagraphsApply() {
        let filler = String(repeating: "Plain words in a plain line here.\n\n", count: 1200)
        let text = "<!-- tk-ignore -->\n\nThe cake was eaten.\n\n<!-- tk-end-ignore -->\n\n" + filler + "The pie was eaten.\n"
        var linter = LSPLinter()
        let f = linter.findings(Array(text.utf8), options: HeuristicsOptions(), fileName: "x.md")
        #expect(f.filter { $0.rule == "passive" }.count == 1)
    }
}

@Suite struct CheckFormatsTests {
    @Test func rdjsonlCountsBytesAndSarifCountsScalars() throws {
        let text = "Café 😀: the cake was eaten.\n"
        let bytes = Array(text.utf8)
        let findings = HeuristicsEngine().findings(in: MarkdownDocument(bytes: bytes, fileName: "x.md"))
        let passive = try #require(findings.first { $0.rule == "passive" })
        let src = [CheckFormats.Source(path: "notes/x y.md", bytes: bytes, findings: [passive])]
        let line = try JSONValue.parse(Array(CheckFormats.rdjsonl(src).utf8))
        #expect(line["location"]?["range"]?["start"]?["column"]?.intValue == "Café 😀: the cake ".utf8.count + 1)
        #expect(line["code"]?["value"]?.stringValue == "passive")
        let sarif = CheckFormats.sarif(src, version: "1")
        let result = sarif["runs"]?.arrayValue?.first?["results"]?.arrayValue?.first
        #expect(result?["locations"]?.arrayValue?.first?["physicalLocation"]?["region"]?["startColumn"]?.intValue
                == "Café 😀: the cake ".unicodeScalars.count + 1)
        #expect(result?["locations"]?.arrayValue?.first?["physicalLocation"]?["artifactLocation"]?["uri"]?.stringValue == "notes/x%20y.md")
    }
}

/// Opens and closes for a Vale pass the test holds: `wait()` blocks until `open()`.
final class ValeGate: Sendable {
    let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>], runs: Int)>((false, [], 0))
    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let go = state.withLock { s -> Bool in
                s.runs += 1
                if s.open { return true }
                s.waiters.append(c)
                return false
            }
            if go { c.resume() }
        }
    }
    func open() {
        let ws = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.open = true
            defer { s.waiters = [] }
            return s.waiters
        }
        for w in ws { w.resume() }
    }
    var runs: Int { state.withLock { $0.runs } }
}

/// The team's Vale styles in the editor (issue 22): a Vale pass over a chapter costs many times a
/// keystroke's lint, so keystrokes are published without waiting for it; the last Vale findings move
/// with the edits meanwhile, and the pass's findings follow once the buffer rests.
@Suite struct LSPValeTests {
    /// A `.vale.ini` at `root` basing Markdown on the style `House`, with one rule.
    static func house(_ root: URL, rule name: String, _ yaml: String) throws {
        let styles = root.appendingPathComponent("styles/House")
        try FileManager.default.createDirectory(at: styles, withIntermediateDirectories: true)
        try "StylesPath = styles\nMinAlertLevel = suggestion\n\n[*.md]\nBasedOnStyles = House\n"
            .write(to: root.appendingPathComponent(".vale.ini"), atomically: true, encoding: .utf8)
        try yaml.write(to: styles.appendingPathComponent(name), atomically: true, encoding: .utf8)
    }

    @Test func keystrokesArePublishedWhileAValePassIsHeld() async throws {
        let root = tempDir()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.house(root, rule: "Terms.yml",
                       "extends: substitution\nmessage: \"Use '%s' instead of '%s'.\"\nlevel: error\nignorecase: true\nswap:\n  utilise: use\n")
        let env = ["TK_CONFIG": root.appendingPathComponent("user.json").path, "TK_DATA_DIR": root.appendingPathComponent("data").path,
                   "XDG_CONFIG_HOME": root.appendingPathComponent("xdg").path, "HOME": root.path]
        let sent = Sent()
        let output = LSPOutput { bytes in
            var f = LSPFramer()
            f.append(bytes)
            if case .message(let body)? = f.next(), let v = try? JSONValue.parse(body) { sent.messages.withLock { $0.append(v) } }
        }
        let gate = ValeGate()
        let s = LSPServer(output: output, actions: LSPDocumentActions(paths: Paths.resolve(environment: env), environment: env),
                          pollInterval: .seconds(3600), valeDelay: .zero,
                          valeRunner: { job in await gate.wait(); return job.run() }, onExit: { _ in })
        _ = await request(s, sent, id: 1, "initialize", ["capabilities": [:], "initializationOptions": ["tk-agent": ["debounceMs": 0]]])
        let uri = "file://" + root.appendingPathComponent("doc.md").path
        let terms: @Sendable () -> [JSONValue] = {
            let last = sent.notifications("textDocument/publishDiagnostics").last
            return (last?["params"]?["diagnostics"]?.arrayValue ?? []).filter { $0["code"]?.stringValue == "House.Terms" }
        }
        func start(_ d: JSONValue) -> [Int] {
            [d["range"]?["start"]?["line"]?.intValue ?? -1, d["range"]?["start"]?["character"]?.intValue ?? -1]
        }
        await s.handle(.notification(method: "textDocument/didOpen", params: [
            "textDocument": ["uri": .string(uri), "languageId": "markdown", "version": 1, "text": "We utilise words.\n"]]))
        // The first lint runs Vale itself: the first publish is whole.
        #expect(terms().map(start) == [[0, 3]])
        #expect(gate.runs == 0)
        // A keystroke before the finding (a new word that Vale flags too): published at once, the
        // held pass not run, the old finding moved with the edit.
        let published = sent.notifications("textDocument/publishDiagnostics").count
        await s.handle(.notification(method: "textDocument/didChange", params: [
            "textDocument": ["uri": .string(uri), "version": 2],
            "contentChanges": [["range": ["start": ["line": 0, "character": 0], "end": ["line": 0, "character": 0]],
                                "text": "Utilise it. "]]]))
        try await waitFor { sent.notifications("textDocument/publishDiagnostics").count > published }
        #expect(sent.notifications("textDocument/publishDiagnostics").last?["params"]?["version"]?.intValue == 2)
        #expect(terms().map(start) == [[0, 15]])
        try await waitFor { gate.runs == 1 }
        // An edit inside the finding drops it until the pass.
        await s.handle(.notification(method: "textDocument/didChange", params: [
            "textDocument": ["uri": .string(uri), "version": 3],
            "contentChanges": [["range": ["start": ["line": 0, "character": 16], "end": ["line": 0, "character": 17]],
                                "text": "T"]]]))
        try await waitFor { sent.notifications("textDocument/publishDiagnostics").last?["params"]?["version"]?.intValue == 3 }
        #expect(terms().isEmpty)
        // Let the passes run: the last one's findings follow, for the buffer as it is.
        gate.open()
        try await waitFor { terms().count == 2 }
        #expect(terms().map(start) == [[0, 0], [0, 15]])
    }

    /// The worker skips a pass superseded before its turn, and runs one still wanted.
    @Test func aSupersededPassIsNotRun() async throws {
        let root = tempDir()
        defer { try? FileManager.default.removeItem(at: root) }
        try Self.house(root, rule: "Words.yml", "extends: existence\nmessage: \"No '%s'.\"\ntokens:\n  - utilise\n")
        let engine = try #require(ValeEngine.discover(from: root.path))
        var job = ValeJob(engine: engine, bytes: Array("We utilise words.\n".utf8), edits: 1, relativePath: "doc.md")
        job.ticket = ValeTicket()
        #expect(await ValeWorker.shared.run(job)?.map(\.rule) == ["House.Words"])
        job.ticket?.supersede()
        #expect(await ValeWorker.shared.run(job) == nil)
    }

    @Test func findingsMoveWithEditsAndThoseAnEditTouchesGo() {
        func f(_ a: Int, _ b: Int) -> Finding {
            Finding(id: "\(a)", rule: "S.R", category: .vale, severity: .warning, message: "", text: "", start: a, end: b, line: 1, column: 1)
        }
        let fs = [f(0, 4), f(10, 14), f(20, 24)]
        // An insertion of 3 bytes at 9 (before the second): it moves; at 10 or 14 (where it starts or
        // ends, the word it flagged may have grown): it goes.
        #expect(LSPOpenDocument.shift(fs, editing: 9..<9, delta: 3).map(\.start) == [0, 13, 23])
        #expect(LSPOpenDocument.shift(fs, editing: 10..<10, delta: 3).map(\.start) == [0, 23])
        #expect(LSPOpenDocument.shift(fs, editing: 14..<14, delta: 3).map(\.start) == [0, 23])
        #expect(LSPOpenDocument.shift(fs, editing: 5..<5, delta: 3).map(\.start) == [0, 13, 23])
        // A replacement inside the second, and one that spans from the first to the third.
        #expect(LSPOpenDocument.shift(fs, editing: 11..<12, delta: -1).map(\.start) == [0, 19])
        #expect(LSPOpenDocument.shift(fs, editing: 2..<21, delta: -19).isEmpty)
        // The whole text sent again: the change is what lies between the common start and end.
        let (r, d) = LSPOpenDocument.changedRange(Array("We utilise words.".utf8), Array("We do utilise words.".utf8))
        #expect(r == 3..<3 && d == 3)
        let (r2, d2) = LSPOpenDocument.changedRange(Array("aaa".utf8), Array("aa".utf8))
        #expect(r2 == 2..<3 && d2 == -1)
    }
}

private func waitFor(_ what: @Sendable () -> Bool) async throws {
    for _ in 0..<500 {
        if what() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("timed out")
}
