import Foundation
import Testing
@testable import TKCore

/// `check --format json` is written without `JSONEncoder`: byte for byte what it would write.
@Suite struct CheckReportJSONTests {
    @Test func theSameBytesAsJSONEncoder() throws {
        // Every ASCII character (controls included), and beyond: accents, emoji, line separators.
        let ascii = String(String.UnicodeScalarView((0..<128).compactMap(Unicode.Scalar.init)))
        let texts = [ascii, "", "é — “quoted” 😀 \u{2028}\u{2029}\u{FEFF}", "a/b\\c\"d", "\u{7F}\u{80}\u{9F}"]
        var findings: [Finding] = []
        for (i, t) in texts.enumerated() {
            findings.append(Finding(id: "v-\(i)", rule: "Style.Rule\(t.prefix(3))", category: .vale, severity: .warning,
                                    message: t, text: String(t.reversed()), start: i * 10, end: -i, line: Int.max - i,
                                    column: i, replacements: i % 2 == 0 ? [] : [t, "one"]))
        }
        let reports = [CheckReport(),
                       CheckReport(files: [.init(path: "a/b.md", findings: [])]),
                       CheckReport(files: [.init(path: "ch/1.md", findings: findings),
                                           .init(path: "big.md", findings: [], skipped: "over watch.max_file_bytes"),
                                           .init(path: ascii, findings: Array(findings.prefix(2)))])]
        for r in reports {
            let expected = try JSON.encode(r)
            #expect(r.jsonBytes() == expected, "\(String(decoding: r.jsonBytes(), as: UTF8.self))")
        }
    }

    /// A file with enough findings for the second half to be written on another thread: the same bytes.
    @Test func aLongListWrittenInTwoHalvesIsTheSame() throws {
        for count in [CheckReport.parallelFindings - 1, CheckReport.parallelFindings, 1_537] {
            let findings = (0..<count).map { i in
                Finding(id: "v-\(i)", rule: i % 3 == 0 ? "Style.Rule" : "passive", category: i % 3 == 0 ? .vale : .passive,
                        severity: .suggestion, message: "Message \(i) “quoted” \u{1}", text: "text \(i)", start: i, end: i + 4,
                        line: i / 7 + 1, column: i % 7 + 1, replacements: i % 2 == 0 ? [] : ["r\(i)"])
            }
            let r = CheckReport(files: [.init(path: "long.md", findings: findings), .init(path: "short.md", findings: Array(findings.prefix(3)))])
            #expect(r.jsonBytes() == (try JSON.encode(r)))
        }
    }

    @Test func everyFieldOfAFindingIsWritten() throws {
        // A field added to Finding must be added to the writer too: the encoder's keys are the writer's.
        let f = Finding(id: "x", rule: "r", category: .passive, severity: .error, message: "m", text: "t",
                        start: 1, end: 2, line: 3, column: 4, replacements: ["a"])
        let decoded = try JSONSerialization.jsonObject(with: Data(CheckReport(files: [.init(path: "p", findings: [f])]).jsonBytes()))
        let written = ((decoded as? [String: Any])?["files"] as? [[String: Any]])?.first?["findings"] as? [[String: Any]]
        let keys = try JSONSerialization.jsonObject(with: Data(JSON.encode(f))) as? [String: Any]
        let writtenKeys: Set<String> = Set(written?.first?.keys.map { $0 } ?? [])
        let encodedKeys: Set<String> = Set(keys?.keys.map { $0 } ?? ["?"])
        #expect(writtenKeys == encodedKeys)
    }
}
