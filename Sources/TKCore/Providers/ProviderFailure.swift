import Foundation

/// A failed attempt: the typed error plus what the retry policy needs from the reply.
public struct ProviderFailure: Error, Sendable, Equatable {
    public var error: LLMProviderError
    /// The delay the server asked for (`retry-after-ms`, else `retry-after`), in seconds.
    public var retryAfter: Double?
    /// The server's `x-should-retry` header, when it sent one.
    public var shouldRetry: Bool?
    /// The HTTP status (nil for connection failures and stream errors).
    public var status: Int?

    public init(_ error: LLMProviderError, retryAfter: Double? = nil, shouldRetry: Bool? = nil, status: Int? = nil) {
        self.error = error; self.retryAfter = retryAfter; self.shouldRetry = shouldRetry; self.status = status
    }
}

/// Who is being talked to, for error lines (never holds a key).
public struct ProviderContext: Sendable, Equatable {
    /// `anthropic`, `openai`, `ollama`.
    public var provider: String
    public var model: String
    public var baseURL: String
    /// The environment variable the key is read from (e.g. `ANTHROPIC_API_KEY`), if any.
    public var keyEnv: String?
    /// Whether the server is a local one (an OpenAI-compatible llama.cpp/vLLM/LM Studio, Ollama).
    public var isLocal: Bool

    public init(provider: String, model: String, baseURL: String, keyEnv: String?, isLocal: Bool) {
        self.provider = provider; self.model = model; self.baseURL = baseURL; self.keyEnv = keyEnv; self.isLocal = isLocal
    }

    /// "Anthropic", "OpenAI", "Ollama at http://…", or "the OpenAI-compatible server at http://…".
    public var displayName: String {
        switch provider {
        case "anthropic": return isLocal ? "the Anthropic-compatible server at \(baseURL)" : "Anthropic"
        case "openai": return isLocal ? "the OpenAI-compatible server at \(baseURL)" : "OpenAI"
        case "ollama": return "Ollama at \(baseURL)"
        default: return provider
        }
    }

    var keyHint: String {
        let env = keyEnv.map { "\($0) or " } ?? ""
        return "\(env)TK_API_KEY (or `tk-agent config set providers.\(provider).api_key`)"
    }
}

/// The error fields of a provider's error body, whichever shape it has.
struct ErrorBody: Equatable {
    var message: String?
    var type: String?
    var code: String?
    /// Anthropic `error.details.error_code` (e.g. `enforced_spend_limit_reached`).
    var detailCode: String?
    /// llama.cpp context sizes.
    var promptTokens: Int?
    var contextTokens: Int?

    /// Reads Anthropic `{"type":"error","error":{…}}`, OpenAI/llama.cpp/vLLM `{"error":{…}}`, legacy
    /// vLLM `{"object":"error",…}` and Ollama `{"error":"…"}`; a body that is not JSON gives its first line.
    static func parse(_ bytes: [UInt8]) -> ErrorBody {
        guard let json = try? JSONValue.parse(bytes) else {
            let text = String(decoding: bytes.prefix(2048), as: UTF8.self)
            let line = text.split(whereSeparator: \.isNewline).first.map(String.init)?
                .trimmingCharacters(in: .whitespaces)
            return ErrorBody(message: (line?.isEmpty ?? true) ? nil : line)
        }
        return from(json)
    }

    static func from(_ json: JSONValue) -> ErrorBody {
        var out = ErrorBody()
        func text(_ v: JSONValue?) -> String? {
            switch v {
            case .string(let s)?: return s
            case .number(let n)?: return n.rounded() == n && abs(n) < 1e15 ? String(Int(n)) : String(n)
            default: return nil
            }
        }
        let e = json["error"]
        if let s = e?.stringValue {
            out.message = s
        } else if let e, case .object = e {
            out.message = text(e["message"])
            out.type = text(e["type"])
            out.code = text(e["code"])
            out.detailCode = text(e["details"]?["error_code"])
            out.promptTokens = e["n_prompt_tokens"]?.doubleValue.map { Int($0) }
            out.contextTokens = e["n_ctx"]?.doubleValue.map { Int($0) }
        } else {
            out.message = text(json["message"]) ?? text(json["detail"])
            out.type = text(json["type"])
            out.code = text(json["code"])
        }
        return out
    }

