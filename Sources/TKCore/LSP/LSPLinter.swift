/// Quick findings for an open buffer, re-checking only the prose blocks that changed.
///
/// The buffer is parsed whole on every call and the engine's document-level passes (spelling with
/// its cap and the names a document uses, the document's language, ignore directives) run on all of
/// it, so the editor shows exactly what `tk-agent check` and the sidecar say at any size; each prose
/// block's own findings come from a `HeuristicsMemo` when its bytes are unchanged, so a keystroke
/// re-checks one paragraph.
public struct LSPLinter: Sendable {
    private var memo = HeuristicsMemo()
    private var engine: HeuristicsEngine?
    /// Prose blocks checked by the last call (the rest came from the memo), and all of them.
    public var lastLinted: Int { memo.lastComputed }
    public var lastChunks: Int { memo.lastBlocks }

    public init() {}

    /// The findings of `bytes`, in document order, with offsets into `bytes`.
    /// - Parameter project: the project's words (its dictionary, the names it uses), for spelling.
    public mutating func findings(_ bytes: [UInt8], options: HeuristicsOptions, fileName: String,
                                  project: ProjectWords? = nil) -> [Finding] {
        // One engine per options (building the word tables of extra rules is not per keystroke).
        if engine?.options != options { engine = HeuristicsEngine(options: options) }
        let engine = engine ?? HeuristicsEngine(options: options)
        return engine.findings(in: MarkdownDocument(bytes: bytes, fileName: fileName, summaries: false), project: project, memo: &memo)
    }

    /// Where the buffer's front matter ends (after its closing `---` or `...` line), 0 without one.
    static func frontMatterEnd(_ bytes: [UInt8]) -> Int {
        let n = bytes.count
        guard n >= 4, bytes[0] == 45, bytes[1] == 45, bytes[2] == 45, bytes[3] == 10 || bytes[3] == 13 else { return 0 }
        var j = 4
        while j < n {
            let lineEnd = bytes[j..<n].firstIndex(of: 10) ?? n
            var k = j
            var dashes = 0, dots = 0
            while k < lineEnd, bytes[k] == 45 { dashes += 1; k += 1 }
            while k < lineEnd, bytes[k] == 46 { dots += 1; k += 1 }
            if (dashes == 3 || dots == 3) && (k == lineEnd || (k + 1 == lineEnd && bytes[k] == 13)) {
                return min(n, lineEnd + 1)
            }
            j = lineEnd + 1
        }
        return 0
    }
}
