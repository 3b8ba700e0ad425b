import CCrypto

/// SHA-256, the content hash of documents, sidecars, passages and kept versions: OpenSSL's
/// libcrypto, which uses the CPU's SHA extensions where it has them (a first index hashes every
/// byte of a project; the portable Swift loop this replaces was a twentieth of that time).
public enum SHA256Digest {
    /// The lowercase hex digest of `bytes`.
    public static func hex<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        let d = digest(bytes)
        let hexdigits: StaticString = "0123456789abcdef"
        return hexdigits.withUTF8Buffer { hx in
            String(unsafeUninitializedCapacity: 64) { out in
                for (i, b) in d.enumerated() {
                    out[2 * i] = hx[Int(b >> 4)]
                    out[2 * i + 1] = hx[Int(b & 15)]
                }
                return 64
            }
        }
    }

    /// The 32-byte digest of `bytes`.
    public static func digest<C: Collection>(_ bytes: C) -> [UInt8] where C.Element == UInt8 {
        if let d = bytes.withContiguousStorageIfAvailable({ digest(buffer: UnsafeRawBufferPointer($0)) }) { return d }
        return Array(bytes).withUnsafeBytes { digest(buffer: $0) }
    }

    static func digest(buffer: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        // libcrypto's SHA-256 fails only when it is broken (never because of the bytes): a
        // precondition, not an error (`CCrypto/shim.h` says why not through EVP).
        let ok = out.withUnsafeMutableBufferPointer { o in
            guard let base = o.baseAddress else { return Int32(0) }
            return tk_sha256(buffer.baseAddress, buffer.count, base)
        }
        precondition(ok == 1, "libcrypto cannot compute SHA-256")
        return out
    }
}