    /// The status implied by an error that arrived inside a 200 stream.
    var impliedStatus: Int {
        if let code, let n = Int(code), (400...599).contains(n) { return n }
        switch type ?? code ?? "" {
        case "invalid_request_error", "exceed_context_size_error", "BadRequestError": return 400
        case "authentication_error", "invalid_api_key": return 401
        case "permission_error", "billing_error": return 403
        case "not_found_error", "NotFoundError", "model_not_found": return 404
        case "request_too_large": return 413
        case "rate_limit_error", "rate_limit_exceeded", "insufficient_quota", "tokens", "requests": return 429
        case "timeout_error": return 504
        case "overloaded_error": return 529
        case "unavailable_error": return 503
        default: return 500
        }
    }
}

/// Maps HTTP failures, stream errors and connection failures to typed errors with one actionable line.
public enum ProviderErrorMapper {
    /// A non-2xx reply.
    public static func http(status: Int, headers: [String: String], body: [UInt8], context: ProviderContext,
                            now: Date = Date()) -> ProviderFailure {
        let info = ErrorBody.parse(body)
        var failure = map(status: status, info: info, context: context)
        failure.retryAfter = retryAfter(headers: headers, now: now)
        if failure.retryAfter == nil, status == 429 { failure.retryAfter = rateLimitReset(headers: headers, now: now) }
        if case .rateLimited(let m, _) = failure.error { failure.error = .rateLimited(m, retryAfter: failure.retryAfter) }
        if case .overloaded(let m, _) = failure.error { failure.error = .overloaded(m, retryAfter: failure.retryAfter) }
        switch headers["x-should-retry"]?.lowercased() {
        case "true": failure.shouldRetry = true
        case "false": failure.shouldRetry = false
        default: break
        }
        return failure
    }

    /// An error sent inside a 200 stream (`event: error`, `data: {"error":…}`, `{"error":"…"}`).
    public static func streamError(_ json: JSONValue, context: ProviderContext) -> ProviderFailure {
        let info = ErrorBody.from(json)
        var f = map(status: info.impliedStatus, info: info, context: context)
        f.status = nil
        return f
    }

    static func map(status: Int, info: ErrorBody, context c: ProviderContext) -> ProviderFailure {
        let who = c.displayName
        let server = info.message.map { clean($0) }
        let kind = [info.type, info.code].compactMap { $0 }.first
        let detail = kind.map { " \($0)" } ?? ""
        let lowerMessage = (info.message ?? "").lowercased()
        func with(_ e: LLMProviderError) -> ProviderFailure { ProviderFailure(e, status: status) }

        let isQuota = info.code == "insufficient_quota" || info.type == "insufficient_quota"
            || info.detailCode == "enforced_spend_limit_reached" || info.type == "billing_error"
            || (c.provider == "ollama" && status == 429 && lowerMessage.contains("usage limit"))
        if isQuota {
            switch c.provider {
            case "anthropic":
                return with(.quotaExhausted("the Anthropic account reached its spend limit or has a billing problem:"
                    + " check Plans & Billing / Limits at console.anthropic.com; not retrying"))
            case "openai":
                return with(.quotaExhausted("\(who) reports the account is out of quota (insufficient_quota):"
                    + " add credit or raise the limit at platform.openai.com; not retrying"))
            default:
                return with(.quotaExhausted("\(who) reports a usage limit was reached: wait or upgrade the plan;"
                    + " not retrying" + (server.map { " — \($0)" } ?? "")))
            }
        }
        let isContext = info.code == "context_length_exceeded" || info.type == "exceed_context_size_error"
            || lowerMessage.contains("context length") || lowerMessage.contains("context size")
            || lowerMessage.contains("context window") || lowerMessage.contains("prompt is too long")
            || lowerMessage.contains("maximum context")
        if isContext, status == 400 || status == 413 || status == 422 {
            var sizes = ""
            if let p = info.promptTokens, let n = info.contextTokens { sizes = " (\(p) tokens, context \(n))" }
            return with(.contextTooLong("the prompt is too long for model '\(c.model)' at \(who)\(sizes):"
                + " shorten the document or choose a model with a larger context"
                + (sizes.isEmpty ? (server.map { " — \($0)" } ?? "") : "")))
        }
        if lowerMessage.contains("no models loaded") {
            return with(.unknownModel("\(who) has no model loaded: load '\(c.model)' (LM Studio: `lms load`) and try again"))
        }

        switch status {
        case 401:
            switch c.provider {
            case "anthropic" where !c.isLocal:
                return with(.authentication("the Anthropic API key was rejected: check \(c.keyHint)"))
            case "openai" where !c.isLocal:
                return with(.authentication("the OpenAI API key was rejected: check \(c.keyHint)"))
            case "ollama":
                return with(.authentication("\(who) asked for an API key (401): set providers.ollama.api_key_env"
                    + " for ollama.com models, or use a local model"))
            default:
                return with(.authentication("\(who) rejected the API key (401): check \(c.keyHint)"))
            }
        case 403:
            return with(.permission("\(who) refused the request (403\(detail)): the key may not use model"
                + " '\(c.model)'; check its workspace and permissions, or choose another model"))
        case 404:
            let aboutModel = info.code == "model_not_found" || info.type == "not_found_error"
                || info.type == "NotFoundError" || lowerMessage.contains("model")
            if aboutModel {
                if c.provider == "ollama" {
                    return with(.unknownModel("Ollama has no model '\(c.model)': run `ollama pull \(c.model)`"
                        + " or set providers.ollama.model"))
                }
                return with(.unknownModel("\(who) does not know model '\(c.model)' (404): check `model` or"
                    + " providers.\(c.provider).model (`tk-agent config set providers.\(c.provider).model NAME`)"))
            }
            return with(.badRequest("\(who) answered 404 Not Found: check providers.\(c.provider).base_url"
                + " (\(c.baseURL))"))
        case 413:
            return with(.contextTooLong("the request is too large for \(who) (413): shorten the document"))
        case 429:
            return with(.rateLimited("\(who) is rate limiting requests (429): wait a little, or lower"
                + " review.max_concurrent", retryAfter: nil))
        case 529:
            return with(.overloaded("\(who) is overloaded (529): try again in a few minutes", retryAfter: nil))
        case 503:
            return with(.overloaded("\(who) is unavailable or overloaded (503): try again later"
                + (server.map { " — \($0)" } ?? ""), retryAfter: nil))
        case 408:
            return with(.server(status: 408, "\(who) timed out waiting for the request (408): try again"))
        case 409:
            return with(.server(status: 409, "\(who) reported a conflict (409): try again"))
        case 400, 422:
            return with(.badRequest("\(who) rejected the request (\(status)\(detail))"
                + (server.map { ": \($0)" } ?? ": check the model name and providers.\(c.provider) settings")))
        case 500...599:
            let why = server.map { ": \($0)" } ?? ""
            return with(.server(status: status, "\(who) had a server error (\(status)\(detail))\(why)"))
        default:
            return with(.server(status: status, "\(who) answered HTTP \(status)\(detail)" + (server.map { ": \($0)" } ?? "")))
        }
    }

