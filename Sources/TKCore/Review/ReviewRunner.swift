import Foundation
import Logging

/// Why a round could not produce suggestions: one line for the sidecar and the CLI, plus what the calls
/// that did happen cost.
public struct ReviewFailure: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// The provider error behind it, if any (decides whether the round may be tried again later).
    public var providerError: LLMProviderError?
    public var usage: LLMUsage
    public var costUsd: Double
    public var attempts: Int
    public init(_ message: String, providerError: LLMProviderError? = nil, usage: LLMUsage = LLMUsage(),
                costUsd: Double = 0, attempts: Int = 0) {
        self.message = message; self.providerError = providerError; self.usage = usage; self.costUsd = costUsd
        self.attempts = attempts
    }
    public var description: String { message }
}

/// Runs one review round: builds the prompt, asks the model, parses and anchors the reply.
public struct ReviewRunner: Sendable {
    public let catalog: AdvisorCatalog
    public let sidecars: SidecarStore
    public let logger: Logger

    public init(catalog: AdvisorCatalog, sidecars: SidecarStore, logger: Logger) {
        self.catalog = catalog; self.sidecars = sidecars; self.logger = logger
    }

    /// A round ready to send.
    public struct Prepared: Sendable {
        public var bytes: [UInt8]
        public var document: MarkdownDocument
        public var roles: [Role]
        public var storyType: StoryType?
        public var draftStage: DraftStage?
        public var prompt: RenderedPrompt
        public var contentSha: String
        /// Why the document must not be sent, if it must not.
        public var exclusion: String?
        /// A changed-scope round: the byte ranges of the changed paragraphs (`History/ChangedScope.swift`).
        public var focus: [Range<Int>]? = nil
        public var advisorIds: [String] { roles.map(\.id) }
    }

    /// What a round produced.
    public struct Outcome: Sendable {
        public var suggestions: [Suggestion]
        public var unanchored: Int
        public var truncated: Bool
        public var usage: LLMUsage
        public var costUsd: Double
        public var provider: String
        public var model: String
        public var attempts: Int
        /// One line per thing worth logging (dropped entries, the per-advisor fallback).
        public var problems: [String]
        /// The document's bytes the suggestions were anchored in (their positions describe them).
        public var anchoredIn: [UInt8] = []
    }

    /// Reads the document and builds the exact prompt a round would send.
    /// - Parameters:
    ///   - advisorsOverride: `--advisors`; nil uses the sidecar journey, the front matter, the config, the story type.
    public func prepare(project: PathBytes, document rel: PathBytes, advisorsOverride: [String]?,
                        config: Configuration) throws(ReviewFailure) -> Prepared {
        let path = project.appending(rel)
        let bytes: [UInt8]
        do { bytes = try FileSystem.read(path, limit: max(1, config.watch.maxFileBytes)) } catch {
            throw ReviewFailure(error.isNotFound ? "the document \(rel.display) no longer exists" : "cannot read \(rel.display): \(error)")
        }
        let doc = MarkdownDocument(bytes: bytes, fileName: rel.lastComponent.display)
        var journey = JourneyState()
        if case .ok(let s, _) = sidecars.read(project: project, document: rel) { journey = s.journey }
        let settings = DocumentSettings.resolve(
            flags: .init(advisors: advisorsOverride), frontMatter: doc.frontMatter.tk, overrides: journey.overrides,
            config: config, catalog: catalog)
        let storyType = settings.storyType.flatMap { catalog.storyType($0) }
        let roles = settings.advisors.compactMap { catalog.role($0) }
        let draftStage = settings.draftStage
        let prompt = PromptEngine.reviewPrompt(
            document: String(decoding: bytes, as: UTF8.self), documentPath: rel.display, advisors: roles,
            storyType: storyType, draftStage: draftStage)
        return Prepared(bytes: bytes, document: doc, roles: roles, storyType: storyType, draftStage: draftStage,
                        prompt: prompt, contentSha: SHA256Digest.hex(bytes),
                        exclusion: ReviewPolicy.exclusion(frontMatter: doc.frontMatter, relative: rel, config: config))
    }

