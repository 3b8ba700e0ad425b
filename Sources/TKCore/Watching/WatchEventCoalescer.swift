/// Shrinks one batch of watch events without changing what applying them in order means.
///
/// The batch is split at every `.removed`. Within each part the consumer reads the disk after
/// the whole part was emitted, so order does not matter there: duplicate `.changed` paths go,
/// `.rescan`s inside another `.rescan` of the same root go, and `.changed` paths inside a
/// `.rescan` of the same root go.
enum WatchEventCoalescer {
    static func coalesce(_ events: [WatchEvent]) -> [WatchEvent] {
        guard events.count > 1 else { return events }
        var out: [WatchEvent] = []
        out.reserveCapacity(events.count)
        var segment: [WatchEvent] = []
        for event in events {
            if case .removed = event {
                out.append(contentsOf: coalesceSegment(segment))
                segment.removeAll()
                out.append(event)
            } else {
                segment.append(event)
            }
        }
        out.append(contentsOf: coalesceSegment(segment))
        return out
    }

    private static func coalesceSegment(_ events: [WatchEvent]) -> [WatchEvent] {
        guard events.count > 1 else { return events }
        var rescans: [PathBytes: [PathBytes]] = [:]  // root → rescanned folders
        for event in events {
            if case .rescan(let root, let directory, _) = event { rescans[root, default: []].append(directory) }
        }
        func covered(_ root: PathBytes, _ path: PathBytes, strictly: Bool) -> Bool {
            guard let dirs = rescans[root] else { return false }
            return dirs.contains { path.isWithin($0) && (!strictly || path != $0) }
        }
        var seenChanged: Set<WatchEvent> = []
        var seenRescan: Set<[PathBytes]> = []
        var out: [WatchEvent] = []
        for event in events {
            switch event {
            case .changed(let root, let path):
                if covered(root, path, strictly: false) || !seenChanged.insert(event).inserted { continue }
            case .rescan(let root, let directory, _):
                if covered(root, directory, strictly: true) || !seenRescan.insert([root, directory]).inserted {
                    continue
                }
            default:
                break
            }
            out.append(event)
        }
        return out
    }
}