    /// A transport failure (no reply, or a reply cut off).
    public static func transport(_ error: HTTPTransportError, context c: ProviderContext) -> ProviderFailure {
        let who = c.displayName
        switch error {
        case .cannotConnect(let why):
            let hint = c.provider == "ollama" ? "is Ollama running (`ollama serve`)? check providers.ollama.base_url / OLLAMA_HOST"
                : "check your network connection and providers.\(c.provider).base_url"
            return ProviderFailure(.network("cannot reach \(who) (\(why)): \(hint)"))
        case .timedOut(let seconds):
            return ProviderFailure(.timedOut("no reply from \(who) within \(format(seconds)) s:"
                + " try again, or raise review.request_timeout_seconds"))
        case .stalled(let seconds):
            return ProviderFailure(.stalled("the reply from \(who) stalled (no data for \(format(seconds)) s);"
                + " raise review.stall_seconds if the model is slow"))
        case .connectionLost(let why):
            return ProviderFailure(.incomplete("the connection to \(who) was lost before the reply was complete (\(why))"))
        case .invalidURL(let url):
            return ProviderFailure(.notConfigured("the URL '\(url)' is not valid: check providers.\(c.provider).base_url"))
        case .cancelled:
            return ProviderFailure(.cancelled)
        }
    }

