/// A shortest edit script between two sequences (Myers' O(ND) algorithm), after trimming the common
/// prefix and suffix. The one diff of the code base: the words a save inserted, the history's changed
/// scope, `tk-agent diff` and `pipe --diff` (`UnifiedDiff`), and how passages move between versions
/// (`TextDiff`).
public enum SequenceDiff {
    public enum Op: Equatable, Sendable {
        /// `old[i]` and `new[j]` are the same element.
        case equal(Int, Int)
        case delete(Int)
        case insert(Int)
    }

    /// The edit script turning `a` into `b`. Beyond `maxEdits` differences the middle is replaced
    /// wholesale (all deleted, all inserted): exact enough for counting, and memory stays bounded.
    public static func diff<T: Hashable>(_ a: [T], _ b: [T], maxEdits: Int = 3000) -> [Op] {
        var prefix = 0
        while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix, suffix < b.count - prefix, a[a.count - 1 - suffix] == b[b.count - 1 - suffix] {
            suffix += 1
        }
        var ops: [Op] = (0..<prefix).map { .equal($0, $0) }
        let n = a.count - prefix - suffix, m = b.count - prefix - suffix
        ops += middle(a, b, offset: prefix, n: n, m: m, maxEdits: maxEdits)
        for k in 0..<suffix { ops.append(.equal(a.count - suffix + k, b.count - suffix + k)) }
        return ops
    }

    /// Which elements of `a` the script deletes and which of `b` it inserts.
    public static func changed<T: Hashable>(_ a: [T], _ b: [T], maxEdits: Int = 3000) -> (removed: [Bool], inserted: [Bool]) {
        var removed = [Bool](repeating: false, count: a.count)
        var inserted = [Bool](repeating: false, count: b.count)
        for op in diff(a, b, maxEdits: maxEdits) {
            switch op {
            case .equal: break
            case .delete(let i): removed[i] = true
            case .insert(let j): inserted[j] = true
            }
        }
        return (removed, inserted)
    }

    static func middle<T: Hashable>(_ a: [T], _ b: [T], offset: Int, n: Int, m: Int, maxEdits: Int) -> [Op] {
        if n == 0 { return (0..<m).map { .insert(offset + $0) } }
        if m == 0 { return (0..<n).map { .delete(offset + $0) } }
        // Elements as small integers: comparisons stay cheap whatever T is.
        var ids: [T: Int] = [:]
        let x = (0..<n).map { i -> Int in
            let v = a[offset + i]
            if let id = ids[v] { return id }
            ids[v] = ids.count
            return ids.count - 1
        }
        let y = (0..<m).map { j -> Int in ids[b[offset + j]] ?? -1 - j }
        let maxD = min(n + m, maxEdits)
        let size = 2 * maxD + 2
        var v = [Int](repeating: 0, count: size + 1)
        var trace: [[Int]] = []
        var found = false
        outer: for d in 0...maxD {
            trace.append(v)
            for k in stride(from: -d, through: d, by: 2) {
                let idx = k + maxD + 1
                var i: Int
                if k == -d || (k != d && v[idx - 1] < v[idx + 1]) { i = v[idx + 1] } else { i = v[idx - 1] + 1 }
                var j = i - k
                while i < n, j < m, x[i] == y[j] { i += 1; j += 1 }
                v[idx] = i
                if i >= n && j >= m { found = true; break outer }
            }
        }
        guard found else {
            return (0..<n).map { .delete(offset + $0) } + (0..<m).map { .insert(offset + $0) }
        }
        // Walk back through the trace.
        var out: [Op] = []
        var i = n, j = m
        for d in stride(from: trace.count - 1, through: 0, by: -1) {
            let vd = trace[d]
            let k = i - j
            let idx = k + maxD + 1
            let prevK: Int
            if d == 0 {
                while i > 0 && j > 0 { i -= 1; j -= 1; out.append(.equal(offset + i, offset + j)) }
                break
            }
            if k == -d || (k != d && vd[idx - 1] < vd[idx + 1]) { prevK = k + 1 } else { prevK = k - 1 }
            let prevI = vd[prevK + maxD + 1]
            let prevJ = prevI - prevK
            while i > prevI && j > prevJ { i -= 1; j -= 1; out.append(.equal(offset + i, offset + j)) }
            if prevK == k + 1 { j -= 1; out.append(.insert(offset + j)) } else { i -= 1; out.append(.delete(offset + i)) }
        }
        return out.reversed()
    }
}
