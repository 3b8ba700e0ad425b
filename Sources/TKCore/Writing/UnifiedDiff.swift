import Foundation

/// A unified diff (`diff -u` style) between two texts, line by line. Pure.
public enum UnifiedDiff {
    enum Op: Equatable { case same(Int, Int), delete(Int), insert(Int) }

    /// The diff of `old` → `new`, or "" when they are equal.
    /// - Parameters:
    ///   - oldName: shown after `---`.
    ///   - newName: shown after `+++`.
    ///   - context: unchanged lines kept around each change.
    public static func diff(old: String, new: String, oldName: String = "a", newName: String = "b",
                            context: Int = 3) -> String {
        if old == new { return "" }
        let a = lines(old)
        let b = lines(new)
        let ops = script(a, b)
        var out = "--- \(oldName)\n+++ \(newName)\n"
        // Group the ops into hunks separated by more than 2*context unchanged lines.
        let changeIdx = ops.indices.filter { if case .same = ops[$0] { return false }; return true }
        guard !changeIdx.isEmpty else { return "" }
        var hunks: [(Int, Int)] = []
        var lo = max(0, changeIdx[0] - context)
        var hi = min(ops.count, changeIdx[0] + context + 1)
        for i in changeIdx.dropFirst() {
            if i - context <= hi {
                hi = min(ops.count, i + context + 1)
            } else {
                hunks.append((lo, hi))
                lo = max(0, i - context)
                hi = min(ops.count, i + context + 1)
            }
        }
        hunks.append((lo, hi))
        for (lo, hi) in hunks {
            var aStart = 0, bStart = 0
            // Position before the hunk's first op.
            var ai = 0, bi = 0
            for op in ops[..<lo] {
                switch op {
                case .same: ai += 1; bi += 1
                case .delete: ai += 1
                case .insert: bi += 1
                }
            }
            aStart = ai; bStart = bi
            var aCount = 0, bCount = 0
            var body = ""
            for op in ops[lo..<hi] {
                switch op {
                case .same(let i, _): body += " " + line(a[i]); aCount += 1; bCount += 1
                case .delete(let i): body += "-" + line(a[i]); aCount += 1
                case .insert(let j): body += "+" + line(b[j]); bCount += 1
                }
            }
            out += "@@ -\(range(aStart, aCount)) +\(range(bStart, bCount)) @@\n" + body
        }
        return out
    }

    static func range(_ start: Int, _ count: Int) -> String {
        // diff -u: an empty range shows the line before it.
        let first = count == 0 ? start : start + 1
        return count == 1 ? "\(first)" : "\(first),\(count)"
    }

    static func line(_ l: Substring) -> String {
        l.hasSuffix("\n") ? String(l) : String(l) + "\n\\ No newline at end of file\n"
    }

    /// Splits keeping each line's `\n`.
    static func lines(_ s: String) -> [Substring] {
        var out: [Substring] = []
        var start = s.startIndex
        var i = s.startIndex
        while i < s.endIndex {
            let next = s.index(after: i)
            if s[i] == "\n" || s[i] == "\r\n" {
                out.append(s[start..<next])
                start = next
            }
            i = next
        }
        if start < s.endIndex { out.append(s[start...]) }
        return out
    }

    /// The edit script (`SequenceDiff`), each run of changes with its deletions first, as `diff -u`
    /// prints them.
    static func script(_ a: [Substring], _ b: [Substring]) -> [Op] {
        var ops: [Op] = []
        ops.reserveCapacity(max(a.count, b.count))
        var deletes: [Op] = [], inserts: [Op] = []
        func flush() {
            ops += deletes
            ops += inserts
            deletes.removeAll(keepingCapacity: true)
            inserts.removeAll(keepingCapacity: true)
        }
        for op in SequenceDiff.diff(a, b) {
            switch op {
            case .equal(let i, let j): flush(); ops.append(.same(i, j))
            case .delete(let i): deletes.append(.delete(i))
            case .insert(let j): inserts.append(.insert(j))
            }
        }
        flush()
        return ops
    }
}
