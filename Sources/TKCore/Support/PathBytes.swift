import Foundation

/// A file-system path kept as the exact bytes the kernel gives.
///
/// Two names that differ only in Unicode normalisation (NFC/NFD) are two different paths, and a
/// name that is not valid UTF-8 is kept as it is. Make a `String` only for display (`display`).
public struct PathBytes: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public init<S: Sequence>(bytes: S) where S.Element == UInt8 { self.bytes = Array(bytes) }
    /// A path from a Swift string, taking its UTF-8 bytes as they are (no normalisation).
    public init(_ string: String) { self.bytes = Array(string.utf8) }

    public static func < (lhs: PathBytes, rhs: PathBytes) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }

    public var isEmpty: Bool { bytes.isEmpty }
    public var isAbsolute: Bool { bytes.first == UInt8(ascii: "/") }

    /// The path for display: invalid UTF-8 becomes U+FFFD.
    public var display: String { String(decoding: bytes, as: UTF8.self) }
    public var description: String { display }

    /// The path as a `String` only when its bytes are valid UTF-8 (round-trips exactly).
    public var validUTF8: String? {
        let s = String(decoding: bytes, as: UTF8.self)
        return Array(s.utf8) == bytes ? s : nil
    }

    /// Joins a child component or relative path.
    public func appending(_ component: PathBytes) -> PathBytes {
        if bytes.isEmpty { return component }
        if component.bytes.isEmpty { return self }
        var out = bytes
        if out.last != UInt8(ascii: "/") { out.append(UInt8(ascii: "/")) }
        out.append(contentsOf: component.bytes.drop(while: { $0 == UInt8(ascii: "/") }))
        return PathBytes(out)
    }
    public func appending(_ component: String) -> PathBytes { appending(PathBytes(component)) }

    /// The components split on `/`, empty ones dropped.
    public var components: [PathBytes] {
        bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true).map { PathBytes(Array($0)) }
    }

    /// The last component.
    public var lastComponent: PathBytes {
        guard let i = bytes.lastIndex(of: UInt8(ascii: "/")) else { return self }
        return PathBytes(Array(bytes[(i + 1)...]))
    }

    /// Everything before the last `/` (`/` for a top-level absolute path, empty for a bare name).
    public var parent: PathBytes {
        guard let i = bytes.lastIndex(of: UInt8(ascii: "/")) else { return PathBytes([]) }
        if i == 0 { return PathBytes("/") }
        return PathBytes(Array(bytes[..<i]))
    }

    /// Whether `self` is `other` or lies below it.
    public func isWithin(_ other: PathBytes) -> Bool {
        if other.bytes == bytes { return true }
        guard bytes.count > other.bytes.count, bytes.starts(with: other.bytes) else { return false }
        return other.bytes.last == UInt8(ascii: "/") || bytes[other.bytes.count] == UInt8(ascii: "/")
    }

    /// The path relative to `root`, or nil when it is not below it.
    public func relative(to root: PathBytes) -> PathBytes? {
        guard isWithin(root), bytes != root.bytes else { return nil }
        var start = root.bytes.count
        if root.bytes.last != UInt8(ascii: "/") { start += 1 }
        return PathBytes(Array(bytes[start...]))
    }

    /// Calls `body` with a NUL-terminated C string of the path.
    public func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        var buf = bytes.map { CChar(bitPattern: $0) }
        buf.append(0)
        return try buf.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// Whether the file name ends with one of the given ASCII suffixes (case-insensitive).
    public func hasSuffix(_ suffix: String, caseInsensitive: Bool = true) -> Bool {
        let s = Array(suffix.utf8)
        guard bytes.count >= s.count else { return false }
        let tail = bytes[(bytes.count - s.count)...]
        if !caseInsensitive { return Array(tail) == s }
        return zip(tail, s).allSatisfy { asciiLower($0) == asciiLower($1) }
    }
}

@inline(__always) func asciiLower(_ b: UInt8) -> UInt8 { (b >= 65 && b <= 90) ? b + 32 : b }

extension PathBytes: Codable {
    /// Encoded as a string when the bytes are valid UTF-8, else as `{"bytes_b64": "…"}`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let s = try? c.decode(String.self) { self.init(s); return }
        let o = try c.decode([String: String].self)
        guard let b64 = o["bytes_b64"], let data = Data(base64Encoded: b64) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "path is neither a string nor bytes_b64")
        }
        self.init(Array(data))
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if let s = validUTF8 { try c.encode(s) } else { try c.encode(["bytes_b64": Data(bytes).base64EncodedString()]) }
    }
}
