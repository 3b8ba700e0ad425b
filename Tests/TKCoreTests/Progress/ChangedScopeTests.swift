import Foundation
import Testing
@testable import TKCore

@Suite struct ChangedScopeTests {
    func document(_ n: Int, change: Int? = nil) -> [UInt8] {
        var paras = ["# Title"]
        for i in 0..<n {
            paras.append(i == change ? "Paragraph \(i) was rewritten by the writer today." : "Paragraph \(i) says something long enough to matter here.")
        }
        return Array((paras.joined(separator: "\n\n") + "\n").utf8)
    }

    @Test func theChangedParagraphWithItsNeighboursIsTheFocus() throws {
        let f = try #require(ChangedScope.focus(old: document(200), new: document(200, change: 100), budgetTokens: 0))
        #expect(f.changedParagraphs == 1)
        #expect(f.excerpt.contains("<changed>\nParagraph 100 was rewritten by the writer today.\n</changed>"))
        #expect(f.excerpt.contains("Paragraph 99 says") && f.excerpt.contains("Paragraph 101 says"))
        #expect(!f.excerpt.contains("Paragraph 98 says"))
        // Headings come first within the budget.
        let g = try #require(ChangedScope.focus(old: document(200), new: document(200, change: 100), budgetTokens: 20))
        #expect(g.excerpt.hasPrefix("# Title"))
        let new = document(200, change: 100)
        #expect(String(decoding: new[f.changed[0]], as: UTF8.self) == "Paragraph 100 was rewritten by the writer today.")
    }

    @Test func nothingOrTooMuchChangedSendsEverything() {
        #expect(ChangedScope.focus(old: document(10), new: document(10)) == nil)
        let rewritten = Array(String(decoding: document(10), as: UTF8.self).replacingOccurrences(of: "says", with: "said").utf8)
        #expect(ChangedScope.focus(old: document(10), new: rewritten) == nil)
    }

    @Test func automaticRoundsReadTheChangesRoundsAskedForReadAll() {
        let p = ReviewRunner.Prepared(
            bytes: document(50, change: 20), document: MarkdownDocument(bytes: document(50, change: 20), fileName: "a.md"),
            roles: [], storyType: nil, draftStage: nil,
            prompt: RenderedPrompt(system: "s", user: "full", schema: nil, schemaName: nil), contentSha: "x", exclusion: nil)
        let auto = ChangedScope.apply(p, previous: document(50), scope: nil, manual: false, documentPath: "a.md")
        #expect(auto.focus != nil && auto.prompt.user.contains("<changed>"))
        #expect(ChangedScope.apply(p, previous: document(50), scope: nil, manual: true, documentPath: "a.md").prompt.user == "full")
        #expect(ChangedScope.apply(p, previous: document(50), scope: .changed, manual: true, documentPath: "a.md").focus != nil)
        #expect(ChangedScope.apply(p, previous: nil, scope: .changed, manual: false, documentPath: "a.md").prompt.user == "full")
    }
}
