import Foundation
import Testing
@testable import TKCore

/// A sidecar with one round of suggestions anchored in `text`.
private func seeded(_ text: String, _ pairs: [(String, String)]) -> (ReviewSidecar, [UInt8]) {
    let bytes = Array(text.utf8)
    var sidecar = ReviewSidecar(document: "a.md", sha256: SHA256Digest.hex(bytes), updatedAt: "", words: 10,
                                journey: JourneyState(stage: .draft))
    let raw = pairs.map {
        RawSuggestion(advisorId: "editor", type: .rephrase, originalText: $0.0, suggestedText: $0.1, reasoning: "",
                      priority: 2, confidence: 0.8)
    }
    let report = AnchoredSuggestion.build(raw, document: bytes, round: "r1")
    JourneyEngine.roundFinished(&sidecar, round: Round(id: "r1", cycle: 0, status: .done, advisors: ["editor"], queuedAt: ""),
                                suggestions: report.suggestions)
    return (sidecar, bytes)
}

/// Saves a new version and returns the update.
@discardableResult
private func save(_ sidecar: inout ReviewSidecar, _ text: String, previous: [UInt8]?) -> JourneyUpdate {
    let doc = MarkdownDocument(bytes: Array(text.utf8), fileName: "a.md")
    return JourneyEngine.documentChanged(&sidecar, document: doc, config: .defaults, catalog: .builtIn, previous: previous)
}

/// Checks that a pending suggestion's positions describe the bytes exactly.
private func expectAnchored(_ s: Suggestion, in text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let bytes = Array(text.utf8)
    guard let start = s.start, let end = s.end else {
        Issue.record("no position", sourceLocation: sourceLocation)
        return
    }
    #expect(String(decoding: bytes[start..<end], as: UTF8.self) == s.originalText, sourceLocation: sourceLocation)
    let pos = Anchoring.position(of: start, in: bytes)
    #expect(s.line == pos.line && s.column == pos.column, sourceLocation: sourceLocation)
}

@Suite struct TextDiffTests {
    @Test func identicalHasNoHunks() {
        #expect(TextDiff(old: Array("abc\n".utf8), new: Array("abc\n".utf8)).hunks.isEmpty)
    }

    @Test func splitsChangesWithinOneLine() {
        let d = TextDiff(old: Array("one two three four five\n".utf8), new: Array("ONE two three four FIVE\n".utf8))
        #expect(d.hunks.count == 2)
    }

    @Test func narrowsToChangedBytes() {
        let d = TextDiff(old: Array("one\nthe big dog\nthree\n".utf8), new: Array("one\nthe huge dog\nthree\n".utf8))
        #expect(d.hunks == [TextDiff.Hunk(old: 8..<11, new: 8..<12)])
    }

    @Test func mapsAcrossInsertionsAbove() {
        let old = Array("a\nkeep this\n".utf8)
        let new = Array("inserted line\na\nkeep this\n".utf8)
        let d = TextDiff(old: old, new: new)
        #expect(d.map(2..<11) == .untouched(16..<25))
    }

    @Test(.timeLimit(.minutes(1))) func largeDocumentsStayFast() {
        let lines = (0..<20_000).map { "Line number \($0) with some words in it.\n" }
        let old = Array(lines.joined().utf8)
        var changed = lines
        changed[10_000] = "A rewritten line.\n"
        changed.insert("An inserted line.\n", at: 50)
        let d = TextDiff(old: old, new: Array(changed.joined().utf8))
        #expect(d.hunks.count >= 2)
        let target = old.count - 100
        if case .untouched(let r) = d.map(target..<(target + 10)) {
            #expect(r.lowerBound == target + Array("An inserted line.\n".utf8).count + (18 - Array(lines[10_000].utf8).count))
        } else {
            Issue.record("expected untouched")
        }
    }

    @Test func multiByteBoundaries() {
        let d = TextDiff(old: Array("café au lait\n".utf8), new: Array("cafè au lait\n".utf8))
        for h in d.hunks {
            #expect(h.old.lowerBound == 3 && h.old.upperBound == 5)
        }
    }
}

@Suite struct JourneyEngineTests {
    let text = "# T\n\nThe very big dog barks.\n\nIt was a dark and stormy night.\n\nWe utilize tools daily.\n\nThe end is near.\n"

