import Foundation
import Testing
@testable import TKCore

/// The byte-level readings the linter places alerts with give what the `String` readings give.
@Suite struct ValeBytesTests {
    /// `strings.Fields` as the linter reads it: split at every Character that is whitespace.
    static func characterFields(_ s: [UInt8]) -> [[UInt8]] {
        String(decoding: s, as: UTF8.self).split(whereSeparator: { $0.isWhitespace }).map { Array($0.utf8) }
    }

    @Test func fieldsOfASCIISplitAsCharactersDo() {
        var rng = SplitMix(seed: 0xf1e1_d5)
        // Every ASCII control character, so that a byte Unicode does not call whitespace (0x1C–0x1F,
        // 0x00) is caught if the fast path took it for one.
        let pieces: [[UInt8]] = (0..<33).map { [UInt8($0)] } + [[127], Array("word".utf8), Array("a-b".utf8), [13, 10], [32, 32]]
        for _ in 0..<2000 {
            var s: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &rng) { s += pieces.randomElement(using: &rng) ?? [] }
            #expect(VB.fields(s) == Self.characterFields(s), "\(s)")
        }
    }

    @Test func fieldsOfOtherTextSplitAsCharactersDo() {
        for s in ["a\u{00A0}b", "x\u{2003}y z", "\u{0085}é", "a \u{0301}b", "\u{3000}日本\t語"] {
            #expect(VB.fields(Array(s.utf8)) == Self.characterFields(Array(s.utf8)), "\(s.debugDescription)")
        }
    }

    /// The rules' trimming of spaces on bytes gives Foundation's `.whitespaces` trimming: ASCII
    /// (spaces, tabs, every control byte, which it must keep) and text with other spaces (no-break,
    /// ideographic, zero-width), which goes through Foundation.
    @Test func spacesAreTrimmedAsFoundationTrimsThem() {
        var rng = SplitMix(seed: 0x7_51a)
        let pieces = [" ", "\t", "\n", "\r", "\u{0B}", "\u{0C}", "\u{1F}", "\u{00}", "word", "(?", "\u{00A0}", "\u{3000}",
                      "\u{200B}", "é", "a b"]
        for _ in 0..<3000 {
            var str = ""
            for _ in 0..<Int.random(in: 0...6, using: &rng) { str += pieces.randomElement(using: &rng) ?? "" }
            #expect(VB.trimmedSpaces(str) == str.trimmingCharacters(in: .whitespaces), "\(str.debugDescription)")
            #expect(VB.trimmedSpaces(Substring(str)) == str.trimmingCharacters(in: .whitespaces), "\(str.debugDescription)")
        }
    }

    /// Go's `strings.Count`, which the substitution rules count parentheses with: the same as
    /// `components(separatedBy:)`'s pieces less one, for the rules' ASCII needles.
    @Test func countsOfParenthesesAreThoseOfTheSplitPieces() {
        var rng = SplitMix(seed: 0xc0_77)
        let pieces = ["(", "(?", "\\(", "\\", "?", "a", "é", "((", "(?:", "\\\\("]
        for _ in 0..<3000 {
            var str = ""
            for _ in 0..<Int.random(in: 0...8, using: &rng) { str += pieces.randomElement(using: &rng) ?? "" }
            for needle in ["(", "(?", "\\("] {
                #expect(VB.count(VB.bytes(str), VB.bytes(needle)) == str.components(separatedBy: needle).count - 1,
                        "\(str.debugDescription) \(needle)")
            }
        }
    }

    /// The first place a needle starts, compared byte by byte.
    static func naiveIndex(_ hay: [UInt8], _ needle: [UInt8], from: Int) -> Int? {
        guard from >= 0, hay.count - from >= needle.count else { return needle.isEmpty && from == hay.count ? from : nil }
        for i in from...(hay.count - needle.count) where Array(hay[i..<(i + needle.count)]) == needle { return i }
        return nil
    }

    /// Needles longer than 256 bytes take the first-byte search, and memmem after eight false
    /// starts: texts with many of them (a needle of repeated words) and with none.
    @Test func longNeedlesAreFoundWhereTheyFirstStart() {
        var rng = SplitMix(seed: 0x1d_e8)
        let words = ["the ", "then ", "t", "th", "e", "\n", "é "]
        for _ in 0..<300 {
            var hay: [UInt8] = []
            for _ in 0..<Int.random(in: 0...700, using: &rng) { hay += Array((words.randomElement(using: &rng) ?? "").utf8) }
            let needle: [UInt8]
            if hay.count > 300, Bool.random(using: &rng) {
                let start = Int.random(in: 0...(hay.count - 257), using: &rng)
                needle = Array(hay[start..<min(hay.count, start + Int.random(in: 257...400, using: &rng))])
            } else {
                var n: [UInt8] = []
                while n.count < 257 { n += Array((words.randomElement(using: &rng) ?? "").utf8) }
                needle = n
            }
            let from = hay.isEmpty ? 0 : Int.random(in: 0...min(hay.count, 40), using: &rng)
            #expect(VB.index(hay, needle, from: from) == Self.naiveIndex(hay, needle, from: from))
        }
    }
}
