import CInotify
import Foundation
import Synchronization

/// Wakes the server when a sidecar of an open document changes: an inotify watch on each
/// sidecar's folder (sidecars are replaced by rename, so `moved_to`/`close_write`/`delete` in the
/// folder is what a change looks like). Folders that do not exist yet (no `.tk/` until the first
/// review) are covered by the server's once-a-second look.
final class LSPSidecarWatcher: Sendable {
    private let fd: InotifyDescriptor?
    private let watched = Mutex<Set<PathBytes>>([])

    init() { fd = try? InotifyDescriptor.open() }

    var isAvailable: Bool { fd != nil }

    /// Watches a folder (again after it was created); a folder already watched costs nothing.
    func watch(folder: PathBytes) {
        guard let fd else { return }
        guard !watched.withLock({ $0.contains(folder) }) else { return }
        guard FileSystem.lstatIfExists(folder)?.kind == .directory else { return }
        let mask: InotifyEvent.Mask = [.closeWrite, .movedTo, .movedFrom, .delete, .create, .onlyDirectory, .dontFollow]
        if (try? fd.addWatch(folder, mask: mask)) != nil {
            _ = watched.withLock { $0.insert(folder) }
        }
    }

    /// Calls `changed` (on the watcher's thread) after each burst of events.
    func start(_ changed: @escaping @Sendable () -> Void) {
        guard let fd else { return }
        let thread = Thread {
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                var p = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
                let r = poll(&p, 1, 1000)
                if r < 0 && errno != EINTR { return }
                guard r > 0 else { continue }
                var got = false
                while true {
                    let n = buffer.withUnsafeMutableBytes { (try? fd.read(into: $0)) ?? -1 }
                    if n <= 0 { break }
                    got = true
                }
                if got {
                    usleep(20_000)   // let the rename that follows a temporary file's write land too
                    changed()
                }
            }
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
}
