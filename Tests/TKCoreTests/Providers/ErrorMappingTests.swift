import Foundation
import Testing
@testable import TKCore

@Suite("Provider error mapping")
struct ErrorMappingTests {
    static func context(_ file: String) -> ProviderContext {
        if file.hasPrefix("anthropic") {
            return ProviderContext(provider: "anthropic", model: "claude-3-5-sonnet-20241022", baseURL: "https://api.anthropic.com",
                                   keyEnv: "ANTHROPIC_API_KEY", isLocal: false)
        }
        if file.hasPrefix("openai_compat") {
            return ProviderContext(provider: "openai", model: "qwen2.5-7b-instruct", baseURL: "http://127.0.0.1:8080/v1",
                                   keyEnv: "OPENAI_API_KEY", isLocal: true)
        }
        if file.hasPrefix("openai") {
            return ProviderContext(provider: "openai", model: "gpt-4o-nonexistent", baseURL: "https://api.openai.com/v1",
                                   keyEnv: "OPENAI_API_KEY", isLocal: false)
        }
        return ProviderContext(provider: "ollama", model: "llama3.2:404", baseURL: "http://127.0.0.1:11434", keyEnv: nil, isLocal: true)
    }

    static let cases: [(String, String, Bool)] = [
        ("anthropic/error_400", "bad_request", false),
        ("anthropic/error_401", "authentication", false),
        ("anthropic/error_403", "permission", false),
        ("anthropic/error_404_model", "unknown_model", false),
        ("anthropic/error_413", "context_too_long", false),
        ("anthropic/error_429", "rate_limited", true),
        ("anthropic/error_500", "server", true),
        ("anthropic/error_529", "overloaded", true),
        ("openai/error_400_context", "context_too_long", false),
        ("openai/error_401", "authentication", false),
        ("openai/error_404_model", "unknown_model", false),
        ("openai/error_429", "rate_limited", true),
        ("openai/error_429_quota", "quota_exhausted", false),
        ("openai/error_500", "server", true),
        ("openai/error_503", "overloaded", true),
        ("openai_compat/llamacpp_error_401", "authentication", false),
        ("openai_compat/llamacpp_error_ctx", "context_too_long", false),
        ("openai_compat/llamacpp_health_loading", "overloaded", true),
        ("openai_compat/lmstudio_error_no_models", "unknown_model", false),
        ("openai_compat/vllm_error_400_context", "context_too_long", false),
        ("openai_compat/vllm_error_404_model_legacy", "unknown_model", false),
        ("ollama/error_400", "bad_request", false),
        ("ollama/error_401", "authentication", false),
        ("ollama/error_404_model", "unknown_model", false),
        ("ollama/error_404_model_pull", "unknown_model", false),
        ("ollama/error_429", "quota_exhausted", false),
        ("ollama/error_500", "server", true),
        ("ollama/error_503_busy", "overloaded", true),
        ("ollama/error_503_cloud_overloaded", "overloaded", true),
    ]

    @Test("every error fixture maps to a typed error with one line", arguments: cases)
    func fixture(_ file: String, _ kind: String, _ retry: Bool) {
        let r = LLMFixtures.response(file)
        #expect(r.status >= 400, "\(file) has no status")
        let f = ProviderErrorMapper.http(status: r.status, headers: r.headers, body: r.body, context: Self.context(file))
        #expect(f.error.kind == kind, "\(file): \(f.error.message)")
        #expect(RetryPolicy.isRetryable(f) == retry, "\(file)")
        #expect(!f.error.message.contains("\n"))
        #expect(!f.error.message.isEmpty && f.error.message.count < 400)
        // The OpenAI 401 body echoes a masked key; it must not reach the message.
        #expect(!f.error.message.contains("sk-fixt"))
    }

    @Test("the key errors name what to check")
    func messages() {
        let a = LLMFixtures.response("anthropic/error_401")
        let f = ProviderErrorMapper.http(status: a.status, headers: a.headers, body: a.body, context: Self.context("anthropic"))
        #expect(f.error.message.hasPrefix("the Anthropic API key was rejected: check ANTHROPIC_API_KEY"))
        let m = LLMFixtures.response("anthropic/error_404_model")
        let g = ProviderErrorMapper.http(status: m.status, headers: m.headers, body: m.body, context: Self.context("anthropic"))
        #expect(g.error.message.contains("'claude-3-5-sonnet-20241022'"))
        let o = LLMFixtures.response("ollama/error_404_model")
        let h = ProviderErrorMapper.http(status: o.status, headers: o.headers, body: o.body, context: Self.context("ollama"))
        #expect(h.error.message.contains("ollama pull llama3.2:404"))
        let c = LLMFixtures.response("openai_compat/llamacpp_error_ctx")
        let i = ProviderErrorMapper.http(status: c.status, headers: c.headers, body: c.body, context: Self.context("openai_compat"))
        #expect(i.error.message.contains("33056 tokens, context 32768"))
    }

