import Foundation

/// What `tk-agent journey set` chose for a document; the `tk:` front matter still wins over it.
public struct JourneyOverrides: Codable, Sendable, Equatable {
    public var storyType: String?
    public var advisors: [String]?
    public var draftStage: DraftStage?

    enum CodingKeys: String, CodingKey {
        case advisors
        case storyType = "story_type", draftStage = "draft_stage"
    }

    public init(storyType: String? = nil, advisors: [String]? = nil, draftStage: DraftStage? = nil) {
        self.storyType = storyType; self.advisors = advisors; self.draftStage = draftStage
    }

    public var isEmpty: Bool { storyType == nil && advisors == nil && draftStage == nil }
}

/// One suggestion whose status changed.
public struct SuggestionTransition: Sendable, Equatable {
    public var id: String
    public var from: SuggestionStatus
    public var to: SuggestionStatus
}

/// What `JourneyEngine.documentChanged` did.
public struct JourneyUpdate: Sendable, Equatable {
    /// Suggestions that became accepted or edited with this save.
    public var transitions: [SuggestionTransition] = []
    /// Pending suggestions whose position changed.
    public var moved = 0
    /// The stage before, when it changed.
    public var previousStage: JourneyStage?
    /// Every suggestion of the latest round is now addressed and nobody was told yet: notify once.
    public var needsReadyNotification = false
    /// The notification text (title is the document's name).
    public var readyMessage: String?
    public init() {}
}

/// Why a command could not change a suggestion.
public enum JourneyError: Error, CustomStringConvertible, Equatable {
    case unknownSuggestion(String)
    case unknownStoryType(String)
    case unknownAdvisor(String)
    case invalidStage(String)
    case invalidDraftStage(String)

    public var description: String {
        switch self {
        case .unknownSuggestion(let id):
            return "no suggestion \(id) in this document; list them with `tk-agent suggestions FILE`"
        case .unknownStoryType(let t):
            return "unknown story type \(t); see `tk-agent story-types list`"
        case .unknownAdvisor(let a):
            return "unknown advisor \(a); see `tk-agent roles list`"
        case .invalidStage(let s):
            return "unknown stage \(s); use one of canvas, draft, revise, final"
        case .invalidDraftStage(let s):
            return "unknown draft stage \(s); use one of early, middle, late"
        }
    }
}

/// The journey state machine and the suggestion lifecycle, driven by the writer's own edits.
///
/// Stages: a new empty document starts at `canvas`; writing moves it to `draft`; a finished review
/// round moves it to `revise` and increments `revision_cycle`; `journey set --stage final` or
/// `stage: final` in the `tk:` front matter finishes it; requesting a round on a final document
/// moves it back to `revise`. All functions are pure over the sidecar value.
public enum JourneyEngine {
    // MARK: Document changes

    /// Brings a sidecar's journey and suggestions in line with a new version of its document.
    ///
    /// - Parameters:
    ///   - sidecar: the sidecar as last written (its pending positions refer to `previous` when given).
    ///   - document: the document as it is now on disk.
    ///   - previous: the bytes the document had when the sidecar was last brought up to date, if known;
    ///     used to follow passages through the edit. Without them passages are found again by search.
    @discardableResult
    public static func documentChanged(
        _ sidecar: inout ReviewSidecar, document: MarkdownDocument, config: Configuration,
        catalog: AdvisorCatalog, previous: [UInt8]? = nil
    ) -> JourneyUpdate {
        var update = JourneyUpdate()
        applySettings(&sidecar.journey, tk: document.frontMatter.tk, config: config, catalog: catalog)
        let stageBefore = sidecar.journey.stage
        if let stage = document.frontMatter.tk.stage.flatMap({ JourneyStage(rawValue: $0.lowercased()) }) {
            sidecar.journey.stage = stage
        } else if sidecar.journey.stage == .canvas, document.wordCount > 0 {
            sidecar.journey.stage = .draft
        }
        if sidecar.journey.stage != stageBefore { update.previousStage = stageBefore }

        let lifecycle = followSuggestions(&sidecar, current: document.bytes, previous: previous)
        update.transitions = lifecycle.transitions
        update.moved = lifecycle.moved
        if let message = readyMessage(&sidecar) {
            update.needsReadyNotification = true
            update.readyMessage = message
        }
        return update
    }