    @Test func stagesFromCanvasToRevise() {
        var s = ReviewSidecar(document: "a.md", sha256: "", updatedAt: "", words: 0)
        save(&s, "", previous: nil)
        #expect(s.journey.stage == .canvas)
        save(&s, "Some words here.\n", previous: nil)
        #expect(s.journey.stage == .draft)
        JourneyEngine.roundFinished(&s, round: Round(id: "r1", cycle: 0, status: .done, advisors: [], queuedAt: ""), suggestions: [])
        #expect(s.journey.stage == .revise && s.journey.revisionCycle == 1)
        _ = try? JourneyEngine.set(&s, stage: "final", catalog: .builtIn)
        #expect(!JourneyEngine.allowsAutomaticReview(s))
        #expect(JourneyEngine.reviewRequested(&s))
        #expect(s.journey.stage == .revise)
    }

    @Test func roundFinishedCountsSuggestionsTheCallerAddedAlready() {
        var (s, _) = seeded(text, [("very big dog", "huge dog")])
        var extra = s.suggestions[0]
        extra.id = "s2"
        extra.round = "r2"
        s.suggestions.append(extra)
        let round = Round(id: "r2", cycle: 0, status: .done, advisors: [], queuedAt: "")
        s.rounds.append(round)
        JourneyEngine.roundFinished(&s, round: round, suggestions: [extra])
        #expect(s.suggestions.count == 2 && s.rounds.count == 2)
        #expect(s.journey.stats.received == 2 && s.journey.revisionCycle == 2)
        #expect(s.rounds[1].cycle == 2 && s.journey.cycleStats?["2"]?.received == 1)
    }

    @Test func frontMatterFinalAndPrecedence() throws {
        var s = ReviewSidecar(document: "a.md", sha256: "", updatedAt: "", words: 0)
        try JourneyEngine.set(&s, storyType: "technical_docs", draftStage: "late", catalog: .builtIn)
        save(&s, "Words.\n", previous: nil)
        #expect(s.journey.storyType == "technical_docs")
        #expect(s.journey.advisors == ["technical_writer", "editor", "recent_graduate"])
        #expect(s.journey.draftStage == .late)
        save(&s, "---\ntk:\n  story_type: blog_personal\n  stage: final\n---\nWords.\n", previous: nil)
        #expect(s.journey.storyType == "blog_personal")
        #expect(s.journey.advisors == ["creative_writer", "editor"])
        #expect(s.journey.stage == .final)
    }

    @Test func lifecycleThroughEdits() {
        var (s, bytes) = seeded(text, [("very big dog", "huge dog"), ("dark and stormy night", "storm"),
                                       ("We utilize tools", "We use tools"), ("The end is near.", "The end nears.")])
        #expect(s.suggestions.count == 4)
        // Apply one (ignoring case), rewrite another freely, insert text above the fourth.
        let v2 = "# T\n\nThe HUGE  dog barks.\n\nIt was a night to remember.\n\nWe utilize tools daily.\n\nNew paragraph — déjà vu.\n\nThe end is near.\n"
        let u = save(&s, v2, previous: bytes)
        #expect(s.suggestions[0].status == .accepted)
        #expect(s.suggestions[1].status == .edited)
        #expect(s.suggestions[2].status == .pending)
        #expect(s.suggestions[3].status == .pending)
        expectAnchored(s.suggestions[2], in: v2)
        expectAnchored(s.suggestions[3], in: v2)
        #expect(s.suggestions[0].start == nil)
        #expect(u.transitions.count == 2)
        #expect(s.journey.stats == SuggestionStats(received: 4, accepted: 1, edited: 1, skipped: 0))
        #expect(s.journey.cycleStats?["1"] == SuggestionStats(received: 4, accepted: 1, edited: 1, skipped: 0))
        #expect(!u.needsReadyNotification)
        // Edit inside the third passage's line but outside it; skip the last; then accept the third.
        bytes = Array(v2.utf8)
        let v3 = v2.replacingOccurrences(of: "tools daily", with: "tools every single day")
        save(&s, v3, previous: bytes)
        #expect(s.suggestions[2].status == .pending)
        expectAnchored(s.suggestions[2], in: v3)
        _ = try? JourneyEngine.mark(&s, id: s.suggestions[3].id, as: .skipped)
        let v4 = v3.replacingOccurrences(of: "We utilize tools", with: "We use tools")
        let last = save(&s, v4, previous: Array(v3.utf8))
        #expect(s.suggestions[2].status == .accepted)
        #expect(last.needsReadyNotification)
        #expect(last.readyMessage?.contains("4 suggestions") == true)
        #expect(s.journey.stats == SuggestionStats(received: 4, accepted: 2, edited: 1, skipped: 1))
        // Only once per cycle.
        #expect(!save(&s, v4 + "More.\n", previous: Array(v4.utf8)).needsReadyNotification)
    }

