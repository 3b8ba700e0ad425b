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
}
