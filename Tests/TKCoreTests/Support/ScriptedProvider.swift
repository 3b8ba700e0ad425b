import Foundation
import Synchronization
@testable import TKCore

/// A provider that replays queued replies, for unit tests (not shipped). Records every request.
public final class ScriptedProvider: LLMProvider {
    public let name: String
    public let model: String
    private let state = Mutex<(replies: [Result<LLMResponse, LLMProviderError>], requests: [LLMRequest])>(([], []))

    public init(name: String = "scripted", model: String = "scripted-model") {
        self.name = name
        self.model = model
    }

    /// Queues a reply text (with optional usage and stop reason).
    public func enqueue(_ text: String, usage: LLMUsage = LLMUsage(inputTokens: 10, outputTokens: 5),
                        stopReason: LLMStopReason = .complete) {
        let response = LLMResponse(provider: name, model: model, text: text, stopReason: stopReason, usage: usage)
        state.withLock { $0.replies.append(.success(response)) }
    }

    public func enqueue(error: LLMProviderError) {
        state.withLock { $0.replies.append(.failure(error)) }
    }

    public var requests: [LLMRequest] { state.withLock { $0.requests } }

    public func complete(_ request: LLMRequest, onText: (@Sendable (String) -> Void)?) async throws(LLMProviderError) -> LLMResponse {
        let next: Result<LLMResponse, LLMProviderError>? = state.withLock { s in
            s.requests.append(request)
            return s.replies.isEmpty ? nil : s.replies.removeFirst()
        }
        guard let next else { throw .invalidReply("scripted provider: no reply queued") }
        switch next {
        case .success(var response):
            if let model = request.model { response.model = model }
            onText?(response.text)
            return response
        case .failure(let error):
            throw error
        }
    }
}