    /// Story type, advisors and draft stage, as `DocumentSettings.resolve` gives them (front matter ›
    /// `journey set` › config › the story type's defaults).
    public static func applySettings(_ j: inout JourneyState, tk: TKBlock, config: Configuration, catalog: AdvisorCatalog) {
        let settings = DocumentSettings.resolve(frontMatter: tk, overrides: j.overrides, config: config, catalog: catalog)
        j.storyType = settings.storyType
        j.advisors = settings.advisors
        j.draftStage = settings.draftStage
    }

    // MARK: Suggestion lifecycle

    struct Lifecycle {
        var transitions: [SuggestionTransition] = []
        var moved = 0
    }

    /// Accepts, marks edited or re-anchors every pending suggestion against the current bytes.
    static func followSuggestions(_ sidecar: inout ReviewSidecar, current: [UInt8], previous: [UInt8]?) -> Lifecycle {
        var result = Lifecycle()
        guard sidecar.suggestions.contains(where: { $0.status == .pending }) else { return result }
        let diff = previous.map { TextDiff(old: $0, new: current) }
        let excluded = Anchoring.frontMatterRange(current).map { [$0] } ?? []
        let anchorer = Anchorer(document: current, excluded: excluded)
        var taken: [Range<Int>] = []
        for i in sidecar.suggestions.indices where sidecar.suggestions[i].status == .pending {
            let s = sidecar.suggestions[i]
            let outcome = follow(s, current: current, previous: previous, diff: diff, anchorer: anchorer, taken: taken)
            switch outcome {
            case .pending(let r):
                let text = String(decoding: current[r], as: UTF8.self)
                if r.lowerBound != s.start || r.upperBound != s.end { result.moved += 1 }
                sidecar.suggestions[i].originalText = text
                setPosition(&sidecar.suggestions[i], r, in: current)
                taken.append(r)
            case .accepted, .edited:
                let to: SuggestionStatus = outcome == .accepted ? .accepted : .edited
                setStatus(&sidecar, index: i, to)
                result.transitions.append(SuggestionTransition(id: s.id, from: .pending, to: to))
            }
        }
        return result
    }

    enum Outcome: Equatable {
        case pending(Range<Int>)
        case accepted
        case edited
    }

    /// Decides what happened to one pending suggestion.
    static func follow(_ s: Suggestion, current: [UInt8], previous: [UInt8]?, diff: TextDiff?,
                       anchorer: Anchorer, taken: [Range<Int>]) -> Outcome {
        let original = Array(s.originalText.utf8)
        // 1. Follow the passage through the edit when the previous bytes are the ones its positions describe.
        if let previous, let diff, let start = s.start, let end = s.end, start >= 0, start <= end, end <= previous.count,
           Array(previous[start..<end]) == original {
            func fits(_ r: Range<Int>) -> Bool { r.lowerBound >= 0 && r.upperBound <= current.count }
            switch diff.map(start..<end) {
            case .untouched(let r):
                if fits(r), Array(current[r]) == original { return .pending(r) }
            case .changed(let region, let inside, let shifted):
                guard fits(region) else { break }
                let text = String(decoding: current[region], as: UTF8.self)
                if standsFor(suggested: s.suggestedText, in: text, original: s.originalText) { return .accepted }
                if !inside, fits(shifted), Array(current[shifted]) == original { return .pending(shifted) }
                if sameIgnoringCaseAndSpace(text, s.originalText) { return .pending(region) }
                // The passage itself still stands whole inside the changed region (changes around it only).
                let window = Array(current[region])
                let hits = Search.occurrences(of: original, in: window)
                if let k = hits.min(by: { abs($0 + region.lowerBound - start) < abs($1 + region.lowerBound - start) }) {
                    return .pending((region.lowerBound + k)..<(region.lowerBound + k + original.count))
                }
                // Moved: the passage left here and stands, unchanged, in text this save inserted elsewhere.
                let moved = Search.occurrences(of: original, in: current).map { $0..<($0 + original.count) }.first { r in
                    !taken.contains { $0.overlaps(r) } && diff.hunks.contains { $0.new.lowerBound <= r.lowerBound && r.upperBound <= $0.new.upperBound }
                }
                if let moved { return .pending(moved) }
                return .edited
            }
        }
        // 2. Still exactly where it was.
        if let start = s.start, let end = s.end, start >= 0, start <= end, end <= current.count,
           Array(current[start..<end]) == original {
            return .pending(start..<end)
        }
        // 3. Found again nearby (exact, ignoring case, ignoring runs of whitespace).
        if let match = anchorer.anchor(s.originalText, near: s.start, avoiding: taken), match.method != .prefix {
            return .pending(match.range)
        }
        // 4. The suggested text stands in the document.
        let folded = Fold.units(s.suggestedText, collapse: true)
        if folded.isEmpty || anchorer.anchor(s.suggestedText, near: s.start).map({ $0.method != .prefix }) == true {
            return .accepted
        }
        return .edited
    }