    @Test("Anthropic's spend limit (429 enforced_spend_limit_reached) is a quota: never retried")
    func spendLimit() {
        let body = #"{"type":"error","error":{"type":"rate_limit_error","message":"You have reached your specified workspace API usage limits.","details":{"error_code":"enforced_spend_limit_reached"}}}"#
        let f = ProviderErrorMapper.http(status: 429, headers: ["x-should-retry": "true"], body: Array(body.utf8),
                                         context: Self.context("anthropic"))
        #expect(f.error.kind == "quota_exhausted")
        #expect(!RetryPolicy.isRetryable(f))
    }

    @Test("retry-after: milliseconds first, then seconds, then an HTTP date")
    func retryAfter() {
        #expect(ProviderErrorMapper.retryAfter(headers: ["retry-after-ms": "3890", "retry-after": "4"]) == 3.89)
        #expect(ProviderErrorMapper.retryAfter(headers: ["retry-after": "7"]) == 7)
        let now = Date(timeIntervalSince1970: 1_732_283_050)  // Fri, 22 Nov 2024 13:44:10 GMT
        #expect(ProviderErrorMapper.retryAfter(headers: ["retry-after": "Fri, 22 Nov 2024 13:44:20 GMT"], now: now) == 10)
        #expect(ProviderErrorMapper.retryAfter(headers: ["retry-after": "soon"]) == nil)
        #expect(ProviderErrorMapper.retryAfter(headers: [:]) == nil)
    }

    @Test("rate-limit reset headers are the fallback wait on a 429 without retry-after")
    func resetHeaders() {
        #expect(ProviderErrorMapper.goDuration("6m0s") == 360)
        #expect(ProviderErrorMapper.goDuration("3.89s") == 3.89)
        #expect(ProviderErrorMapper.goDuration("120ms") == 0.12)
        #expect(ProviderErrorMapper.goDuration("1h2m3s") == 3723)
        #expect(ProviderErrorMapper.goDuration("soon") == nil)
        let openai = ["x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "3.89s",
                      "x-ratelimit-remaining-requests": "12", "x-ratelimit-reset-requests": "6m0s"]
        #expect(ProviderErrorMapper.rateLimitReset(headers: openai) == 3.89)
        let now = Date(timeIntervalSince1970: 1_772_049_750)  // 2026-02-25T20:02:30Z
        var anthropic = LLMFixtures.response("anthropic/error_429").headers
        anthropic["retry-after"] = nil
        #expect(ProviderErrorMapper.rateLimitReset(headers: anthropic, now: now) == 9)  // input tokens reset at :39
        let f = ProviderErrorMapper.http(status: 429, headers: anthropic, body: [], context: Self.context("anthropic"), now: now)
        #expect(f.retryAfter == 9)
    }

    @Test("fixture headers carry retry-after and x-should-retry into the failure")
    func headers() {
        let r = LLMFixtures.response("anthropic/error_429")
        let f = ProviderErrorMapper.http(status: r.status, headers: r.headers, body: r.body, context: Self.context("anthropic"))
        #expect(f.retryAfter == 7)
        #expect(f.shouldRetry == true)
        #expect(f.error == .rateLimited(f.error.message, retryAfter: 7))
        let o = LLMFixtures.response("openai/error_429")
        let g = ProviderErrorMapper.http(status: o.status, headers: o.headers, body: o.body, context: Self.context("openai"))
        #expect(g.retryAfter == 3.89)
        let b = LLMFixtures.response("anthropic/error_400")
        #expect(ProviderErrorMapper.http(status: b.status, headers: b.headers, body: b.body, context: Self.context("anthropic")).shouldRetry == false)
    }

    @Test("a body that is not JSON still gives a line")
    func htmlBody() {
        let f = ProviderErrorMapper.http(status: 502, headers: [:], body: Array("<html>\n<h1>502 Bad Gateway</h1></html>".utf8),
                                         context: Self.context("openai"))
        #expect(f.error.kind == "server")
        #expect(f.error.isRetryable)
        let g = ProviderErrorMapper.http(status: 404, headers: [:], body: Array("404 page not found".utf8),
                                         context: Self.context("openai_compat"))
        #expect(g.error.kind == "bad_request")
        #expect(g.error.message.contains("base_url"))
    }

    @Test("transport failures")
    func transport() {
        let c = Self.context("ollama")
        #expect(ProviderErrorMapper.transport(.cannotConnect("Connection refused"), context: c).error.message.contains("ollama serve"))
        #expect(ProviderErrorMapper.transport(.stalled(1), context: c).error.kind == "stalled")
        #expect(ProviderErrorMapper.transport(.timedOut(5), context: c).error.kind == "timed_out")
        #expect(ProviderErrorMapper.transport(.connectionLost("reset"), context: c).error.kind == "incomplete")
    }

    @Test("secrets are redacted from any message")
    func redaction() {
        let e = LLMProviderError.badRequest("server said: key sk-secret-1234 is odd").redacting(["sk-secret-1234"])
        #expect(e.message == "server said: key *** is odd")
        #expect("\(APIKey("sk-secret-1234").map { "\($0)" } ?? "")" == "***")
        #expect(String(reflecting: APIKey("sk-secret-1234")) .contains("sk-secret") == false)
    }
}
