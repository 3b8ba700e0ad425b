import Foundation

/// The journey state machine and the suggestion lifecycle, driven by the writer's own edits.
public enum JourneyEngine {
    /// Called whenever a document's content changed (or it was first seen).
    public static func documentChanged(_ sidecar: inout ReviewSidecar, document: MarkdownDocument,
                                       config: Configuration, catalog: AdvisorCatalog) {
        let tk = document.frontMatter.tk
        if let s = tk.storyType ?? config.storyType { sidecar.journey.storyType = s }
        if !tk.advisors.isEmpty {
            sidecar.journey.advisors = tk.advisors
        } else if sidecar.journey.advisors.isEmpty {
            sidecar.journey.advisors = config.advisors
                ?? catalog.storyType(sidecar.journey.storyType ?? "")?.defaultAdvisors ?? []
        }
        if let d = (tk.draftStage ?? config.draftStage).flatMap(DraftStage.init(rawValue:)) { sidecar.journey.draftStage = d }
        if let stage = tk.stage.flatMap(JourneyStage.init(rawValue:)) {
            sidecar.journey.stage = stage
        } else if sidecar.journey.stage == .canvas, document.wordCount > 0 {
            sidecar.journey.stage = .draft
        }
    }
}