    /// Whether the text now standing where a passage was is the suggested text (exactly or ignoring case
    /// and runs of whitespace), possibly with more changes around it.
    static func standsFor(suggested: String, in text: String, original: String) -> Bool {
        let want = Fold.units(suggested, collapse: true)
        let have = Fold.units(text, collapse: true)
        if want.isEmpty { return have.isEmpty }
        if have == want { return true }
        // A region that still holds the whole original is not the suggestion unless the suggestion holds it too.
        guard !Search.occurrences(of: want, in: have, limit: 1).isEmpty else { return false }
        let orig = Fold.units(original, collapse: true)
        let originalRemains = !Search.occurrences(of: orig, in: have, limit: 1).isEmpty
        let suggestionKeepsOriginal = !Search.occurrences(of: orig, in: want, limit: 1).isEmpty
        return !originalRemains || suggestionKeepsOriginal
    }

    static func sameIgnoringCaseAndSpace(_ a: String, _ b: String) -> Bool {
        Fold.units(a, collapse: true) == Fold.units(b, collapse: true)
    }

    static func setPosition(_ s: inout Suggestion, _ r: Range<Int>, in bytes: [UInt8]) {
        let pos = Anchoring.position(of: r.lowerBound, in: bytes)
        s.start = r.lowerBound
        s.end = r.upperBound
        s.line = pos.line
        s.column = pos.column
    }

    // MARK: Statuses and stats

    /// The revision cycle a suggestion belongs to (its round's), else the current one.
    static func cycle(of s: Suggestion, in sidecar: ReviewSidecar) -> Int {
        sidecar.rounds.first(where: { $0.id == s.round })?.cycle ?? max(sidecar.journey.revisionCycle, 1)
    }

    /// Changes one suggestion's status and keeps the per-document and per-cycle stats in step.
    static func setStatus(_ sidecar: inout ReviewSidecar, index i: Int, _ status: SuggestionStatus) {
        let old = sidecar.suggestions[i].status
        guard old != status else { return }
        let key = String(cycle(of: sidecar.suggestions[i], in: sidecar))
        var perCycle = sidecar.journey.cycleStats ?? [:]
        var c = perCycle[key] ?? SuggestionStats()
        adjust(&sidecar.journey.stats, old, -1)
        adjust(&c, old, -1)
        adjust(&sidecar.journey.stats, status, 1)
        adjust(&c, status, 1)
        perCycle[key] = c
        sidecar.journey.cycleStats = perCycle
        sidecar.suggestions[i].status = status
        if status != .pending {
            sidecar.suggestions[i].start = nil
            sidecar.suggestions[i].end = nil
            sidecar.suggestions[i].line = nil
            sidecar.suggestions[i].column = nil
        }
    }

    private static func adjust(_ stats: inout SuggestionStats, _ status: SuggestionStatus, _ by: Int) {
        switch status {
        case .pending: break
        case .accepted: stats.accepted = max(0, stats.accepted + by)
        case .edited: stats.edited = max(0, stats.edited + by)
        case .skipped: stats.skipped = max(0, stats.skipped + by)
        }
    }

    /// Sets a suggestion's status by id (the `accept`, `skip` and `edit` commands).
    /// - Returns: the status it had before.
    /// - Throws: `JourneyError.unknownSuggestion` when the sidecar has no such suggestion.
    @discardableResult
    public static func mark(_ sidecar: inout ReviewSidecar, id: String, as status: SuggestionStatus) throws(JourneyError) -> SuggestionStatus {
        guard let i = sidecar.suggestions.firstIndex(where: { $0.id == id }) else { throw .unknownSuggestion(id) }
        let old = sidecar.suggestions[i].status
        setStatus(&sidecar, index: i, status)
        return old
    }

    // MARK: Rounds

