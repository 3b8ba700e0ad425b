import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// One HTTP request as the providers build it.
public struct HTTPRequest: Sendable, Equatable {
    public var url: String
    public var method: String
    /// Header names and values (values may hold a key: never log them).
    public var headers: [String: String]
    public var body: [UInt8]?

    public init(url: String, method: String = "POST", headers: [String: String] = [:], body: [UInt8]? = nil) {
        self.url = url; self.method = method; self.headers = headers; self.body = body
    }
}

/// The status and headers of a reply (header names lowercased).
public struct HTTPHead: Sendable, Equatable {
    public var status: Int
    public var headers: [String: String]
    public init(status: Int, headers: [String: String]) { self.status = status; self.headers = headers }
}

/// What a transport yields: the head once, then body bytes as they arrive.
public enum HTTPEvent: Sendable, Equatable {
    case head(HTTPHead)
    case bytes([UInt8])
}

/// How long to wait. `firstByte` runs from the start until the reply head arrives (it covers the
/// connection and a cold model load); `idle` is the longest silence allowed after it (nil:
/// `firstByte` again).
public struct HTTPTimeouts: Sendable, Equatable {
    public var firstByte: Double
    public var idle: Double?
    public init(firstByte: Double, idle: Double?) {
        self.firstByte = firstByte; self.idle = idle
    }
}

/// Failures below HTTP.
public enum HTTPTransportError: Error, Sendable, Equatable {
    case cannotConnect(String)
    /// No reply head within `firstByte` seconds.
    case timedOut(Double)
    /// No bytes for `idle` seconds after the head.
    case stalled(Double)
    /// The connection dropped after the reply started.
    case connectionLost(String)
    case invalidURL(String)
    case cancelled
}

/// Sends requests. The URLSession transport is the real one; tests script their own.
public protocol HTTPTransport: Sendable {
    func events(for request: HTTPRequest, timeouts: HTTPTimeouts) -> AsyncThrowingStream<HTTPEvent, any Error>
}

/// HTTP through URLSession with a data delegate (FoundationNetworking has no `bytes(for:)`), with
/// its own first-byte and idle watchdog.
public struct URLSessionTransport: HTTPTransport {
    public init() {}

    public func events(for request: HTTPRequest, timeouts: HTTPTimeouts) -> AsyncThrowingStream<HTTPEvent, any Error> {
        AsyncThrowingStream { continuation in
            guard let url = URL(string: request.url), let scheme = url.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", url.host != nil else {
                continuation.finish(throwing: HTTPTransportError.invalidURL(request.url))
                return
            }
            var urlRequest = URLRequest(url: url)
            urlRequest.httpMethod = request.method
            for (k, v) in request.headers { urlRequest.setValue(v, forHTTPHeaderField: k) }
            if let body = request.body { urlRequest.httpBody = Data(body) }
            // URLSession's own timer is only a backstop; the watchdog below decides.
            urlRequest.timeoutInterval = max(timeouts.firstByte, timeouts.idle ?? 0) + 30

            let delegate = StreamingDelegate(continuation: continuation, firstByte: timeouts.firstByte)
            let config = URLSessionConfiguration.ephemeral
            config.timeoutIntervalForRequest = urlRequest.timeoutInterval
            config.timeoutIntervalForResource = 7 * 24 * 3600
            config.requestCachePolicy = .reloadIgnoringLocalCacheData
            config.urlCache = nil
            config.httpCookieStorage = nil
            let session = URLSession(configuration: config, delegate: delegate, delegateQueue: nil)
            let task = session.dataTask(with: urlRequest)

            let tick = max(0.02, min(0.5, min(timeouts.firstByte, timeouts.idle ?? timeouts.firstByte) / 10))
            let watchdog = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(nanoseconds: UInt64(tick * 1e9))
                    if Task.isCancelled { return }
                    if let failure = delegate.overdue(timeouts: timeouts) {
                        delegate.fail(failure)
                        task.cancel()
                        return
                    }
                }
            }
            continuation.onTermination = { _ in
                watchdog.cancel()
                task.cancel()
                session.invalidateAndCancel()
            }
            task.resume()
        }
    }
}

