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
}
