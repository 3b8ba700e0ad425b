import Testing
@testable import TKCore

@Suite struct CouncilSynthesisTests {
    func p(_ id: String, _ points: [String], _ sentiment: String = "neutral") -> CouncilPerspective {
        CouncilPerspective(advisorId: id, name: id, perspective: points.first ?? "", points: points, sentiment: sentiment)
    }

    @Test func consensusNeedsMoreThanHalfTheAdvisors() {
        let a = CouncilSynthesis.analyse([
            p("editor", ["The opening sentence is clear and strong"]),
            p("copywriter", ["The opening sentence is clear and engaging"]),
            p("ux_writer", ["Jargon in the second paragraph"]),
            p("general", ["Headings need parallel structure"]),
        ])
        // 2 of 4 is not more than half.
        #expect(a.consensus.isEmpty)
        #expect(a.uniqueInsights.count == 2)

        let b = CouncilSynthesis.analyse([
            p("editor", ["The opening sentence is clear and strong"]),
            p("copywriter", ["The opening sentence is clear and engaging"]),
            p("ux_writer", ["Jargon in the second paragraph"]),
        ])
        #expect(b.consensus.count == 1)
        #expect(b.consensus[0].advisors == ["editor", "copywriter"])
        #expect(b.consensus[0].variants.count == 2)
        #expect(b.uniqueInsights.map(\.advisorId) == ["ux_writer"])
    }

    @Test func pointsWithLittleOverlapStaySeparate() {
        let a = CouncilSynthesis.analyse([
            p("editor", ["The conclusion repeats the introduction"]),
            p("copywriter", ["Pricing table lacks a call to action"]),
        ])
        #expect(a.consensus.isEmpty)
        #expect(a.uniqueInsights.count == 2)
    }

    @Test func oppositeSentimentOnOneTopicIsADisagreement() {
        let a = CouncilSynthesis.analyse([
            p("editor", ["The ending feels abrupt and weak"], "negative"),
            p("copywriter", ["The ending is strong and memorable"], "positive"),
            p("ux_writer", ["Add subheadings"], "neutral"),
        ])
        #expect(a.disagreements.count == 1)
        #expect(a.disagreements[0].topic == "ending")
        #expect(Set(a.disagreements[0].positions.map(\.advisorId)) == ["editor", "copywriter"])
        #expect(!a.uniqueInsights.contains { $0.point.contains("ending") })
        #expect(a.sentiment.overall == "mixed")
    }

    @Test func overallSentiment() {
        #expect(CouncilSynthesis.analyse([p("a", ["x1"], "positive"), p("b", ["y2"], "positive"), p("c", ["z3"])])
            .sentiment.overall == "positive")
        #expect(CouncilSynthesis.analyse([p("a", ["x1"], "negative"), p("b", ["y2"], "negative")])
            .sentiment.overall == "negative")
        #expect(CouncilSynthesis.analyse([p("a", ["x1"]), p("b", ["y2"])]).sentiment.overall == "neutral")
    }

    @Test func failedAdvisorsAreLeftOut() {
        var failed = p("editor", [])
        failed.error = "timed out"
        let a = CouncilSynthesis.analyse([failed, p("copywriter", ["Tighten the intro"]), p("ux_writer", ["Tighten the intro paragraph"])])
        #expect(a.consensus.first?.advisors == ["copywriter", "ux_writer"])
        #expect(a.sentiment.neutral == 2)
    }

    @Test func overlapIsSharedOverTheSmallerSet() {
        #expect(CouncilSynthesis.overlap(["opening", "clear"], ["opening", "clear", "strong"]) == 1)
        #expect(CouncilSynthesis.overlap([], ["a"]) == 0)
        #expect(CouncilSynthesis.pointSentiment("The intro is not clear", fallback: "positive") == "negative")
        #expect(CouncilSynthesis.pointSentiment("Add a table", fallback: "neutral") == "neutral")
    }
}
