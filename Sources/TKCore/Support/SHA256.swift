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

    /// SHA-256 fetched from libcrypto's provider once. With `EVP_sha256()` OpenSSL 3 fetches the
    /// algorithm again at every digest, which costs more than hashing a short text (`check` makes
    /// an id for each of a chapter's thousand findings).
    struct Fetched: @unchecked Sendable {
        // @unchecked: an `EVP_MD` once fetched is immutable and may be used from any thread
        // (OpenSSL's "Threads" documentation); it is never freed, as it lives for the process.
        let md: OpaquePointer?
    }
    static let fetched = Fetched(md: EVP_MD_fetch(nil, "SHA256", nil))

    static func digest(buffer: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var size: UInt32 = 0
        // EVP_Digest fails only when libcrypto cannot allocate its context or lacks SHA-256 (a
        // broken installation): never because of the bytes, so it is a precondition, not an error.
        let ok = out.withUnsafeMutableBufferPointer { o in
            EVP_Digest(buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), buffer.count, o.baseAddress, &size, fetched.md ?? EVP_sha256(), nil)
        }
        precondition(ok == 1 && size == 32, "libcrypto cannot compute SHA-256")
        return out
    }
}
