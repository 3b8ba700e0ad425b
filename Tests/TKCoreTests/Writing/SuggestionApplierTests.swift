import Testing
@testable import TKCore

@Suite struct SuggestionApplierTests {
    let doc = Array("The very unique cat sat. It was really quite big.\n".utf8)

    func s(_ original: String, _ replacement: String, priority: Int = 3, confidence: Double = 0.5) -> Suggestion {
        let text = String(decoding: doc, as: UTF8.self)
        let r = text.range(of: original)!
        let start = text.utf8.distance(from: text.startIndex, to: r.lowerBound)
        return Suggestion(id: original, round: "t", advisorId: "editor", type: .rephrase, originalText: original,
                          suggestedText: replacement, reasoning: "", priority: priority, confidence: confidence,
                          start: start, end: start + original.utf8.count, line: 1, column: start + 1)
    }

    @Test func appliesNonOverlappingEditsInDocumentOrder() {
        let out = SuggestionApplier.apply([s("really quite ", ""), s("very unique", "unique")], to: doc)
        #expect(String(decoding: out.bytes, as: UTF8.self) == "The unique cat sat. It was big.\n")
        #expect(out.applied.count == 2)
        #expect(out.skipped.isEmpty)
    }

    @Test func theMoreImportantOfTwoOverlappingEditsWins() {
        let out = SuggestionApplier.apply([s("very unique cat", "unique cat", priority: 3),
                                           s("unique", "singular", priority: 1)], to: doc)
        #expect(String(decoding: out.bytes, as: UTF8.self).hasPrefix("The very singular cat"))
        #expect(out.skipped.count == 1)
    }

    @Test func editsOutsideTheDocumentAreSkipped() {
        let out = SuggestionApplier.apply([SuggestionApplier.Edit(start: 5, end: 999, text: "x")], to: doc)
        #expect(out.bytes == doc)
        #expect(out.skipped.count == 1)
    }

    @Test func multibyteTextKeepsOffsets() {
        let bytes = Array("Café — naïve words.\n".utf8)
        let text = String(decoding: bytes, as: UTF8.self)
        let r = text.range(of: "naïve")!
        let start = text.utf8.distance(from: text.startIndex, to: r.lowerBound)
        let out = SuggestionApplier.apply([SuggestionApplier.Edit(start: start, end: start + "naïve".utf8.count, text: "simple")],
                                          to: bytes)
        #expect(String(decoding: out.bytes, as: UTF8.self) == "Café — simple words.\n")
    }
}
