import Foundation

/// `tk-agent check --format rdjsonl|sarif`: findings for CI (reviewdog, GitHub code scanning).
public enum CheckFormats {
    /// A checked file's bytes, next to its report entry (positions need the text).
    public struct Source: Sendable {
        public var path: String
        public var bytes: [UInt8]
        public var findings: [Finding]
        public init(path: String, bytes: [UInt8], findings: [Finding]) { self.path = path; self.bytes = bytes; self.findings = findings }
    }

    /// 1-based line, 1-based UTF-8 byte column and 1-based Unicode-scalar column of an offset.
    struct Where { var line: Int; var byteColumn: Int; var scalarColumn: Int }

    static func locate(_ offset: Int, in bytes: [UInt8], lines: [Int]) -> Where {
        let o = max(0, min(offset, bytes.count))
        var lo = 0, hi = lines.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if lines[mid] <= o { lo = mid } else { hi = mid - 1 }
        }
        var scalars = 1
        for i in lines[lo]..<o where bytes[i] & 0xC0 != 0x80 { scalars += 1 }
        return Where(line: lo + 1, byteColumn: o - lines[lo] + 1, scalarColumn: scalars)
    }

    // MARK: reviewdog

    /// reviewdog's diagnostic format: one JSON object a line, columns in UTF-8 bytes, end exclusive.
    public static func rdjsonl(_ files: [Source]) -> String {
        var out = ""
        for f in files {
            let lines = LSPTextBuffer.lines(f.bytes)
            for x in f.findings {
                func range(_ s: Int, _ e: Int) -> JSONValue {
                    let a = locate(s, in: f.bytes, lines: lines), b = locate(e, in: f.bytes, lines: lines)
                    return ["start": ["line": .int(a.line), "column": .int(a.byteColumn)],
                            "end": ["line": .int(b.line), "column": .int(b.byteColumn)]]
                }
                var d: [String: JSONValue] = [
                    "message": .string(x.message),
                    "location": ["path": .string(f.path), "range": range(x.start, x.end)],
                    "severity": .string(x.severity == .error ? "ERROR" : x.severity == .warning ? "WARNING" : "INFO"),
                    "code": ["value": .string(x.rule)],
                    "source": ["name": "tk-agent", "url": "https://github.com/tk-agent/tk-agent"],
                ]
                if !x.replacements.isEmpty {
                    d["suggestions"] = .array(x.replacements.map { ["range": range(x.start, x.end), "text": .string($0)] })
                }
                out += String(decoding: JSONValue.object(d).wireBytes, as: UTF8.self) + "\n"
            }
        }
        return out
    }

    // MARK: SARIF

    /// SARIF 2.1.0: one run; every rule used is described in `tool.driver.rules`; columns count
    /// Unicode scalars (`columnKind: unicodeCodePoints`), end column exclusive.
    public static func sarif(_ files: [Source], version: String) -> JSONValue {
        var ruleOrder: [String] = []
        var ruleInfo: [String: Finding] = [:]
        for f in files {
            for x in f.findings where ruleInfo[x.rule] == nil {
                ruleOrder.append(x.rule)
                ruleInfo[x.rule] = x
            }
        }
        ruleOrder.sort()
        let ruleIndex = Dictionary(uniqueKeysWithValues: ruleOrder.enumerated().map { ($1, $0) })
        func level(_ s: Severity) -> String { s == .error ? "error" : s == .warning ? "warning" : "note" }
        let rules: [JSONValue] = ruleOrder.map { id in
            let x = ruleInfo[id]!
            return [
                "id": .string(id),
                "name": .string(camel(id)),
                "shortDescription": ["text": .string(ruleTitle(x))],
                "fullDescription": ["text": .string(LSPServer.explanation(x.category.rawValue))],
                "defaultConfiguration": ["level": .string(level(x.severity))],
                "properties": ["category": .string(x.category.rawValue)],
            ]
        }
        var results: [JSONValue] = []
        for f in files {
            let lines = LSPTextBuffer.lines(f.bytes)
            let uri = uriReference(f.path)
            for x in f.findings {
                let a = locate(x.start, in: f.bytes, lines: lines), b = locate(x.end, in: f.bytes, lines: lines)
                let region: JSONValue = ["startLine": .int(a.line), "startColumn": .int(a.scalarColumn),
                                         "endLine": .int(b.line), "endColumn": .int(b.scalarColumn)]
                var snippetRegion = region
                if case .object(var o) = snippetRegion { o["snippet"] = ["text": .string(x.text)]; snippetRegion = .object(o) }
                var r: [String: JSONValue] = [
                    "ruleId": .string(x.rule),
                    "ruleIndex": .int(ruleIndex[x.rule] ?? 0),
                    "level": .string(level(x.severity)),
                    "message": ["text": .string(x.message)],
                    "locations": [["physicalLocation": ["artifactLocation": ["uri": .string(uri)], "region": snippetRegion]]],
                ]
                if !x.replacements.isEmpty {
                    r["fixes"] = .array(x.replacements.map { rep in
                        [
                            "description": ["text": .string(rep.isEmpty ? "Delete “\(x.text)”" : "Replace with “\(rep)”")],
                            "artifactChanges": [[
                                "artifactLocation": ["uri": .string(uri)],
                                "replacements": [["deletedRegion": region, "insertedContent": ["text": .string(rep)]]],
                            ]],
                        ]
                    })
                }
                results.append(.object(r))
            }
        }
        return [
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [[
                "tool": ["driver": [
                    "name": "tk-agent", "version": .string(version), "semanticVersion": .string(version),
                    "informationUri": "https://github.com/tk-agent/tk-agent",
                    "rules": .array(rules),
                ]],
                "columnKind": "unicodeCodePoints",
                "results": .array(results),
            ]],
        ]
    }

    static func camel(_ id: String) -> String {
        id.split(separator: "_").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    static func ruleTitle(_ x: Finding) -> String {
        switch x.category {
        case .passive: "Passive voice"
        case .weasel: "Weasel word"
        case .adverb: "Adverb"
        case .longSentence: "Long sentence"
        case .readability: "Hard to read"
        case .cliche: "Cliché"
        case .aiCliche: "AI cliché"
        case .genericOpening: "Generic opening"
        case .repeatedWord: "Repeated word"
        case .thereIs: "Starts with there is/are"
        case .soStart: "Starts with So"
        case .wordy: "Wordy phrase"
        case .hedge: "Hedge"
        default: "tk-agent rule \(x.rule)"
        }
    }

    /// A relative path as a URI reference (percent-encoding what is not unreserved or '/').
    static func uriReference(_ path: String) -> String {
        var out = ""
        for b in path.utf8 {
            switch b {
            case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x2E, 0x5F, 0x7E, 0x2F: out.append(Character(UnicodeScalar(b)))
            default: out += String(format: "%%%02X", b)
            }
        }
        return out
    }
}
