import Glibc

/// Why a document was not rewritten.
public struct DocumentRewriteError: Error, CustomStringConvertible, Sendable {
    public enum Reason: Sendable, Equatable {
        /// It could not be read again just before the write.
        case unreadable
        /// The new bytes could not be written (the document is as it was).
        case unwritable
    }
    public var reason: Reason
    public var path: PathBytes
    public var cause: FileSystemError
    public var description: String {
        switch reason {
        case .unreadable: "cannot read \(path.display) again before writing it (\(cause))"
        case .unwritable: "cannot write \(path.display) (\(cause)); it is unchanged"
        }
    }
}

/// The one way a writer's document is rewritten (`suggest`, `pipe --apply`, `restore`, accepting a
/// suggestion from the CLI or the editor): the file is read again just before the write, the caller
/// decides from those bytes what to write (or refuses, when they are not what its change was made
/// for), and the new bytes replace the file atomically and durably, keeping its permissions.
public enum DocumentRewriter {
    /// Rewrites `path` with what `change` makes of its current bytes.
    /// - Parameters:
    ///   - change: given the bytes on disk now; returns the new bytes, nil to leave the file as it is,
    ///     or throws to refuse (its error reaches the caller unchanged). It runs before anything is
    ///     written, so it may also keep the current version elsewhere first (history).
    /// - Returns: the bytes before and after, or nil when `change` left the file alone.
    @discardableResult
    public static func rewrite(_ path: PathBytes, limit: Int = 256 << 20,
                               _ change: ([UInt8]) throws -> [UInt8]?) throws -> (old: [UInt8], new: [UInt8])? {
        let current: [UInt8]
        do { current = try FileSystem.read(path, limit: limit) } catch {
            throw DocumentRewriteError(reason: .unreadable, path: path, cause: error)
        }
        guard let new = try change(current) else { return nil }
        do { try FileSystem.writeAtomically(new, to: path, mode: mode(of: path), durable: true) } catch {
            throw DocumentRewriteError(reason: .unwritable, path: path, cause: error)
        }
        return (current, new)
    }

    /// The permission bits of `path` (0644 when it cannot be read), so that a rewrite keeps them.
    public static func mode(of path: PathBytes) -> mode_t {
        var st = stat()
        return path.withCString { lstat($0, &st) } == 0 ? st.st_mode & 0o7777 : 0o644
    }
}
