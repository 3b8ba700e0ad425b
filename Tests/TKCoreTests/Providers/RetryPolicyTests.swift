import Foundation
import Testing
@testable import TKCore

@Suite("Retry policy")
struct RetryPolicyTests {
    static func policy(attempts: Int = 4, wait: Double = 120, random: Double = 1) -> RetryPolicy {
        RetryPolicy(maxAttempts: attempts, maxTotalWait: wait, baseDelay: 0.5, maxDelay: 8, sleep: { _ in }, random: { random })
    }

    @Test("what is retried and what is not")
    func retryable() {
        let yes: [LLMProviderError] = [.rateLimited("r", retryAfter: nil), .overloaded("o", retryAfter: nil),
                                       .server(status: 500, "s"), .server(status: 502, "s"), .server(status: 408, "t"),
                                       .server(status: 409, "c"), .network("n"), .timedOut("t"), .stalled("s"), .incomplete("i")]
        let no: [LLMProviderError] = [.authentication("a"), .permission("p"), .unknownModel("u"), .contextTooLong("c"),
                                      .quotaExhausted("q"), .badRequest("b"), .invalidReply("i"), .notConfigured("n"),
                                      .server(status: 418, "x"), .cancelled]
        for e in yes { #expect(RetryPolicy.isRetryable(ProviderFailure(e)), "\(e)") }
        for e in no { #expect(!RetryPolicy.isRetryable(ProviderFailure(e)), "\(e)") }
    }

    @Test("x-should-retry overrides the status rule, but never for a quota")
    func shouldRetryHeader() {
        #expect(!RetryPolicy.isRetryable(ProviderFailure(.server(status: 500, "s"), shouldRetry: false)))
        #expect(RetryPolicy.isRetryable(ProviderFailure(.badRequest("b"), shouldRetry: true)))
        #expect(!RetryPolicy.isRetryable(ProviderFailure(.quotaExhausted("q"), shouldRetry: true)))
    }

    @Test("exponential backoff ceilings with full jitter")
    func backoff() {
        let p = Self.policy(attempts: 10, random: 1)
        let f = ProviderFailure(.server(status: 500, "s"))
        #expect(p.decide(f, attempt: 1, waited: 0) == .retry(after: 0.5))
        #expect(p.decide(f, attempt: 2, waited: 0) == .retry(after: 1))
        #expect(p.decide(f, attempt: 3, waited: 0) == .retry(after: 2))
        #expect(p.decide(f, attempt: 6, waited: 0) == .retry(after: 8))  // capped
        let half = Self.policy(attempts: 10, random: 0.5)
        #expect(half.decide(f, attempt: 3, waited: 0) == .retry(after: 1))
        // Overload may wait longer.
        #expect(p.decide(ProviderFailure(.overloaded("o", retryAfter: nil)), attempt: 7, waited: 0) == .retry(after: 32))
    }

    @Test("the server's delay is honoured; beyond the wait budget it stops")
    func serverDelay() {
        let p = Self.policy()
        #expect(p.decide(ProviderFailure(.rateLimited("r", retryAfter: 7), retryAfter: 7), attempt: 1, waited: 0) == .retry(after: 7))
        #expect(p.decide(ProviderFailure(.rateLimited("r", retryAfter: 300), retryAfter: 300), attempt: 1, waited: 0)
                == .stop(reason: .serverAskedToWait(seconds: 300)))
        if case .retry = p.decide(ProviderFailure(.rateLimited("r", retryAfter: 30), retryAfter: 30), attempt: 1, waited: 100) {
            Issue.record("should not exceed the remaining budget")
        }
    }

    @Test("attempts are capped")
    func cap() {
        let p = Self.policy(attempts: 3)
        let f = ProviderFailure(.network("n"))
        if case .stop = p.decide(f, attempt: 2, waited: 0) { Issue.record("attempt 2 of 3 should retry") }
        #expect(p.decide(f, attempt: 3, waited: 0) == .stop(reason: .gaveUp(attempts: 3)))
        #expect(p.decide(ProviderFailure(.quotaExhausted("q")), attempt: 1, waited: 0) == .stop(reason: .notRetryable))
    }

    @Test("run: retries until success, counts attempts, sleeps the decided delays")
    func run() async throws {
        let sleeper = SleepRecorder()
        let p = RetryPolicy(maxAttempts: 4, maxTotalWait: 120, baseDelay: 0.5, sleep: sleeper.sleep, random: { 1 })
        let failures = [ProviderFailure(.rateLimited("r", retryAfter: 2), retryAfter: 2), ProviderFailure(.overloaded("o", retryAfter: nil))]
        let (value, attempts) = try await p.run { (n: Int) async throws(ProviderFailure) -> String in
            if n <= failures.count { throw failures[n - 1] }
            return "ok"
        }
        #expect(value == "ok")
        #expect(attempts == 3)
        #expect(sleeper.delays == [2, 1])
    }

    @Test("run: a non-retryable error is thrown at once, a persistent one after the cap with the count")
    func runFailures() async {
        let p = Self.policy(attempts: 3)
        var calls = 0
        do {
            _ = try await p.run { (_: Int) async throws(ProviderFailure) -> Int in
                calls += 1
                throw ProviderFailure(.authentication("bad key"))
            }
        } catch {
            #expect(error == .authentication("bad key"))
        }
        #expect(calls == 1)
        calls = 0
        do {
            _ = try await p.run { (_: Int) async throws(ProviderFailure) -> Int in
                calls += 1
                throw ProviderFailure(.server(status: 500, "boom"))
            }
        } catch {
            #expect(error.message == "boom (3 attempts)")
        }
        #expect(calls == 3)
    }

    @Test("review.retry_backoff_seconds sets the base delay")
    func configured() {
        var c = Configuration.defaults
        #expect(RetryPolicy.from(configuration: c).baseDelay == 0.5)
        #expect(RetryPolicy.from(configuration: c).maxAttempts == c.review.maxAttempts)
        c.review.retryBackoffSeconds = 0.01
        #expect(RetryPolicy.from(configuration: c).baseDelay == 0.01)
        c.review.retryBackoffSeconds = -1
        #expect(RetryPolicy.from(configuration: c).baseDelay == 0.5)
    }

    @Test("a wait the server asks for beyond the budget is said in the message, after one attempt")
    func serverWaitInMessage() async {
        let p = RetryPolicy(maxAttempts: 4, maxTotalWait: 120, baseDelay: 0.5, sleep: { _ in }, random: { 1 })
        do {
            _ = try await p.run { (_: Int) async throws(ProviderFailure) -> Int in
                throw ProviderFailure(.rateLimited("slow down", retryAfter: 300), retryAfter: 300)
            }
            Issue.record("should have stopped")
        } catch {
            #expect(error.message.contains("(1 attempt; the server asked to wait 300 s)"), "\(error.message)")
        }
    }
}