    /// A review round finished: its suggestions join the sidecar, the document moves to `revise` and
    /// `revision_cycle` is incremented; the round's `cycle` becomes the new cycle; `received` grows.
    ///
    /// The suggestions should be anchored against the document bytes as they are when the round is
    /// stored (positions are followed from then on). Suggestions whose id is already in the sidecar (added
    /// by the caller) are not added twice, but all of them count as received. Call once per round.
    public static func roundFinished(_ sidecar: inout ReviewSidecar, round: Round, suggestions: [Suggestion]) {
        sidecar.journey.revisionCycle += 1
        let cycle = sidecar.journey.revisionCycle
        var r = round
        r.cycle = cycle
        if let i = sidecar.rounds.firstIndex(where: { $0.id == r.id }) { sidecar.rounds[i] = r } else { sidecar.rounds.append(r) }
        // The caller may have added them already (the review queue does): count them either way.
        let known = Set(sidecar.suggestions.map(\.id))
        for var s in suggestions where !known.contains(s.id) {
            s.round = r.id
            s.status = .pending
            sidecar.suggestions.append(s)
        }
        let added = suggestions.count
        sidecar.journey.stats.received += added
        var perCycle = sidecar.journey.cycleStats ?? [:]
        perCycle[String(cycle), default: SuggestionStats()].received += added
        sidecar.journey.cycleStats = perCycle
        sidecar.journey.stage = .revise
    }

    /// The writer asked for a round: a final document goes back to `revise`.
    /// - Returns: whether the stage changed.
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

    // MARK: Ready notification

    /// The id of the latest round that brought suggestions.
    static func latestRound(_ sidecar: ReviewSidecar) -> String? {
        let withSuggestions = Set(sidecar.suggestions.map(\.round))
        return sidecar.rounds.last(where: { withSuggestions.contains($0.id) })?.id ?? sidecar.suggestions.last?.round
    }

    /// When every suggestion of the latest round is addressed and nobody was told for this cycle yet:
    /// records the notification and returns its text.
    public static func readyMessage(_ sidecar: inout ReviewSidecar) -> String? {
        guard sidecar.journey.stage == .revise, let round = latestRound(sidecar) else { return nil }
        let ofRound = sidecar.suggestions.filter { $0.round == round }
        guard !ofRound.isEmpty, ofRound.allSatisfy({ $0.status != .pending }) else { return nil }
        let cycle = sidecar.journey.revisionCycle
        guard sidecar.journey.notifiedCycle != cycle else { return nil }
        sidecar.journey.notifiedCycle = cycle
        let a = ofRound.filter { $0.status == .accepted }.count
        let e = ofRound.filter { $0.status == .edited }.count
        let k = ofRound.filter { $0.status == .skipped }.count
        let all = ofRound.count == 1 ? "The suggestion" : "All \(ofRound.count) suggestions"
        return "\(all) of revision \(cycle) addressed (\(a) accepted, \(e) edited, \(k) skipped): "
            + "ready for final (tk-agent journey set \(sidecar.document) --stage final) or another round (tk-agent review \(sidecar.document))."
    }

    // MARK: journey set

    /// Applies `tk-agent journey set`. Values are validated against the catalog.
    public static func set(
        _ sidecar: inout ReviewSidecar, stage: String? = nil, storyType: String? = nil, advisors: [String]? = nil,
        draftStage: String? = nil, catalog: AdvisorCatalog
    ) throws(JourneyError) {
        var o = sidecar.journey.overrides ?? JourneyOverrides()
        if let storyType {
            guard catalog.storyType(storyType) != nil else { throw .unknownStoryType(storyType) }
            o.storyType = storyType
            sidecar.journey.storyType = storyType
            if o.advisors == nil { sidecar.journey.advisors = catalog.storyType(storyType)?.defaultAdvisors ?? [] }
        }
        if let advisors {
            for a in advisors where catalog.role(a) == nil { throw .unknownAdvisor(a) }
            o.advisors = advisors
            sidecar.journey.advisors = advisors
        }
        if let draftStage {
            guard let d = DraftStage(rawValue: draftStage.lowercased()) else { throw .invalidDraftStage(draftStage) }
            o.draftStage = d
            sidecar.journey.draftStage = d
        }
        if let stage {
            guard let s = JourneyStage(rawValue: stage.lowercased()) else { throw .invalidStage(stage) }
            sidecar.journey.stage = s
        }
        sidecar.journey.overrides = o.isEmpty ? nil : o
    }
}
