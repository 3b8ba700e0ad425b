/// A word-level diff for `tk-agent diff --words`: only the changed regions, each under an
/// `@@ line N @@` header (its line in the newer text) with a few words of context on each side
/// (on the same line);
/// deletions `[-…-]` and insertions `{+…+}` (red and green on a terminal).
public enum WordDiff {
    /// Words of context kept on each side of a change.
    public static let contextWords = 6

    /// The text split into alternating runs of non-space and space characters.
    public static func tokens(_ s: String) -> [Substring] {
        var out: [Substring] = []
        var start = s.startIndex
        var i = s.startIndex
        var inSpace: Bool?
        while i < s.endIndex {
            let space = s[i].isWhitespace
            if let cur = inSpace, cur != space { out.append(s[start..<i]); start = i }
            inSpace = space
            i = s.index(after: i)
        }
        if start < s.endIndex { out.append(s[start...]) }
        return out
    }

    /// A run of the edit script: tokens both texts share, or a change (deleted and inserted tokens).
    enum Segment {
        case same([Substring])
        case change(deleted: [Substring], inserted: [Substring])
    }

    static func segments(_ a: [Substring], _ b: [Substring]) -> [Segment] {
        var out: [Segment] = []
        var same: [Substring] = [], del: [Substring] = [], ins: [Substring] = []
        func flushChange() {
            if !del.isEmpty || !ins.isEmpty { out.append(.change(deleted: del, inserted: ins)) }
            del = []; ins = []
        }
        for op in SequenceDiff.diff(a, b) {
            switch op {
            case .equal(let i, _):
                flushChange()
                same.append(a[i])
            case .delete(let i):
                if !same.isEmpty { out.append(.same(same)); same = [] }
                del.append(a[i])
            case .insert(let j):
                if !same.isEmpty { out.append(.same(same)); same = [] }
                ins.append(b[j])
            }
        }
        flushChange()
        if !same.isEmpty { out.append(.same(same)) }
        return out
    }

    /// The changed regions of `old` → `new`, each with its header and context; empty when equal.
    public static func render(old: String, new: String, color: Bool, context: Int = contextWords) -> String {
        let segs = segments(tokens(old), tokens(new))
        // Context is counted in tokens: a word and the space beside it.
        let keep = max(0, context) * 2
        var out = ""
        var line = 1                 // line in the new text where the next token starts
        var hunk = ""                // the hunk being built
        var hunkLine = 0
        var open = false
        func newlines(_ ts: [Substring]) -> Int { ts.reduce(0) { $0 + $1.reduce(0) { $0 + ($1 == "\n" ? 1 : 0) } } }
        func closeHunk() {
            guard open else { return }
            out += (color ? "\u{1B}[36m@@ line \(hunkLine) @@\u{1B}[0m" : "@@ line \(hunkLine) @@") + "\n"
            out += hunk.hasSuffix("\n") ? hunk : hunk + "\n"
            hunk = ""; open = false
        }
        for (index, seg) in segs.enumerated() {
            switch seg {
            case .same(let ts):
                let isLast = index == segs.count - 1
                if open {
                    // Joins the next change when the gap is short; else the hunk ends after some context.
                    if !isLast, ts.count <= 2 * keep, !ts.contains(where: isNewline) {
                        hunk += ts.joined()
                    } else {
                        let (after, cut) = contextTokens(ts, keep: keep, after: true)
                        hunk += after.joined() + (cut ? "…" : "")
                        closeHunk()
                    }
                }
                line += newlines(ts)
                if !open, index + 1 < segs.count {
                    // Context before the next change.
                    let (before, cut) = contextTokens(ts, keep: keep, after: false)
                    hunkLine = line - newlines(before)
                    hunk = (cut ? "…" : "") + before.joined()
                    open = true
                }
            case .change(let deleted, let inserted):
                if !open { hunkLine = line; hunk = ""; open = true }
                let d = deleted.joined(), i = inserted.joined()
                if !d.isEmpty { hunk += color ? "\u{1B}[31;9m\(d)\u{1B}[0m" : "[-\(d)-]" }
                if !i.isEmpty { hunk += color ? "\u{1B}[32m\(i)\u{1B}[0m" : "{+\(i)+}" }
                line += newlines(inserted)
            }
        }
        closeHunk()
        return out
    }

    static func isNewline(_ t: Substring) -> Bool { t.contains("\n") || t.contains("\r\n") }

    /// The context kept beside a change: at most `keep` tokens of `ts`, never across a line end;
    /// the tokens after the change (`after`) or before it, and whether words were left out on the
    /// line (shown as "…").
    static func contextTokens(_ ts: [Substring], keep: Int, after: Bool) -> ([Substring], Bool) {
        if after {
            let line = ts.prefix(while: { !isNewline($0) })
            return (Array(line.prefix(keep)), line.count > keep)
        }
        var line = ts[...]
        if let k = ts.lastIndex(where: isNewline) { line = ts[(k + 1)...] }
        return (Array(line.suffix(keep)), line.count > keep)
    }
}
