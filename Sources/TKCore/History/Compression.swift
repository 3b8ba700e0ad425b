import CZlib

/// zlib compression of the snapshots of the version history (prose compresses to about a third).
public enum Compression {
    public enum Failure: Error, Sendable, CustomStringConvertible {
        case zlib(Int32)
        case tooLarge
        public var description: String {
            switch self {
            case .zlib(let code): "zlib error \(code)"
            case .tooLarge: "the stored version is larger than allowed"
            }
        }
    }

    /// The bytes compressed (zlib format, default level).
    public static func compress(_ input: [UInt8]) throws(Failure) -> [UInt8] {
        var bound = compressBound(uLong(input.count))
        var out = [UInt8](repeating: 0, count: Int(bound))
        let code = input.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                compress2(dst.baseAddress, &bound, src.baseAddress, uLong(src.count), Z_DEFAULT_COMPRESSION)
            }
        }
        guard code == Z_OK else { throw .zlib(code) }
        out.removeSubrange(Int(bound)...)
        return out
    }

    /// The bytes decompressed; `expected` is the original size when known (else grown as needed).
    /// - Parameter limit: the largest output accepted (a damaged file cannot exhaust memory).
    public static func decompress(_ input: [UInt8], expected: Int? = nil, limit: Int = 256 << 20) throws(Failure) -> [UInt8] {
        var capacity = max(64, expected ?? input.count * 4)
        while true {
            if capacity > limit { throw .tooLarge }
            var size = uLong(capacity)
            var out = [UInt8](repeating: 0, count: capacity)
            let code = input.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    uncompress(dst.baseAddress, &size, src.baseAddress, uLong(src.count))
                }
            }
            if code == Z_OK {
                out.removeSubrange(Int(size)...)
                return out
            }
            if code == Z_BUF_ERROR { capacity *= 2; continue }
            throw .zlib(code)
        }
    }
}
