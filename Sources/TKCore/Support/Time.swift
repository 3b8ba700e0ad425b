import Foundation

/// The current time, injectable for tests.
public struct Now: Sendable {
    public var date: @Sendable () -> Date
    public init(_ date: @escaping @Sendable () -> Date) { self.date = date }
    public static let system = Now { Date() }
}

/// RFC 3339 timestamps in UTC, as the contract requires.
public enum RFC3339 {
    public static func string(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: date)
    }
    public static func date(_ string: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        if let d = f.date(from: string) { return d }
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: string)
    }
}
