import Testing
@testable import TKCore

/// `ValeGramIndex` answers exactly what a search from the start answers, on a document masked bit by
/// bit as Vale's walker and its rules' contexts mask it.
@Suite struct ValeGramIndexTests {
    struct LCG {
        var state: UInt64
        mutating func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
    }

    @Test func firstOccurrencesEqualAPlainSearchWhileTheDocumentIsMasked() {
        var rng = LCG(state: 20_261_128)
        let words = ["the", "cat", "sat", "on", "mat", "utilise", "très", "—", "\n", "Yes.", "No.", "@", "#", "a"]
        for _ in 0..<20 {
            var doc: [UInt8] = []
            while doc.count < 3000 { doc += Array(words[rng.next(words.count)].utf8) + [32] }
            var index = ValeGramIndex(doc)
            var hay = doc
            for _ in 0..<300 {
                // A needle: a piece of the document as indexed (often still there), or of words.
                var needle: [UInt8]
                if rng.next(3) > 0 {
                    let s = rng.next(doc.count - 1), n = 1 + rng.next(min(40, doc.count - s))
                    needle = Array(doc[s..<(s + n)])
                } else {
                    needle = Array((0..<(1 + rng.next(4))).map { _ in words[rng.next(words.count)] }.joined(separator: " ").utf8)
                }
                let from = rng.next(4) == 0 ? rng.next(hay.count) : 0
                let plain = VB.index(hay, needle, from: from)
                if index.covers(needle, in: hay) {
                    // As a rule's context made from the content (known), and as the walker's content (learn).
                    var ctx = hay
                    if let k = VB.index(ctx, Array("cat".utf8)) { ctx[k] = 35 }
                    #expect(index.first(needle, in: ctx, from: from, known: true) == VB.index(ctx, needle, from: from))
                    #expect(index.first(needle, in: hay, from: from) == plain)
                    #expect(index.first(needle, in: hay, from: from, learn: true) == plain)
                }
                // Mask where it was found, with `@` or `#`, as the walker and the rules do.
                if let i = plain {
                    let ch: UInt8 = rng.next(2) == 0 ? 64 : 35
                    for j in i..<(i + needle.count) where hay[j] < 0x80 && hay[j] != 10 { hay[j] = ch }
                }
            }
        }
        // What it does not answer for: one byte, mask bytes, another length.
        var ix = ValeGramIndex(Array("abcdef".utf8))
        #expect(!ix.covers(Array("a".utf8), in: Array("abcdef".utf8)))
        #expect(ix.first(Array("cde".utf8), in: Array("abcdef".utf8)) == 2)
        #expect(!ix.covers(Array("ab@d".utf8), in: Array("abcdef".utf8)))
        #expect(!ix.covers(Array("abcd".utf8), in: Array("abcdefg".utf8)))
        #expect(ix.first(Array("cdef".utf8), in: Array("abcdef".utf8)) == 2)
        #expect(ix.first(Array("cdef".utf8), in: Array("ab@def".utf8)) == nil)
    }

    /// The wide table has about one bucket per window: a chapter's index does not clear and sum a
    /// novel's 2^18 buckets, and a novel's stays at 2^18.
    @Test func theWideTableIsSizedToTheDocument() {
        #expect(ValeGramIndex.wideBits(for: 0) == 10)
        #expect(ValeGramIndex.wideBits(for: 3000) == 12)
        #expect(ValeGramIndex.wideBits(for: 60_000) == 16)
        #expect(ValeGramIndex.wideBits(for: 700_000) == 18)
    }
}
