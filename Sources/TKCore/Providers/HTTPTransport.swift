import Foundation

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

/// Sends requests. `CurlTransport` is the real one; tests script their own.
public protocol HTTPTransport: Sendable {
    func events(for request: HTTPRequest, timeouts: HTTPTimeouts) -> AsyncThrowingStream<HTTPEvent, any Error>
}
