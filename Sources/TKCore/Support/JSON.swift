import Foundation

/// JSON encoding and decoding as the CLI and sidecars use it.
public enum JSON {
    /// Pretty, key-sorted output with no escaped slashes: stable bytes for sidecars and diffs.
    public static func encoder(pretty: Bool = true) -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = pretty ? [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        return e
    }
    public static func encode<T: Encodable>(_ value: T, pretty: Bool = true) throws -> [UInt8] {
        var bytes = Array(try encoder(pretty: pretty).encode(value))
        if pretty { bytes.append(10) }
        return bytes
    }
    public static func string<T: Encodable>(_ value: T, pretty: Bool = true) -> String {
        guard let b = try? encode(value, pretty: pretty) else { return "{}" }
        var s = String(decoding: b, as: UTF8.self)
        if s.hasSuffix("\n") { s.removeLast() }
        return s
    }
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try JSONDecoder().decode(type, from: Data(bytes))
    }
}

/// A JSON value tree, used for layered configuration and loosely typed model replies.
public enum JSONValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n):
            if n.rounded() == n, abs(n) < 1e15 { try c.encode(Int64(n)) } else { try c.encode(n) }
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var doubleValue: Double? { if case .number(let n) = self { return n }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    public var objectValue: [String: JSONValue]? { if case .object(let o) = self { return o }; return nil }

    /// Parses JSON bytes into a value tree: `JSONSyntax.value`, which reads what Foundation's
    /// decoder reads the same way, without its cost; a text it declines goes to the decoder, which
    /// has the last word (it also reads UTF-16 and UTF-32) and whose error callers describe.
    public static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        do { return try JSONSyntax.value(bytes) } catch {
            return try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        }
    }

    /// A compact text form for display (`config get`).
    public var compactText: String {
        switch self {
        case .string(let s): return s
        default: return JSON.string(self, pretty: false)
        }
    }
}
