import Testing
@testable import TKCore

@Suite struct UnifiedDiffTests {
    @Test func equalTextsHaveNoDiff() {
        #expect(UnifiedDiff.diff(old: "a\nb\n", new: "a\nb\n") == "")
    }

    @Test func oneChangedLineWithContext() {
        let old = (1...10).map { "line \($0)\n" }.joined()
        let new = old.replacingOccurrences(of: "line 5\n", with: "line five\n")
        let d = UnifiedDiff.diff(old: old, new: new, oldName: "a/x.md", newName: "b/x.md")
        #expect(d == """
            --- a/x.md
            +++ b/x.md
            @@ -2,7 +2,7 @@
             line 2
             line 3
             line 4
            -line 5
            +line five
             line 6
             line 7
             line 8

            """)
    }

    @Test func distantChangesMakeTwoHunks() {
        let old = (1...30).map { "l\($0)\n" }.joined()
        let new = old.replacingOccurrences(of: "l2\n", with: "L2\n").replacingOccurrences(of: "l28\n", with: "L28\n")
        let d = UnifiedDiff.diff(old: old, new: new)
        #expect(d.components(separatedBy: "@@ -").count - 1 == 2)
        #expect(d.contains("@@ -1,5 +1,5 @@"))
        #expect(d.contains("@@ -25,6 +25,6 @@"))
    }

    @Test func insertionsDeletionsAndMissingNewline() {
        let d = UnifiedDiff.diff(old: "a\nb\nc", new: "a\nc\nd\n")
        #expect(d.contains("-b\n"))
        #expect(d.contains("\\ No newline at end of file"))
        #expect(d.contains("+d\n"))
        let empty = UnifiedDiff.diff(old: "", new: "x\n")
        #expect(empty.contains("@@ -0,0 +1 @@"))
    }

    /// A run of changed lines shows all its deletions, then all its insertions, as `diff -u` does,
    /// however the edit script interleaves them.
    @Test func aReplacedRunShowsDeletionsBeforeInsertions() {
        let d = UnifiedDiff.diff(old: "a\nb\nc\nd\ne\n", new: "a\nX\nc\nY\nZ\ne\n", context: 0)
        #expect(d == """
            --- a
            +++ b
            @@ -2 +2 @@
            -b
            +X
            @@ -4 +4,2 @@
            -d
            +Y
            +Z

            """)
        let swapped = UnifiedDiff.diff(old: "one\ntwo\n", new: "three\nfour\n")
        #expect(swapped == "--- a\n+++ b\n@@ -1,2 +1,2 @@\n-one\n-two\n+three\n+four\n")
    }

    /// Two long documents that differ in many places still diff line by line (the old table of
    /// n × m cells gave up above 25 million and printed everything as changed).
    @Test func longDocumentsWithScatteredChangesDiffLineByLine() {
        let old = (1...8_000).map { "line \($0)\n" }.joined()
        var newLines = (1...8_000).map { "line \($0)\n" }
        for k in stride(from: 10, to: 8_000, by: 400) { newLines[k] = "changed \(k)\n" }
        let d = UnifiedDiff.diff(old: old, new: newLines.joined())
        let lines = d.split(separator: "\n").dropFirst(2)   // past the --- and +++ lines
        #expect(lines.filter { $0.hasPrefix("-") } == (0..<20).map { "-line \(10 + 400 * $0 + 1)" })
        #expect(lines.filter { $0.hasPrefix("+") } == (0..<20).map { "+changed \(10 + 400 * $0)" })
    }
}
