import Foundation

/// Content-addressed, compressed blobs in the data folder: `history/objects/ab/<sha256>.z`. The same
/// bytes are stored once whatever the number of snapshots or documents that hold them.
public struct ObjectStore: Sendable {
    public let root: PathBytes

    public init(paths: Paths) { root = paths.dataDirectory.appending("history").appending("objects") }
    public init(root: PathBytes) { self.root = root }

    func path(_ sha: String) -> PathBytes {
        root.appending(String(sha.prefix(2))).appending(sha + ".z")
    }

    /// Stores bytes (nothing to do when they are already there). - Returns: their SHA-256.
    @discardableResult
    public func put(_ bytes: [UInt8], sha: String? = nil) throws -> String {
        let sha = sha ?? SHA256Digest.hex(bytes)
        let p = path(sha)
        if FileSystem.lstatIfExists(p) != nil { return sha }
        try FileSystem.makeDirectories(p.parent, mode: 0o700)
        try FileSystem.writeAtomically(try Compression.compress(bytes), to: p, mode: 0o600, durable: false)
        return sha
    }

    /// The bytes of an object; checks them against their address.
    public func get(_ sha: String) throws -> [UInt8] {
        let stored = try FileSystem.read(path(sha), limit: 512 << 20)
        let bytes = try Compression.decompress(stored)
        guard SHA256Digest.hex(bytes) == sha else { throw HistoryError("the stored version \(sha.prefix(12)) is damaged") }
        return bytes
    }

    public func has(_ sha: String) -> Bool { FileSystem.lstatIfExists(path(sha)) != nil }

    public func remove(_ sha: String) { try? FileSystem.remove(path(sha)) }
}

/// A history problem, as one line for the writer.
public struct HistoryError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}
