import Foundation
import Testing
@testable import TKCore
@testable import TKSearch

/// Malformed-input fuzz loops with a fixed seed: each feeds at least 10,000 generated inputs to one
/// parser and asserts only what must always hold (no crash, no hang, sane output). `TK_FUZZ_CASES`
/// raises the count for the full form (`bench/faults`).
@Suite(.serialized) struct FuzzTests {
    static let cases = max(10_000, Int(ProcessInfo.processInfo.environment["TK_FUZZ_CASES"] ?? "") ?? 0)
    /// The full form (`bench/faults`) also runs the largest inputs at full size.
    static let full = cases > 10_000

    /// Fails the test when one input takes longer than a hang would (debug builds are slow: generous).
    static func bounded<T>(_ what: @autoclosure () -> String, _ body: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        let v = try body()
        let took = ContinuousClock.now - start
        if took > .seconds(20) { Issue.record("\(what()) took \(took): a hang") }
        return v
    }

    // MARK: generators

    static let replyPieces: [String] = [
        "{", "}", "[", "]", ",", ":", "\"", "\\", "\"suggestions\"", "\"advisor_id\"", "\"editor\"", "\"type\"",
        "\"rephrase\"", "\"fix\"", "\"original_text\"", "\"The cat sat\"", "\"suggested_text\"", "\"reasoning\"",
        "\"priority\"", "\"confidence\"", "1", "-3", "0.8", "1e308", "null", "true", "false", "```json\n", "```",
        "\n", " ", "Here are my suggestions:", "\\u00e9", "\\ud800", "é", "🎉", "{\"suggestions\": [", "]}",
        "{\"suggestions\": {\"suggestions\": []}}", "[[[[[[", "]]]]]]", "\"\\n\"",
    ]

    static func reply(_ rng: inout SplitMix) -> String {
        var s = ""
        if rng.next() % 3 == 0 {
            // A well-formed reply, then damaged.
            s = #"{"suggestions": [{"advisor_id": "editor", "type": "rephrase", "original_text": "The cat sat", "#
                + #""suggested_text": "The cat lounged", "reasoning": "why", "priority": 2, "confidence": 0.8}]}"#
            if rng.next() % 2 == 0 { s = "```json\n" + s + "\n```" }
            let cut = Int(rng.next() % UInt64(s.utf8.count + 1))
            s = String(decoding: Array(s.utf8).prefix(cut), as: UTF8.self)
        }
        let n = Int(rng.next() % 16)
        for _ in 0..<n {
            let piece = replyPieces[Int(rng.next() % UInt64(replyPieces.count))]
            if rng.next() % 2 == 0 { s += piece } else { s = piece + s }
        }
        if full, rng.next() % 1_000 == 0 { s += String(repeating: "x", count: 200_000) }
        if full, rng.next() % 1_000 == 0 { s = String(repeating: "[", count: 50) + s + String(repeating: "]", count: 50) }
        return s
    }

