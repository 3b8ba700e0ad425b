import Foundation

/// A council's answers and their synthesis.
public struct CouncilResult: Sendable {
    public var question: String
    public var perspectives: [CouncilPerspective]
    public var analysis: CouncilAnalysis
    public var usage: WritingUsage
}

/// Asks several advisors the same question at once (a task group) and synthesises their answers locally.
public struct CouncilEngine: Sendable {
    public static let advisorRange = 2...10
    public let provider: any LLMProvider

    public init(provider: any LLMProvider) { self.provider = provider }

    /// Calls every advisor in parallel. A failed advisor becomes a perspective with `error`; when every
    /// advisor fails, the first failure is thrown.
    /// - Parameter onPerspective: called with each advisor's answer as soon as it is in (for streamed output).
    public func run(question: String, advisors: [Role], document: String?, documentPath: String?,
                    storyType: StoryType?, model: String?, maxOutputTokens: Int = 2048,
                    onPerspective: (@Sendable (CouncilPerspective) -> Void)? = nil)
        async throws(LLMProviderError) -> CouncilResult
    {
        let provider = self.provider
        typealias Outcome = (index: Int, reply: Result<LLMResponse, LLMProviderError>)
        let outcomes: [Outcome] = await withTaskGroup(of: Outcome.self) { group in
            for (i, role) in advisors.enumerated() {
                let p = PromptEngine.councilPrompt(question: question, role: role, document: document,
                                                   documentPath: documentPath, storyType: storyType)
                let req = LLMRequest(system: p.system, messages: [LLMMessage(role: .user, content: p.user)],
                                     model: model, maxOutputTokens: maxOutputTokens, jsonSchema: p.schema,
                                     schemaName: p.schemaName ?? "council", stream: false)
                group.addTask {
                    // Bind the reply before building the tuple. `return (i, .success(try await …))`
                    // in a task-group child is miscompiled by Swift 6.3's optimiser: `i`, evaluated
                    // before the throwing `await` in the same expression, comes back wrong (0 or
                    // garbage) in release builds only, and `advisors[o.index]` trapped ("Illegal
                    // instruction"). Tests/e2e/test_writing.py runs council on the release build.
                    let reply: Result<LLMResponse, LLMProviderError>
                    do throws(LLMProviderError) { reply = .success(try await provider.complete(req)) } catch {
                        reply = .failure(error)
                    }
                    return (i, reply)
                }
            }
            var all: [Outcome] = []
            for await o in group where advisors.indices.contains(o.index) {
                all.append(o)
                onPerspective?(Self.perspective(advisors[o.index], o.reply))
            }
            return all.sorted { $0.index < $1.index }
        }
        var usage = WritingUsage()
        var perspectives: [CouncilPerspective] = []
        var firstError: LLMProviderError?
        for o in outcomes {
            switch o.reply {
            case .success(let r): usage.add(r)
            case .failure(let e): firstError = firstError ?? e
            }
            perspectives.append(Self.perspective(advisors[o.index], o.reply))
        }
        if let firstError, !perspectives.contains(where: { $0.error == nil }) { throw firstError }
        return CouncilResult(question: question, perspectives: perspectives,
                             analysis: CouncilSynthesis.analyse(perspectives), usage: usage)
    }

    static func perspective(_ role: Role, _ reply: Result<LLMResponse, LLMProviderError>) -> CouncilPerspective {
        switch reply {
        case .success(let r):
            if let c = ReplyParser.parseCouncil(text: r.text, structured: r.structured) {
                return CouncilPerspective(advisorId: role.id, name: role.name, perspective: c.perspective,
                                          points: c.points, sentiment: c.sentiment)
            }
            return CouncilPerspective(advisorId: role.id, name: role.name, perspective: "", points: [],
                                      sentiment: "neutral", error: "the reply was empty")
        case .failure(let e):
            return CouncilPerspective(advisorId: role.id, name: role.name, perspective: "", points: [],
                                      sentiment: "neutral", error: e.message)
        }
    }
}
