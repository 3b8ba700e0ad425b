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
    public func run(question: String, advisors: [Role], document: String?, documentPath: String?,
                    storyType: StoryType?, model: String?, maxOutputTokens: Int = 2048)
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
                    do throws(LLMProviderError) {
                        return (i, .success(try await provider.complete(req)))
                    } catch {
                        return (i, .failure(error))
                    }
                }
            }
            var all: [Outcome] = []
            for await o in group { all.append(o) }
            return all.sorted { $0.index < $1.index }
        }
        var usage = WritingUsage()
        var perspectives: [CouncilPerspective] = []
        var firstError: LLMProviderError?
        for o in outcomes {
            let role = advisors[o.index]
            switch o.reply {
            case .success(let r):
                usage.add(r)
                if let c = ReplyParser.parseCouncil(text: r.text, structured: r.structured) {
                    perspectives.append(CouncilPerspective(advisorId: role.id, name: role.name,
                                                           perspective: c.perspective, points: c.points,
                                                           sentiment: c.sentiment))
                } else {
                    perspectives.append(CouncilPerspective(advisorId: role.id, name: role.name, perspective: "",
                                                           points: [], sentiment: "neutral",
                                                           error: "the reply was empty"))
                }
            case .failure(let e):
                firstError = firstError ?? e
                perspectives.append(CouncilPerspective(advisorId: role.id, name: role.name, perspective: "",
                                                       points: [], sentiment: "neutral", error: e.message))
            }
        }
        if let firstError, !perspectives.contains(where: { $0.error == nil }) { throw firstError }
        return CouncilResult(question: question, perspectives: perspectives,
                             analysis: CouncilSynthesis.analyse(perspectives), usage: usage)
    }
}