    @Test func withoutPreviousBytesFindsPassagesAgain() {
        var (s, _) = seeded(text, [("very big dog", "huge dog"), ("The end is near.", "The end nears.")])
        let v2 = "Intro line added.\n" + text.replacingOccurrences(of: "very big dog", with: "huge dog")
        save(&s, v2, previous: nil)
        #expect(s.suggestions[0].status == .accepted)
        #expect(s.suggestions[1].status == .pending)
        expectAnchored(s.suggestions[1], in: v2)
    }

    @Test func whitespaceOnlyChangeKeepsPending() {
        var (s, bytes) = seeded(text, [("dark and stormy night", "storm")])
        let v2 = text.replacingOccurrences(of: "dark and stormy", with: "dark and\nstormy")
        save(&s, v2, previous: bytes)
        #expect(s.suggestions[0].status == .pending)
        expectAnchored(s.suggestions[0], in: v2)
    }

    @Test func multiByteTextAround() {
        let t = "Ünïcödé — prelude.\n\nThe 🐕 very big dog barks.\n"
        var (s, bytes) = seeded(t, [("very big dog", "huge dog")])
        let v2 = "Ünïcödé — prelude, ñ 🎉 more.\n\nThe 🐕 very big dog barks.\n"
        save(&s, v2, previous: bytes)
        #expect(s.suggestions[0].status == .pending)
        expectAnchored(s.suggestions[0], in: v2)
        #expect(s.suggestions[0].column == 7)
    }

    @Test func editsOnBothSidesOfAPassageInOneParagraph() {
        let t = "Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu.\n"
        var (s, bytes) = seeded(t, [("delta epsilon zeta", "d e z"), ("Alpha", "A")])
        let v2 = t.replacingOccurrences(of: "Alpha", with: "A").replacingOccurrences(of: "lambda", with: "LAMBDA!")
        save(&s, v2, previous: bytes)
        #expect(s.suggestions[0].status == .pending)
        #expect(s.suggestions[1].status == .accepted)
        expectAnchored(s.suggestions[0], in: v2)
    }

    @Test func movedParagraphKeepsItsSuggestion() {
        var (s, bytes) = seeded(text, [("dark and stormy night", "storm"), ("We utilize tools", "We use tools")])
        let v2 = "# T\n\nIt was a dark and stormy night.\n\nThe very big dog barks.\n\nWe utilize tools daily.\n\nThe end is near.\n"
        save(&s, v2, previous: bytes)
        #expect(s.suggestions.map(\.status) == [.pending, .pending])
        expectAnchored(s.suggestions[0], in: v2)
        expectAnchored(s.suggestions[1], in: v2)
    }

    @Test func removalIsAccepted() {
        var (s, bytes) = seeded(text, [(" and stormy", "")])
        let v2 = text.replacingOccurrences(of: " and stormy", with: "")
        save(&s, v2, previous: bytes)
        #expect(s.suggestions[0].status == .accepted)
    }

    @Test func sealDetectsHandEdits() throws {
        let s = ReviewSidecar(document: "a.md", sha256: "x", updatedAt: "", words: 1)
        let bytes = try SidecarStore.encode(s)
        #expect(!SidecarStore.editedByHand(bytes: bytes))
        #expect(try JSON.decode(ReviewSidecar.self, from: bytes) == s)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(SidecarStore.editedByHand(bytes: Array(text.replacingOccurrences(of: "\"words\" : 1", with: "\"words\" : 2").utf8)))
        #expect(SidecarStore.editedByHand(bytes: Array(text.replacingOccurrences(of: "{\n  \"checksum", with: "{\"checksum").utf8)))
        #expect(!SidecarStore.editedByHand(bytes: try JSON.encode(s)))
    }
}

