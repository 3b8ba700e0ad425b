import Foundation

/// Writes the live status snapshot to `<runtime>/status.json` (0600), atomically.
public struct StatusWriter: Sendable {
    public let paths: Paths
    public init(paths: Paths) { self.paths = paths }

    public func write(_ snapshot: StatusSnapshot) {
        guard let bytes = try? JSON.encode(snapshot) else { return }
        // The runtime folder may have been removed under the agent (a tmp cleaner, a logout).
        if snapshot.running { AgentLock.retakeIfMissing(paths: paths) }
        if (try? FileSystem.writeAtomically(bytes, to: paths.statusFile, mode: 0o600)) == nil {
            // The folder is gone: make it again.
            try? paths.prepare()
            try? FileSystem.writeAtomically(bytes, to: paths.statusFile, mode: 0o600)
        }
    }

    public func remove() { try? FileSystem.remove(paths.statusFile) }
}
