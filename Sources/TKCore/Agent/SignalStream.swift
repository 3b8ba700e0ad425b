import Dispatch
import Foundation

/// Delivers POSIX signals (SIGHUP, SIGUSR1) as an `AsyncStream` through dispatch signal sources.
public final class SignalStream: Sendable {
    public let stream: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]
    private let continuation: AsyncStream<Int32>.Continuation

    private init(stream: AsyncStream<Int32>, continuation: AsyncStream<Int32>.Continuation, sources: [any DispatchSourceSignal]) {
        self.stream = stream
        self.continuation = continuation
        self.sources = sources
    }

    public static func make(_ signals: [Int32]) -> SignalStream {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        let queue = DispatchQueue(label: "tk-agent.signals")
        var sources: [any DispatchSourceSignal] = []
        for sig in signals {
            signal(sig, SIG_IGN)
            let src = DispatchSource.makeSignalSource(signal: sig, queue: queue)
            src.setEventHandler { continuation.yield(sig) }
            src.resume()
            sources.append(src)
        }
        return SignalStream(stream: stream, continuation: continuation, sources: sources)
    }

    public func cancel() {
        for s in sources { s.cancel() }
        continuation.finish()
    }
}
