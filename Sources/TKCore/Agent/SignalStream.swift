import Dispatch
import Foundation
import Synchronization

/// Delivers POSIX signals (SIGHUP, SIGUSR1) as an `AsyncStream` through dispatch signal sources.
public final class SignalStream: Sendable {
    public let stream: AsyncStream<Int32>
    private let sources = Mutex<[any DispatchSourceSignal]>([])
    private let continuation: AsyncStream<Int32>.Continuation

    private init(stream: AsyncStream<Int32>, continuation: AsyncStream<Int32>.Continuation) {
        self.stream = stream
        self.continuation = continuation
    }

    public static func make(_ signals: [Int32]) -> SignalStream {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let result = SignalStream(stream: stream, continuation: continuation)
        let queue = DispatchQueue(label: "tk-agent.signals")
        for sig in signals {
            signal(sig, SIG_IGN)
            result.sources.withLock { list in
                let src = DispatchSource.makeSignalSource(signal: sig, queue: queue)
                src.setEventHandler { continuation.yield(sig) }
                src.resume()
                list.append(src)
            }
        }
        return result
    }

    public func cancel() {
        sources.withLock { list in
            for s in list { s.cancel() }
            list.removeAll()
        }
        continuation.finish()
    }
}