    /// Hostile replies (thousands of brackets, nested or not, closed or not): the parser's work —
    /// bytes looked at by bracket matching and handed to the JSON parser — stays a small multiple of
    /// the reply's length (5,000 nested `[` took 26 s in a debug build before).
    @Test(arguments: ["nested arrays", "nested objects", "unclosed", "siblings", "commas", "keys"])
    func hostileRepliesAreParsedInLinearWork(_ shape: String) {
        func reply(_ n: Int) -> String {
            switch shape {
            case "nested arrays":
                String(repeating: "[", count: n) + #"{"suggestions": []}"# + String(repeating: "]", count: n)
            case "nested objects": String(repeating: #"{"a":"#, count: n / 5) + "1" + String(repeating: "}", count: n / 5)
            case "unclosed": String(repeating: "[{", count: n)
            case "siblings": String(repeating: "[]{}", count: n / 2) + " trailing prose"
            case "commas": "[" + String(repeating: "[1, ],", count: n / 3) + "]"
            default: String(repeating: #"{"suggestions": ["#, count: n / 8)
            }
        }
        var works: [Int] = []
        for n in [5_000, 20_000] {
            let text = reply(n)
            var scan = ReplyParser.Scan(Array(text.utf8))
            let start = ContinuousClock.now
            _ = ReplyParser.parseSuggestions(&scan, structured: nil, truncated: false, advisorIds: [])
            let took = ContinuousClock.now - start
            let bytes = text.utf8.count
            #expect(scan.work <= 24 * bytes + 65_536, "\(shape), \(bytes) bytes: work \(scan.work)")
            // The reported case (10 KB, 5,000 brackets): milliseconds in a release build; generous
            // here for a loaded machine and a debug build. The work bounds above are what cannot flake.
            if shape == "nested arrays" && n == 5_000 { #expect(took < .seconds(2), "\(bytes) bytes took \(took)") }
            works.append(scan.work)
        }
        // Four times the input, at most about four times the work (quadratic would be sixteen).
        #expect(works[1] <= 6 * max(works[0], 1), "\(shape): work \(works)")
    }

    /// The same scan finds each bracket's end once: 5,000 nested spans, asked from the outside in.
    @Test func bracketEndsAreRemembered() {
        let text = Array((String(repeating: "[", count: 5_000) + String(repeating: "]", count: 5_000)).utf8)
        var scan = ReplyParser.Scan(text)
        for i in 0..<5_000 { #expect(scan.matchingEnd(from: i) == 10_000 - i) }
        #expect(scan.work <= 2 * text.count)
        var open = ReplyParser.Scan(Array(String(repeating: "[", count: 5_000).utf8))
        for i in 0..<5_000 { #expect(open.matchingEnd(from: i) == nil) }
        #expect(open.work <= 2 * 5_000)
    }

    static func bytes(_ rng: inout SplitMix, max: Int) -> [UInt8] {
        (0..<Int(rng.next() % UInt64(max + 1))).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    // MARK: model replies

    @Test func modelReplies() {
        var rng = SplitMix(seed: 1)
        for _ in 0..<Self.cases {
            let text = Self.reply(&rng)
            let truncated = rng.next() % 4 == 0
            let parsed = Self.bounded("a reply of \(text.utf8.count) bytes") {
                ReplyParser.parseSuggestions(text: text, truncated: truncated, advisorIds: ["editor"])
            }
            for s in parsed.suggestions {
                #expect((1...5).contains(s.priority))
                #expect(s.confidence >= 0 && s.confidence <= 1)
            }
        }
        // Wrong types in the structured (tool call) form.
        let shapes: [JSONValue] = [.null, .number(1), .string("x"), .array([.null]), .object(["suggestions": .string("no")]),
                                   .object(["suggestions": .array([.number(3), .object(["priority": .string("high")])])])]
        for s in shapes { _ = ReplyParser.parseSuggestions(text: "", structured: s, truncated: false) }
    }

    /// Numbers out of `Int`'s range in what a provider sends (found by the 100,000-case run: a
    /// reply's priority of 1e300 trapped in the conversion): clamped, never a crash.
    @Test func hugeNumbersFromTheNetworkAreClamped() {
        #expect(ReplyParser.priority(.number(1e300)) == 5)
        #expect(ReplyParser.priority(.number(-1e300)) == 1)
        #expect(ReplyParser.priority(.string("9e99")) == 5)
        #expect(ErrorBody.from(.object(["error": .object(["code": .number(1e300)])])).code == String(1e300))
        let v = QuantizedVector([Float.infinity, 1, .nan, -Float.greatestFiniteMagnitude])
        #expect(v.values.count == 4 && v.values.allSatisfy { abs(Int($0)) <= 127 })
        _ = ReplyParser.parseSuggestions(text: #"[{"advisor_id":"editor","type":"fix","original_text":"a","suggested_text":"b","priority":1e300}]"#,
                                         structured: nil, truncated: false)
    }

    @Test func invalidUTF8Replies() {
        var rng = SplitMix(seed: 2)
        for _ in 0..<Self.cases {
            var b = Array(Self.reply(&rng).utf8)
            for _ in 0..<Int(rng.next() % 4) where !b.isEmpty {
                b[Int(rng.next() % UInt64(b.count))] = UInt8(truncatingIfNeeded: 0x80 | rng.next())
            }
            _ = ReplyParser.parseSuggestions(text: String(decoding: b, as: UTF8.self), truncated: false)
        }
    }

    // MARK: streams cut at every byte

    static let sse = Array("""
        event: message_start\r
        data: {"type":"message_start","message":{"usage":{"input_tokens":10}}}\r
        \r
        : a comment\n
        event: content_block_delta\n
        data: {"type":"content_block_delta","delta":{"type":"text_delta","text":"caf\u{00e9} 🎉"}}\n
        data: second line\n\n
        event: ping\rdata: {}\r\r
        event: message_stop
        data: {"type":"message_stop"}


        """.utf8)

    static let ndjson = Array("""
        {"message":{"content":"caf\u{00e9}"},"done":false}
        {"message":{"content":"🎉"},"done":false}
        not json
        {"done":true,"eval_count":3}

        """.utf8)

    @Test func streamsCutAtEveryByteAndSplitAnywhere() {
        var rng = SplitMix(seed: 3)
        var n = 0
        for stream in [Self.sse, Self.ndjson] {
            // The whole stream fed in random pieces must give the same lines as in one piece.
            var whole = LineSplitter()
            var expected = whole.push(stream)
            if let last = whole.finish() { expected.append(last) }
            while n < Self.cases / 2 {
                for cut in 0...stream.count {
                    let prefix = Array(stream.prefix(cut))
                    var splitter = LineSplitter()
                    var parser = SSEParser()
                    var lines: [[UInt8]] = []
                    var i = 0
                    while i < prefix.count {
                        let step = Int(rng.next() % 7) + 1
                        lines += splitter.push(prefix[i..<min(prefix.count, i + step)])
                        i += step
                    }
                    if let last = splitter.finish() { lines.append(last) }
                    for l in lines {
                        _ = parser.line(l)
                        _ = NDJSON.line(l)
                    }
                    _ = parser.finish()
                    if cut % 10 == 0 {
                        _ = SSEParser.parse(prefix)
                        _ = NDJSON.parse(prefix)
                    }
                    if cut == stream.count { #expect(lines == expected) }
                    n += 1
                }
            }
            n = 0
        }
        // Random bytes as a stream.
        for _ in 0..<Self.cases {
            let b = Self.bytes(&rng, max: 64)
            _ = SSEParser.parse(b)
            if b.count % 4 == 0 { _ = NDJSON.parse(b) }
        }
    }

    // MARK: front matter and markdown

    static let fmPieces = ["---\n", "---\r\n", "...\n", "title: ", "tags: [a, b", "]\n", "tk:\n", "  story_type: ",
                           "blog_personal\n", "  advisors: [editor, 3, {x: y}]\n", "  review: maybe\n", "  draft_stage: 7\n",
                           "- item\n", "key: &a [*a]\n", "? complex\n", ": value\n", "\"unterminated\n", "'\n", "\t\n",
                           "{{{{", "}}}}", "!!binary AAAA\n", "word_goal: -1e999\n", "order: x\n", "é🎉\n", "\u{0}\n"]

    static func frontMatter(_ rng: inout SplitMix) -> [UInt8] {
        var s = "---\n"
        for _ in 0..<Int(rng.next() % 12) { s += fmPieces[Int(rng.next() % UInt64(fmPieces.count))] }
        if rng.next() % 2 == 0 { s += "---\n" }
        s += "# Title\n\nBody text.\n"
        return Array(s.utf8)
    }

    @Test func frontMatterAndSmallMarkdown() {
        var rng = SplitMix(seed: 4)
        let md = ["# ", "## ", "> ", "- ", "1. ", "```\n", "~~~\n", "| a | b |\n", "|---|---|\n", "<!-- tk-ignore -->\n",
                  "<!-- tk-end-ignore -->\n", "<div>\n", "**", "_", "`", "[link](", ")", "![img](x)", "\n", "\n\n", "    code\n",
                  "word ", "The very big dog runs quickly. ", "é", "\u{301}", "\r\n", "[^1]: note\n", "- [ ] task\n", "***\n"]
        for i in 0..<Self.cases {
            let bytes: [UInt8]
            if i % 2 == 0 {
                bytes = Self.frontMatter(&rng)
                _ = FrontMatter.parse(bytes)
            } else {
                var s = ""
                for _ in 0..<Int(rng.next() % 30) { s += md[Int(rng.next() % UInt64(md.count))] }
                var b = Array(s.utf8)
                if rng.next() % 10 == 0, !b.isEmpty { b[Int(rng.next() % UInt64(b.count))] = 0xFF }
                bytes = b
            }
            let doc = MarkdownDocument(bytes: bytes, fileName: "f.md")
            #expect(doc.wordCount >= 0)
        }
    }

    @Test func hugeMarkdown() {
        // Deep nesting, a huge table, a 1 MB line: parsed (and checked, at the smaller sizes) in bounded time.
        let scale = Self.full ? 5 : 1
        let deepQuote = String(repeating: "> ", count: 1_000 * scale) + "deep\n"
        let deepList = (0..<400 * scale).map { String(repeating: "  ", count: $0) + "- item\n" }.joined()
        let table = "| a | b | c |\n|---|---|---|\n" + String(repeating: "| one | two | three |\n", count: 4_000 * scale)
        let longLine = String(repeating: "A very long line of prose without end ", count: 27_000) + "\n"
        let brackets = String(repeating: "[", count: 10_000 * scale) + String(repeating: "*", count: 10_000 * scale)
        let engine = HeuristicsEngine(options: HeuristicsOptions())
        for (i, text) in [deepQuote, deepList, table, brackets, longLine].enumerated() {
            let doc = Self.bounded("markdown \(i)") { MarkdownDocument(bytes: Array(text.utf8), fileName: "big.md") }
            if Self.full || i < 3 { _ = Self.bounded("heuristics \(i)") { engine.findings(in: doc) } }
        }
    }

    // MARK: search queries

    @Test func searchQueriesWithEveryFTS5Operator() throws {
        let db = try AppDatabase.inMemory()
        let pid = try db.projectID(for: PathBytes("/p"))
        let body = "the garden is quiet, NEAR the café; C++ and don't AND OR NOT\n"
        try db.apply(projectID: pid, upserts: [IndexedDocument(
            relativePath: PathBytes("a.md"),
            stat: FileStat(kind: .regular, size: 10, mtimeNs: 1, ctimeNs: 1, inode: 1, device: 1),
            sha256: SHA256Digest.hex(Array(body.utf8)), words: 12, title: "Garden", headings: ["Quiet"], tags: ["x"], body: body)])
        let atoms = ["garden", "AND", "OR", "NOT", "NEAR", "NEAR(", ")", "(", "\"", "\u{201C}", "\u{201D}", "'", "*", "^", ":",
                     "title:", "body:", "{title body}:", "-", "+", "C++", "don't", "café", "e\u{301}", ",", "5", "\\", "\u{0}",
                     "%", "_", "?", "[", "]", "MATCH", "'; DROP TABLE document; --"]
        var rng = SplitMix(seed: 5)
        for _ in 0..<Self.cases {
            var q = ""
            for _ in 0..<Int(rng.next() % 7) + 1 {
                q += atoms[Int(rng.next() % UInt64(atoms.count))]
                if rng.next() % 3 != 0 { q += " " }
            }
            let query = SearchQuery(q)
            if query.matchExpression == nil { continue }
            // Must never throw an FTS5 syntax error: the user's text is always quoted.
            do { _ = try db.search(query, options: SearchOptions(limit: 5), queryText: q) } catch {
                Issue.record("search \(q.debugDescription) → \(query.matchExpression ?? "-"): \(error)")
                return
            }
        }
        #expect(try db.search(SearchQuery("garden"), options: SearchOptions(), queryText: "garden").results.count == 1)
    }

    // MARK: config files and sidecars edited by hand

    @Test func configFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-fuzz-config-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = FileSystem.absolute(dir.path + "/config.json")
        let good = Array(ConfigurationLoader.defaultJSON.utf8)
        let pieces = ["{", "}", "[", "]", "\"watch\"", ":", "-1", "1e999", "\"x\"", "null", "true", ",", "// c\n", "/* c */",
                      "\"review\": {\"max_concurrent\": \"two\"}", "\"projects\": 3", "\"settle_ms\": -5", "\u{FEFF}"]
        var rng = SplitMix(seed: 6)
        for i in 0..<Self.cases {
            var b: [UInt8]
            if i % 2 == 0 {
                b = good
                for _ in 0..<Int(rng.next() % 5) + 1 {
                    let at = Int(rng.next() % UInt64(b.count))
                    switch rng.next() % 3 {
                    case 0: b.remove(at: at)
                    case 1: b.insert(contentsOf: Array(pieces[Int(rng.next() % UInt64(pieces.count))].utf8), at: at)
                    default: b[at] = UInt8(truncatingIfNeeded: rng.next())
                    }
                }
            } else {
                b = Array(("{" + (0..<Int(rng.next() % 6)).map { _ in pieces[Int(rng.next() % UInt64(pieces.count))] }.joined()).utf8)
            }
            // The layer is read and merged as the loader does; a broken one is a problem, never a crash.
            var tree: JSONValue?
            if i % 100 == 0 {
                try FileSystem.writeAtomically(b, to: file, mode: 0o600)
                tree = ConfigurationLoader.readLayer(file).0
            } else {
                tree = try? JSONValue.parse(ConfigurationLoader.stripComments(b))
            }
            if let tree, case .object = tree {
                _ = try? ConfigurationLoader.decode(ConfigurationLoader.merge(ConfigurationLoader.defaultTree, tree))
            }
        }
    }

    @Test func sidecarsEditedByHand() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tk-fuzz-sidecar-\(getpid())")
        let root = FileSystem.absolute(dir.path)
        try FileManager.default.createDirectory(at: dir.appendingPathComponent(".tk"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var sidecar = ReviewSidecar(document: "a.md", sha256: String(repeating: "0", count: 64), updatedAt: "2026-11-22T10:00:00Z", words: 3)
        sidecar.suggestions = [Suggestion(id: "s1", round: "r1", advisorId: "editor", type: .rephrase, originalText: "The cat",
                                          suggestedText: "A cat", reasoning: "r", priority: 2, confidence: 0.5, status: .pending,
                                          start: 0, end: 7, line: 1, column: 1)]
        let good = try SidecarStore.encode(sidecar)
        let store = SidecarStore()
        let path = ReviewSidecar.path(project: root, document: PathBytes("a.md"))
        var rng = SplitMix(seed: 7)
        let pieces = ["null", "\"x\"", "-1", "1e999", "[]", "{}", "\"status\": \"maybe\"", "\"priority\": \"high\"", ","]
        for i in 0..<Self.cases {
            var b = good
            for _ in 0..<Int(rng.next() % 4) + 1 {
                let at = Int(rng.next() % UInt64(b.count))
                switch rng.next() % 3 {
                case 0: b.remove(at: at)
                case 1: b.insert(contentsOf: Array(pieces[Int(rng.next() % UInt64(pieces.count))].utf8), at: at)
                default: b[at] = UInt8(truncatingIfNeeded: rng.next())
                }
            }
            if i % 100 == 0 {
                // Through the store, as the agent reads it.
                try FileSystem.writeAtomically(b, to: path, mode: 0o644)
                switch store.read(project: root, document: PathBytes("a.md")) {
                case .ok, .missing, .broken: break
                }
            } else {
                _ = try? JSON.decode(ReviewSidecar.self, from: b)
                _ = SidecarStore.editedByHand(bytes: b)
            }
        }
    }
}
