import Foundation

/// Writes the live status snapshot to `<runtime>/status.json` (0600), atomically.
public struct StatusWriter: Sendable {
    public let paths: Paths
    public init(paths: Paths) { self.paths = paths }

    public func write(_ snapshot: StatusSnapshot) {
        guard let bytes = try? JSON.encode(snapshot) else { return }
        try? FileSystem.writeAtomically(bytes, to: paths.statusFile, mode: 0o600)
    }

    public func remove() { try? FileSystem.remove(paths.statusFile) }
}