/// Receives the reply for one task and forwards it into the stream.
/// Sendable: all mutable state is behind a Mutex; the continuation is Sendable.
final class StreamingDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct State {
        var finished = false
        var gotHead = false
        var lastActivity = ContinuousClock.now
        var started = ContinuousClock.now
    }
    private let state = Mutex(State())
    private let continuation: AsyncThrowingStream<HTTPEvent, any Error>.Continuation
    private let firstByte: Double

    init(continuation: AsyncThrowingStream<HTTPEvent, any Error>.Continuation, firstByte: Double) {
        self.continuation = continuation
        self.firstByte = firstByte
    }

    /// The failure to report when the reply is overdue, or nil.
    func overdue(timeouts: HTTPTimeouts) -> HTTPTransportError? {
        state.withLock { s in
            if s.finished { return nil }
            let now = ContinuousClock.now
            if !s.gotHead {
                return now - s.started > .milliseconds(Int64(timeouts.firstByte * 1000)) ? .timedOut(timeouts.firstByte) : nil
            }
            let idle = timeouts.idle ?? timeouts.firstByte
            return now - s.lastActivity > .milliseconds(Int64(idle * 1000)) ? .stalled(idle) : nil
        }
    }

    func fail(_ error: HTTPTransportError) {
        let first = state.withLock { s -> Bool in
            if s.finished { return false }
            s.finished = true
            return true
        }
        if first { continuation.finish(throwing: error) }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void) {
        let http = response as? HTTPURLResponse
        var headers: [String: String] = [:]
        for (k, v) in http?.allHeaderFields ?? [:] {
            if let k = k as? String, let v = v as? String { headers[k.lowercased()] = v }
        }
        let live = state.withLock { s -> Bool in
            s.gotHead = true
            s.lastActivity = .now
            return !s.finished
        }
        if live { continuation.yield(.head(HTTPHead(status: http?.statusCode ?? 0, headers: headers))) }
        completionHandler(live ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let live = state.withLock { s -> Bool in
            s.lastActivity = .now
            return !s.finished
        }
        if live { continuation.yield(.bytes(Array(data))) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (first, gotHead) = state.withLock { s -> (Bool, Bool) in
            if s.finished { return (false, s.gotHead) }
            s.finished = true
            return (true, s.gotHead)
        }
        session.finishTasksAndInvalidate()
        guard first else { return }
        guard let error else { continuation.finish(); return }
        var mapped = Self.map(error, afterHead: gotHead)
        if mapped == .timedOut(0) { mapped = .timedOut(firstByte) }
        continuation.finish(throwing: mapped)
    }

    static func map(_ error: any Error, afterHead: Bool) -> HTTPTransportError {
        let ns = error as NSError
        let code = URLError.Code(rawValue: ns.code)
        let why = ns.localizedDescription
        if ns.domain == NSURLErrorDomain {
            switch code {
            case .cancelled: return .cancelled
            case .timedOut: return afterHead ? .connectionLost("timed out") : .timedOut(0)
            case .networkConnectionLost, .badServerResponse, .cannotParseResponse, .cannotDecodeRawData,
                 .cannotDecodeContentData, .zeroByteResource:
                return afterHead ? .connectionLost(why) : .cannotConnect(why)
            case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet,
                 .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
                 .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot, .clientCertificateRejected,
                 .internationalRoamingOff, .dataNotAllowed, .callIsActive, .unsupportedURL, .badURL:
                return .cannotConnect(why)
            default:
                return afterHead ? .connectionLost(why) : .cannotConnect(why)
            }
        }
        return afterHead ? .connectionLost(why) : .cannotConnect(why)
    }
}