    /// The cache key of a round's prompt: what shapes the reply besides the document.
    public static func promptHash(_ p: Prepared, provider: String, model: String) -> String {
        SHA256Digest.hex(Array("\(provider)\n\(model)\n\(p.prompt.system)\n\(p.prompt.user)".utf8))
    }

    /// The request for a prompt.
    public static func request(_ prompt: RenderedPrompt, config: Configuration) -> LLMRequest {
        LLMRequest(system: prompt.system, messages: [LLMMessage(role: .user, content: prompt.user)],
                   maxOutputTokens: max(256, config.review.maxOutputTokens), jsonSchema: prompt.schema,
                   schemaName: prompt.schemaName ?? PromptSchemas.suggestionsName, stream: true)
    }

    /// Sends the round and anchors the suggestions in the document as it is when the reply arrives.
    ///
    /// One call for all advisors; when that reply holds no suggestions JSON, one call per advisor.
    /// - Parameters:
    ///   - onCall: told about every reply (for the usage ledger), even when the round fails later.
    public func execute(_ p: Prepared, roundID: String, project: PathBytes, document rel: PathBytes,
                        config: Configuration, provider: any LLMProvider,
                        onCall: @Sendable (LLMResponse) -> Void) async throws(ReviewFailure) -> Outcome {
        var usage = LLMUsage()
        var cost = 0.0
        var attempts = 0
        var problems: [String] = []
        var lastResponse: LLMResponse?
        func send(_ prompt: RenderedPrompt) async throws(ReviewFailure) -> LLMResponse {
            do {
                let r = try await provider.complete(Self.request(prompt, config: config))
                usage = usage + r.usage
                cost += r.costUsd
                attempts += r.attempts
                lastResponse = r
                onCall(r)
                return r
            } catch {
                throw ReviewFailure(error.message, providerError: error, usage: usage, costUsd: cost, attempts: attempts + 1)
            }
        }

        let ids = p.advisorIds
        let first = try await send(p.prompt)
        var parsed = ReplyParser.parseSuggestions(text: first.text, structured: first.structured,
                                                  truncated: first.truncated, advisorIds: ids)
        if !parsed.found && p.roles.count > 1 {
            problems.append("the panel reply held no suggestions JSON; asking each advisor in turn")
            var merged = ParsedReply(found: false)
            for role in p.roles {
                let single = PromptEngine.singleAdvisorPrompt(
                    document: String(decoding: p.bytes, as: UTF8.self), documentPath: rel.display, advisor: role,
                    storyType: p.storyType, draftStage: p.draftStage)
                let r = try await send(single)
                let one = ReplyParser.parseSuggestions(text: r.text, structured: r.structured, truncated: r.truncated,
                                                       advisorIds: [role.id])
                merged.suggestions += one.suggestions
                merged.truncated = merged.truncated || one.truncated
                merged.problems += one.problems
                merged.dropped += one.dropped
                merged.found = merged.found || one.found
            }
            parsed = merged
        }
        problems += parsed.problems
        guard parsed.found else {
            let why = parsed.problems.first ?? "the reply holds no suggestions JSON"
            throw ReviewFailure("the model's reply could not be read: \(why)", usage: usage, costUsd: cost, attempts: attempts)
        }
        // Anchor to the document as it is now: the writer may have saved while the model was thinking.
        let current = (try? FileSystem.read(project.appending(rel), limit: max(1, config.watch.maxFileBytes))) ?? p.bytes
        let report = AnchoredSuggestion.build(parsed.suggestions, document: current, round: roundID)
        if report.unanchoredCount > 0 {
            problems.append("\(report.unanchoredCount) suggestion(s) quoted text not found in the document; dropped")
        }
        return Outcome(suggestions: report.suggestions, unanchored: report.unanchoredCount, truncated: parsed.truncated,
                       usage: usage, costUsd: cost, provider: lastResponse?.provider ?? provider.name,
                       model: lastResponse?.model ?? provider.model, attempts: attempts, problems: problems,
                       anchoredIn: current)
    }
}
