import Synchronization

/// Serialises every cmark-gfm parse and render in the process.
///
/// cmark-gfm with its syntax extensions attached is not safe to use from several threads at once in
/// this build (the extensions share mutable state), so every parse goes through this one lock.
/// Parses are fast (megabytes per second), so the lock costs little even with `suggest --parallel`.
public enum CMarkSerial {
    private static let lock = Mutex<Void>(())

    /// Runs `body` while no other thread is inside cmark-gfm.
    public static func run<T>(_ body: () throws -> T) rethrows -> T {
        try lock.withLock { _ in try body() }
    }
}
