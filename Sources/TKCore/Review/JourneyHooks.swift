// Stand-ins for the journey branch's hooks, with the same signatures. Delete this file at merge.

extension JourneyEngine {
    /// A review round finished with `suggestions` (already added to the sidecar by the queue).
    public static func roundFinished(_ sidecar: inout ReviewSidecar, round: Round, suggestions: [Suggestion]) {
        sidecar.journey.stage = .revise
        sidecar.journey.revisionCycle += 1
        sidecar.journey.stats.received += suggestions.count
    }

    /// The writer asked for a review by hand: a final document goes back to `revise`.
    @discardableResult
    public static func reviewRequested(_ sidecar: inout ReviewSidecar) -> Bool {
        guard sidecar.journey.stage == .final else { return false }
        sidecar.journey.stage = .revise
        return true
    }

    /// Whether the agent may start a round on its own: never for a final document.
    public static func allowsAutomaticReview(_ sidecar: ReviewSidecar) -> Bool {
        sidecar.journey.stage != .final
    }
}
