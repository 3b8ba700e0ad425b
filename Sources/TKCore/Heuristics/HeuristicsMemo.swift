/// What the heuristics found in each prose block of a document, kept between calls so that the next
/// call on an edited version re-checks only the blocks that changed.
///
/// A block's entry holds everything its pass adds to the document's run (its candidates, the words it
/// gives spelling, its share of the language tally, its foreign passages), with offsets as of where
/// the block started when it was checked (moved on when it is reused elsewhere). The document-level
/// passes — spelling with its cap and names, the document's language, ignore directives, one finding
/// per span — still run over the whole document on every call, on the merged entries: the result is exactly that of `HeuristicsEngine.findings(in:project:)` without a
/// memo, whatever the document's size. The language server keeps one per open buffer.
public struct HeuristicsMemo: Sendable {
    struct Key: Hashable, Sendable {
        var hash: Int
        var count: Int
    }

    /// One block's contribution, offsets as they were when the block started at `origin`.
    struct Entry: Sendable {
        var origin = 0
        var candidates: [Run.Candidate] = []
        var spell = SpellCollector()
        var passageSpell: [String: SpellCollector] = [:]
        var firstForeign: (Int, Int)?
        var documentTally = LanguageGuess.Tally()
        var wholeTally = LanguageGuess.Tally()
    }

    /// What the entries were computed under; another engine or story type starts afresh.
    var options: HeuristicsOptions?
    var dialogueIsCharacters = false
    var entries: [Key: Entry] = [:]
    /// Blocks checked by the last call (the rest came from the memo), and all its blocks.
    public internal(set) var lastComputed = 0
    public internal(set) var lastBlocks = 0

    public init() {}

    /// The block's bytes (with two bytes of context either side: the rules look one byte past a
    /// word), its masks and its kind, relative to its start: equal keys check the same.
    static func key(_ p: UnsafeBufferPointer<UInt8>, _ block: ProseBlock) -> Key {
        let start = min(block.range.lowerBound, p.count)
        let lo = max(0, start - 2), hi = min(p.count, block.range.upperBound + 2)
        var h = Hasher()
        if lo < hi { h.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: p[lo..<hi]))) }
        h.combine(start - lo)
        h.combine(block.range.count)
        h.combine(block.masks.count)
        for m in block.masks {
            h.combine(m.range.lowerBound - start)
            h.combine(m.range.count)
            h.combine(m.kind.rawValue)
        }
        h.combine(block.isHeading)
        h.combine(block.headingLevel)
        h.combine(block.inListItem)
        h.combine(block.inBlockQuote)
        return Key(hash: h.finalize(), count: hi - lo)
    }
}

extension Run {
    /// Swaps the run's per-document accumulators with `other` (used to gather one block's share alone).
    mutating func swapAccumulators(_ other: inout HeuristicsMemo.Entry) {
        swap(&candidates, &other.candidates)
        swap(&spell, &other.spell)
        swap(&passageSpell, &other.passageSpell)
        swap(&firstForeign, &other.firstForeign)
        swap(&documentTally, &other.documentTally)
        swap(&wholeTally, &other.wholeTally)
    }

    /// Adds a block's share as if the block, now starting at `start`, had just been checked.
    mutating func absorb(_ e: HeuristicsMemo.Entry, at start: Int) {
        let shift = start - e.origin
        // (No reserveCapacity here: an exact reservation per block would copy the array every time.)
        for var c in e.candidates {
            c.start += shift
            c.end += shift
            candidates.append(c)
        }
        spell.merge(e.spell, shift: shift)
        for (language, words) in e.passageSpell {
            passageSpell[language, default: SpellCollector()].merge(words, shift: shift)
        }
        if firstForeign == nil, let (s, end) = e.firstForeign { firstForeign = (s + shift, end + shift) }
        documentTally.merge(e.documentTally)
        wholeTally.merge(e.wholeTally)
    }
}

extension LanguageGuess.Tally {
    mutating func merge(_ other: LanguageGuess.Tally) {
        words += other.words
        for i in counts.indices where i < other.counts.count { counts[i] += other.counts[i] }
    }
}
