import Testing
@testable import TKCore

/// Counting on from a cursor gives the offset counting from the line's start gives, whatever the
/// order the places come in.
@Suite struct ValeLineStartsTests {
    @Test func aCursorCountsOnToTheSameOffset() {
        var rng = SplitMix(seed: 0x11e5_7a27)
        let pieces = ["a", "bc", "é", "’", "😀", " ", "\n", "\r\n", "\r", "word", "—", "\n\n"]
        for _ in 0..<200 {
            var text = ""
            for _ in 0..<Int.random(in: 0...80, using: &rng) { text += pieces.randomElement(using: &rng) ?? "" }
            let lines = ValeLineStarts(Array(text.utf8))
            var places: [(Int, Int)] = (0..<40).map { _ in (Int.random(in: 0...6, using: &rng), Int.random(in: 0...30, using: &rng)) }
            if Bool.random(using: &rng) { places.sort { $0 < $1 } }
            var cursor = ValeLineStarts.Cursor()
            for (line, column) in places {
                #expect(lines.offset(line: line, column: column, cursor: &cursor) == lines.offset(line: line, column: column),
                        "\(text.debugDescription) \(line):\(column)")
            }
        }
    }
}
