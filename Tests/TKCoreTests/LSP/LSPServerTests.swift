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