    /// `retry-after-ms`, else `retry-after` (seconds or an HTTP date), in seconds.
    public static func retryAfter(headers: [String: String], now: Date = Date()) -> Double? {
        if let ms = headers["retry-after-ms"].flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }),
           ms.isFinite, ms >= 0 {
            return ms / 1000
        }
        guard let raw = headers["retry-after"]?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else { return nil }
        if let s = Double(raw), s.isFinite, s >= 0 { return s }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        for pattern in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            f.dateFormat = pattern
            if let d = f.date(from: raw) { return max(0, d.timeIntervalSince(now)) }
        }
        return nil
    }

    /// When an exhausted rate limit resets, from the reset headers: OpenAI's
    /// `x-ratelimit-reset-{requests,tokens}` (Go durations such as `6m0s`, `3.89s`, `120ms`) and
    /// Anthropic's `anthropic-ratelimit-*-reset` (RFC 3339), for a limit whose `remaining` is 0.
    public static func rateLimitReset(headers: [String: String], now: Date = Date()) -> Double? {
        var waits: [Double] = []
        for kind in ["requests", "tokens"] where headers["x-ratelimit-remaining-\(kind)"] == "0" {
            if let d = headers["x-ratelimit-reset-\(kind)"].flatMap(goDuration) { waits.append(d) }
        }
        for kind in ["requests", "tokens", "input-tokens", "output-tokens"]
        where headers["anthropic-ratelimit-\(kind)-remaining"] == "0" {
            if let raw = headers["anthropic-ratelimit-\(kind)-reset"], let date = RFC3339Lenient.parse(raw) {
                waits.append(max(0, date.timeIntervalSince(now)))
            }
        }
        return waits.max()
    }

    /// A Go duration (`1h2m3.5s`, `120ms`, `3.89s`) in seconds.
    static func goDuration(_ s: String) -> Double? {
        var total = 0.0
        var number = ""
        var unit = ""
        var any = false
        func flush() -> Bool {
            guard let n = Double(number) else { return false }
            switch unit {
            case "h": total += n * 3600
            case "m": total += n * 60
            case "s": total += n
            case "ms": total += n / 1000
            case "us", "µs": total += n / 1_000_000
            case "ns": total += n / 1_000_000_000
            default: return false
            }
            number = ""; unit = ""; any = true
            return true
        }
        for ch in s.trimmingCharacters(in: .whitespaces) {
            if ch.isNumber || ch == "." {
                if !unit.isEmpty { guard flush() else { return nil } }
                number.append(ch)
            } else {
                unit.append(ch)
            }
        }
        if !number.isEmpty || !unit.isEmpty { guard flush() else { return nil } }
        return any ? total : nil
    }

    /// One line: whitespace runs collapsed, at most 160 characters.
    static func clean(_ s: String) -> String {
        let collapsed = s.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return collapsed.count > 160 ? String(collapsed.prefix(159)) + "…" : collapsed
    }

    static func format(_ seconds: Double) -> String {
        seconds.rounded() == seconds ? String(Int(seconds)) : String(format: "%.1f", seconds)
    }
}

extension LLMProviderError {
    /// The same error with its line changed (used to redact and to add the attempt count).
    func mapMessage(_ f: (String) -> String) -> LLMProviderError {
        switch self {
        case .notConfigured(let m): return .notConfigured(f(m))
        case .authentication(let m): return .authentication(f(m))
        case .permission(let m): return .permission(f(m))
        case .unknownModel(let m): return .unknownModel(f(m))
        case .contextTooLong(let m): return .contextTooLong(f(m))
        case .quotaExhausted(let m): return .quotaExhausted(f(m))
        case .rateLimited(let m, let r): return .rateLimited(f(m), retryAfter: r)
        case .overloaded(let m, let r): return .overloaded(f(m), retryAfter: r)
        case .server(let s, let m): return .server(status: s, f(m))
        case .badRequest(let m): return .badRequest(f(m))
        case .network(let m): return .network(f(m))
        case .timedOut(let m): return .timedOut(f(m))
        case .stalled(let m): return .stalled(f(m))
        case .incomplete(let m): return .incomplete(f(m))
        case .invalidReply(let m): return .invalidReply(f(m))
        case .cancelled: return .cancelled
        }
    }

    /// The error with every occurrence of the given secrets replaced by `***`.
    public func redacting(_ secrets: [String]) -> LLMProviderError {
        let live = secrets.filter { $0.count >= 4 }
        if live.isEmpty { return self }
        return mapMessage { m in live.reduce(m) { $0.replacingOccurrences(of: $1, with: "***") } }
    }

    /// A short name of the kind of error (`rate_limited`, `authentication`, …) for logs and JSON.
    public var kind: String {
        switch self {
        case .notConfigured: "not_configured"
        case .authentication: "authentication"
        case .permission: "permission"
        case .unknownModel: "unknown_model"
        case .contextTooLong: "context_too_long"
        case .quotaExhausted: "quota_exhausted"
        case .rateLimited: "rate_limited"
        case .overloaded: "overloaded"
        case .server: "server"
        case .badRequest: "bad_request"
        case .network: "network"
        case .timedOut: "timed_out"
        case .stalled: "stalled"
        case .incomplete: "incomplete"
        case .invalidReply: "invalid_reply"
        case .cancelled: "cancelled"
        }
    }
}

/// RFC 3339 timestamps as rate-limit headers send them (with or without fractional seconds).
enum RFC3339Lenient {
    static func parse(_ s: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: s) { return d }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: s)
    }
}
