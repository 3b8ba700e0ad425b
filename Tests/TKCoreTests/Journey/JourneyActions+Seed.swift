import Foundation
@testable import TKCore

// Test support only: the shipped binaries have no way to add suggestions without a review round
// (the e2e tests run real rounds against the fake provider server, Tests/e2e/fakellm.py).
extension JourneyActions {
    /// Adds a finished round with the given suggestions, anchored against the document as it is now
    /// (what the review queue does after a round).
    func seed(_ loc: DocumentLocation, suggestions raw: [RawSuggestion], roundID: String? = nil,
              now: Date = Date()) throws -> [Suggestion] {
        var added: [Suggestion] = []
        _ = try modify(loc) { sidecar, content in
            let bytes = try FileSystem.read(loc.absolute, limit: 64 << 20)
            let doc = MarkdownDocument(bytes: bytes, fileName: loc.relative.lastComponent.display)
            let sha = SHA256Digest.hex(bytes)
            if sidecar.sha256 != sha {
                _ = JourneyEngine.documentChanged(&sidecar, document: doc, config: configuration(project: loc.project),
                                                  catalog: catalog, previous: nil)
                sidecar.sha256 = sha
                sidecar.words = doc.wordCount
            }
            let id = roundID ?? "r\(sidecar.rounds.count + 1)-test"
            let report = AnchoredSuggestion.build(raw, document: bytes, round: id)
            let stamp = RFC3339.string(now)
            let round = Round(id: id, cycle: sidecar.journey.revisionCycle + 1, status: .done, provider: "test", model: nil,
                              advisors: Array(Set(raw.map(\.advisorId))).sorted(), queuedAt: stamp, startedAt: stamp,
                              finishedAt: stamp, usage: RoundUsage(), unanchored: report.unanchoredCount)
            JourneyEngine.roundFinished(&sidecar, round: round, suggestions: report.suggestions)
            added = report.suggestions
            content = bytes
        }
        return added
    }
}
