import Testing
@testable import TKCore

@Suite struct WordGoalTests {
    @Test func readFromTheFrontMatter() {
        #expect(WordGoal.read(Array("---\ntitle: T\nword_goal: 2500\n---\n\nText.\n".utf8)) == 2500)
        #expect(WordGoal.read(Array("---\nword-goal: \"800\"\n---\nText.\n".utf8)) == 800)
        // Not positive, not a number, nested elsewhere, or no front matter: no goal.
        #expect(WordGoal.read(Array("---\nword_goal: 0\n---\n".utf8)) == nil)
        #expect(WordGoal.read(Array("---\nword_goal: lots\n---\n".utf8)) == nil)
        #expect(WordGoal.read(Array("---\nnotes:\n  word_goal: 10\n---\n".utf8)) == nil)
        #expect(WordGoal.read(Array("word_goal: 10\n".utf8)) == nil)
    }

    @Test func readingOrderIsPartOfTheTKBlock() {
        let (fm, problem) = FrontMatter.parse(Array("---\ntk:\n  order: 2.5\n---\n".utf8))
        #expect(problem == nil && fm.tk.order == 2.5)
        #expect(FrontMatter.parse(Array("---\ntk:\n  order: first\n---\n".utf8)).0.tk.order == nil)
    }
}