@Suite struct DocumentStateStoreTests {
    @Test func recordMoveRemove() throws {
        let db = try AppDatabase.inMemory()
        let store = DocumentStateStore(database: db)
        let root = PathBytes("/p")
        var s = ReviewSidecar(document: "a.md", sha256: "x", updatedAt: "", words: 1)
        s.suggestions = [Suggestion(id: "s1", round: "r1", advisorId: "editor", type: .fix, originalText: "a",
                                    suggestedText: "b", reasoning: "", priority: 1, confidence: 1)]
        try store.record(project: root, document: PathBytes("a.md"), sidecar: s, content: Array("abc".utf8))
        #expect(store.load(project: root, document: PathBytes("a.md"))?.content == Array("abc".utf8))
        #expect(store.documents(mentioning: "s1") == [DocumentLocation(project: root, relative: PathBytes("a.md"))])
        #expect(try db.journeyFacts(project: root)[PathBytes("a.md")] == JourneyFact(stage: .canvas, pendingSuggestions: 1))
        try store.moved(project: root, from: PathBytes("a.md"), to: PathBytes("b.md"))
        #expect(store.load(project: root, document: PathBytes("a.md")) == nil)
        #expect(store.load(project: root, document: PathBytes("b.md"))?.sidecar?.suggestions.count == 1)
        try store.removed(project: root, document: PathBytes("b.md"))
        #expect(store.load(project: root, document: PathBytes("b.md")) == nil)
    }
}

/// A small deterministic generator for the randomized test.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct JourneyRandomEditTests {
    /// Whatever the writer does, pending suggestions always point at exactly their text, and the stats add up.
    @Test(arguments: 1...80) func positionsStayExact(seed: Int) {
        var rng = SplitMix64(state: UInt64(seed))
        let words = ["alpha", "beta", "gamma", "délta", "ε", "zeta", "🐕", "theta", "iota", "kappa", "naïve", "mu"]
        func sentence() -> String {
            (0..<Int.random(in: 4...9, using: &rng)).map { _ in words.randomElement(using: &rng) ?? "x" }.joined(separator: " ") + "."
        }
        var text = (0..<6).map { _ in sentence() }.joined(separator: "\n\n") + "\n"
        let parts = text.components(separatedBy: "\n\n").prefix(5)
        let pairs = parts.enumerated().map { (k, p) in (String(p.split(separator: " ").prefix(3).joined(separator: " ")), "SUGGESTION \(k)") }
        var (s, bytes) = seeded(text, pairs)
        let received = s.suggestions.count
        for _ in 0..<12 {
            var applied: String?
            var rewritten: String?
            var chars = Array(text.unicodeScalars)
            switch Int.random(in: 0..<6, using: &rng) {
            case 0:  // insert a sentence somewhere
                let at = Int.random(in: 0...chars.count, using: &rng)
                chars.insert(contentsOf: (" " + sentence() + " ").unicodeScalars, at: at)
            case 1:  // delete a short run
                if chars.count > 10 {
                    let at = Int.random(in: 0..<(chars.count - 5), using: &rng)
                    chars.removeSubrange(at..<(at + Int.random(in: 1...5, using: &rng)))
                }
            case 2:  // apply a pending suggestion
                if let p = s.suggestions.first(where: { $0.status == .pending }), let st = p.start, let en = p.end {
                    var b = Array(text.utf8)
                    b.replaceSubrange(st..<en, with: Array(p.suggestedText.utf8))
                    applied = p.id
                    chars = Array(String(decoding: b, as: UTF8.self).unicodeScalars)
                }
            case 3:  // new paragraph at the top
                chars.insert(contentsOf: (sentence() + "\n\n").unicodeScalars, at: 0)
            case 4:  // move the last paragraph to the top
                var paras = text.components(separatedBy: "\n\n")
                if paras.count > 2, let last = paras.popLast() {
                    paras.insert(last.trimmingCharacters(in: .newlines), at: 0)
                    chars = Array((paras.joined(separator: "\n\n") + "\n").unicodeScalars)
                }
            default:  // rewrite a pending passage in the writer's own words
                if let p = s.suggestions.first(where: { $0.status == .pending }), let st = p.start, let en = p.end {
                    var b = Array(text.utf8)
                    b.replaceSubrange(st..<en, with: Array("writer's own words".utf8))
                    rewritten = p.id
                    chars = Array(String(decoding: b, as: UTF8.self).unicodeScalars)
                }
            }
            var next = String.UnicodeScalarView()
            next.append(contentsOf: chars)
            text = String(next)
            save(&s, text, previous: bytes)
            bytes = Array(text.utf8)
            for p in s.suggestions where p.status == .pending { expectAnchored(p, in: text) }
            if let applied { #expect(s.suggestions.first { $0.id == applied }?.status == .accepted) }
            if let rewritten { #expect(s.suggestions.first { $0.id == rewritten }?.status == .edited) }
        }
        let st = s.journey.stats
        let pending = s.suggestions.filter { $0.status == .pending }.count
        #expect(st.received == received && st.accepted + st.edited + st.skipped + pending == received)
    }
}
