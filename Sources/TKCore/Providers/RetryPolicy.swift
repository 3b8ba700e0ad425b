import Foundation

/// When and how long to wait before trying a failed request again.
///
/// Retried: rate limits (not an exhausted quota), overload (529/503), 408, 409, other 5xx,
/// connection failures, timeouts, stalled and cut streams. Never: 400/401/403/404/413/422 or a
/// quota. `x-should-retry` from the server overrides the status rule (never for a quota). The wait
/// is the server's `retry-after-ms`/`retry-after` when given, else exponential backoff with full
/// jitter; attempts and the total wait are capped.
public struct RetryPolicy: Sendable {
    /// Attempts in all (1 = no retry).
    public var maxAttempts: Int
    /// The most time spent waiting between attempts, in seconds, over one request.
    public var maxTotalWait: Double
    /// The first backoff ceiling, in seconds (doubles each retry).
    public var baseDelay: Double
    /// The largest backoff ceiling, in seconds (4× longer for overload).
    public var maxDelay: Double
    /// Sleeps for the given seconds; throws when cancelled. Injected so tests run fast.
    public var sleep: @Sendable (Double) async throws -> Void
    /// A random number in 0..<1 (for the jitter).
    public var random: @Sendable () -> Double

    public init(maxAttempts: Int = 4, maxTotalWait: Double = 120, baseDelay: Double = 0.5, maxDelay: Double = 8,
                sleep: @escaping @Sendable (Double) async throws -> Void = RetryPolicy.taskSleep,
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.maxAttempts = max(1, maxAttempts); self.maxTotalWait = max(0, maxTotalWait)
        self.baseDelay = max(0, baseDelay); self.maxDelay = max(self.baseDelay, maxDelay)
        self.sleep = sleep; self.random = random
    }

    /// Sleeps with `Task.sleep`.
    public static let taskSleep: @Sendable (Double) async throws -> Void = { seconds in
        if seconds > 0 { try await Task.sleep(nanoseconds: UInt64(min(seconds, 86_400) * 1e9)) }
    }

    /// The policy from the configuration (`review.max_attempts`, `review.max_retry_wait_seconds`,
    /// `review.retry_backoff_seconds`).
    public static func from(configuration: Configuration) -> RetryPolicy {
        let r = configuration.review
        let base = r.retryBackoffSeconds.isFinite && r.retryBackoffSeconds >= 0 ? min(r.retryBackoffSeconds, 60) : 0.5
        return RetryPolicy(maxAttempts: r.maxAttempts, maxTotalWait: r.maxRetryWaitSeconds,
                           baseDelay: base, maxDelay: max(8, base))
    }

    public enum Decision: Sendable, Equatable {
        case retry(after: Double)
        case stop(reason: StopReason)
    }

    /// Why the policy stops retrying.
    public enum StopReason: Sendable, Equatable, CustomStringConvertible {
        /// The failure cannot be helped by a retry (a quota, a bad key, a cancellation…).
        case notRetryable
        /// Every allowed attempt was made.
        case gaveUp(attempts: Int)
        /// The server's `retry-after` is longer than the wait budget left.
        case serverAskedToWait(seconds: Double)
        /// The time allowed for waiting between attempts is spent.
        case waitBudgetUsedUp

        public var description: String {
            switch self {
            case .notRetryable: return "not retryable"
            case .gaveUp(let n): return "gave up after \(n) attempts"
            case .serverAskedToWait(let s): return "the server asked to wait \(ProviderErrorMapper.format(s.rounded(.up))) s"
            case .waitBudgetUsedUp: return "retry wait budget used up"
            }
        }
    }

    /// Whether the failure can help from a retry at all (ignoring the attempt and wait caps).
    public static func isRetryable(_ failure: ProviderFailure) -> Bool {
        if case .quotaExhausted = failure.error { return false }
        if case .cancelled = failure.error { return false }
        if case .notConfigured = failure.error { return false }
        if let should = failure.shouldRetry { return should }
        return failure.error.isRetryable
    }

    /// What to do after failed attempt number `attempt` (1-based) when `waited` seconds were
    /// already spent waiting.
    public func decide(_ failure: ProviderFailure, attempt: Int, waited: Double) -> Decision {
        guard Self.isRetryable(failure) else { return .stop(reason: .notRetryable) }
        guard attempt < maxAttempts else { return .stop(reason: .gaveUp(attempts: attempt)) }
        let remaining = maxTotalWait - waited
        if let server = failure.retryAfter, server > 0 {
            if server > remaining {
                return .stop(reason: .serverAskedToWait(seconds: server))
            }
            return .retry(after: server)
        }
        let overloaded: Bool
        if case .overloaded = failure.error { overloaded = true } else { overloaded = false }
        let ceiling = min(maxDelay * (overloaded ? 4 : 1), baseDelay * pow(2, Double(attempt - 1)))
        let delay = min(max(0, remaining), ceiling * random())
        if remaining <= 0 && ceiling > 0 { return .stop(reason: .waitBudgetUsedUp) }
        return .retry(after: delay)
    }

    /// Runs `attempt` until it succeeds or the policy stops; returns the value and the attempts made.
    /// - Parameter onRetry: told about each retry (the failure, the attempt that failed, the delay).
    public func run<T: Sendable>(
        _ attempt: (Int) async throws(ProviderFailure) -> T,
        onRetry: (ProviderFailure, Int, Double) -> Void = { _, _, _ in }
    ) async throws(LLMProviderError) -> (T, Int) {
        var waited = 0.0
        var n = 1
        while true {
            if Task.isCancelled { throw .cancelled }
            do {
                return (try await attempt(n), n)
            } catch {
                if case .cancelled = error.error { throw .cancelled }
                switch decide(error, attempt: n, waited: waited) {
                case .stop(let reason):
                    // The message says how many attempts were made, and a wait the server asked
                    // for that was longer than allowed.
                    var asked = false
                    if case .serverAskedToWait = reason { asked = true }
                    if n > 1 || asked {
                        throw error.error.mapMessage { "\($0) (\(n) attempt\(n == 1 ? "" : "s")"
                            + (asked ? "; \(reason)" : "") + ")" }
                    }
                    throw error.error
                case .retry(let delay):
                    onRetry(error, n, delay)
                    do { try await sleep(delay) } catch { throw .cancelled }
                    waited += delay
                    n += 1
                }
            }
        }
    }
}
