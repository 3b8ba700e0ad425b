import Testing
@testable import TKCore

@Suite struct WritingEngineTests {
    let doc = Array("# Title\n\nThis is a very unique sentence. It is really quite good.\n".utf8)
    var editor: Role { AdvisorCatalog.builtIn.role("editor")! }
    var copywriter: Role { AdvisorCatalog.builtIn.role("copywriter")! }

    @Test func suggestAnchorsAndFilters() async throws {
        let p = ScriptedProvider()
        p.enqueue("""
            {"suggestions": [
              {"advisor_id": "editor", "type": "rephrase", "original_text": "very unique", "suggested_text": "unique", "confidence": 0.9},
              {"advisor_id": "editor", "type": "remove", "original_text": "really quite ", "suggested_text": "", "confidence": 0.3},
              {"advisor_id": "editor", "type": "fix", "original_text": "not there", "suggested_text": "x"}]}
            """)
        let r = try await SuggestEngine(provider: p).run(SuggestRequest(document: doc, documentPath: "a.md",
                                                                        advisors: [editor], minConfidence: 0.5))
        #expect(r.suggestions.map(\.originalText) == ["very unique"])
        #expect(r.suggestions[0].line == 3)
        #expect(r.unanchored == 1)
        #expect(r.usage.calls == 1)
        #expect(p.requests.count == 1)
    }

    @Test func unreadablePanelReplyFallsBackToOneCallPerAdvisor() async throws {
        let p = ScriptedProvider()
        p.enqueue("Sorry, I cannot help with that.")
        p.enqueue(#"{"suggestions": [{"type": "rephrase", "original_text": "very unique", "suggested_text": "unique"}]}"#)
        p.enqueue(#"{"suggestions": []}"#)
        let r = try await SuggestEngine(provider: p).run(SuggestRequest(document: doc, documentPath: "a.md",
                                                                        advisors: [editor, copywriter]))
        #expect(r.fellBack)
        #expect(p.requests.count == 3)
        #expect(r.suggestions.map(\.advisorId) == ["editor"])
        #expect(r.usage.calls == 3)
    }

    @Test func councilCallsEveryAdvisorAndSurvivesOneFailure() async throws {
        let p = ScriptedProvider()
        p.enqueue(#"{"perspective": "Clear.", "points": ["The opening is clear"], "sentiment": "positive"}"#)
        p.enqueue(error: .timedOut("timed out"))
        let r = try await CouncilEngine(provider: p).run(question: "Opening?", advisors: [editor, copywriter],
                                                         document: "x", documentPath: "a.md", storyType: nil, model: nil)
        #expect(p.requests.count == 2)
        #expect(r.perspectives.count == 2)
        #expect(r.perspectives.filter { $0.error != nil }.count == 1)
    }

    @Test func councilThrowsWhenEveryAdvisorFails() async {
        let p = ScriptedProvider()
        p.enqueue(error: .notConfigured("no provider"))
        p.enqueue(error: .notConfigured("no provider"))
        await #expect(throws: LLMProviderError.notConfigured("no provider")) {
            _ = try await CouncilEngine(provider: p).run(question: "q", advisors: [editor, copywriter], document: nil,
                                                         documentPath: nil, storyType: nil, model: nil)
        }
    }

    @Test func passagesCarryContextAndTheirParagraph() throws {
        let text = "# T\n\nFirst line of para.\nSecond line.\nThird line.\n\nOther paragraph.\n"
        let p = try AskEngine.passage(in: text, lines: 4, 4)
        #expect(p.text == "Second line.")
        #expect(p.context.contains("First line of para."))
        #expect(p.context.contains("Third line."))
        #expect(throws: PassageError.lineOutOfRange(line: 99, lines: 7)) { try AskEngine.passage(in: text, lines: 99, 99) }
        #expect(throws: PassageError.self) { try AskEngine.passage(in: text, lines: 4, 2) }
        #expect(AskEngine.parseRange("3:5")! == (3, 5))
        #expect(AskEngine.parseRange("x:5") == nil)
    }

    @Test func contextIsAboutFiveHundredCharactersEachSide() throws {
        let lines = (1...200).map { "Line \($0) of a long single paragraph with words." }
        let p = try AskEngine.passage(in: lines.joined(separator: "\n") + "\n", lines: 100, 100)
        // One paragraph: the whole paragraph is the context.
        #expect(p.context.count > 5000)
        let spaced = lines.joined(separator: "\n\n") + "\n"
        let q = try AskEngine.passage(in: spaced, lines: 199, 199)
        #expect(q.context.count >= 1000 && q.context.count < 1300)
    }

    @Test func askHistoryRoundTrips() throws {
        let db = try AppDatabase.inMemory()
        #expect(try db.lastConversation(subject: "/a.md").isEmpty)
        try db.record(AskExchange(conversation: "c1", subject: "/a.md", roleId: "editor", question: "q1", prompt: "p1",
                                  answer: "a1", createdAt: "2026-11-23T10:00:00Z"))
        try db.record(AskExchange(conversation: "c1", subject: "/a.md", roleId: "editor", question: "q2", prompt: "p2",
                                  answer: "a2", createdAt: "2026-11-23T10:01:00Z"))
        try db.record(AskExchange(conversation: "c2", subject: "/b.md", roleId: "editor", question: "q", prompt: "p",
                                  answer: "a", createdAt: "2026-11-23T10:02:00Z"))
        let h = try db.lastConversation(subject: "/a.md")
        #expect(h.map(\.question) == ["q1", "q2"])
        let req = AskEngine.request(prompt: RenderedPrompt(system: "s", user: "p3"), history: h, model: nil,
                                    maxOutputTokens: 100)
        #expect(req.messages.map(\.content) == ["p1", "a1", "p2", "a2", "p3"])
    }
}
