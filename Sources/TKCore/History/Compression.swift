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

    /// The bytes compressed (zlib format). The fastest level: a project's first scan compresses
    /// every document once, on the writer's core, and prose gains little from the slower levels
    /// (the `large` corpus: 6.2× at level 1, 7.2× at the default, in 70% of the time).
    public static func compress(_ input: [UInt8], level: Int32 = Z_BEST_SPEED) throws(Failure) -> [UInt8] {
        var bound = compressBound(uLong(input.count))
        var out = [UInt8](repeating: 0, count: Int(bound))
        let code = input.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                compress2(dst.baseAddress, &bound, src.baseAddress, uLong(src.count), level)
            }
        }
        guard code == Z_OK else { throw .zlib(code) }
        // A copy of the used part: the buffer was sized for the worst case (larger than the input).
        return Array(out[..<Int(bound)])
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
