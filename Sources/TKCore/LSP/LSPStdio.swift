import Foundation

/// Runs the language server on standard input and output until the client sends `exit` (or
/// closes standard input).
public enum LSPStdio {
    /// - Returns: the exit status: 0 after `shutdown` then `exit`, 1 otherwise.
    public static func run(actions: LSPDocumentActions) async -> Int32 {
        let output = LSPOutput.fileDescriptor(STDOUT_FILENO)
        let cancellations = LSPCancellations()
        let (stream, continuation) = AsyncStream<LSPFramer.Item>.makeStream()
        let exitCode = ExitBox()
        let server = LSPServer(output: output, actions: actions, cancellations: cancellations) { code in
            exitCode.set(code)
            continuation.finish()
        }
        // Blocking reads on their own thread; a `$/cancelRequest` is marked here, before the
        // request it cancels reaches the server.
        let reader = Thread {
            var framer = LSPFramer()
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let n = chunk.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                framer.append(chunk[0..<n])
                // Everything this read completed: cancellations are marked first, so a request and
                // its cancel that arrive together are answered "cancelled".
                var items: [LSPFramer.Item] = []
                while let item = framer.next() { items.append(item) }
                for item in items {
                    if case .message(let body) = item, Self.isCancel(body),
                       case .success(.notification(_, let params)) = JSONRPCMessage.decode(body), let id = params["id"] {
                        cancellations.cancel(id)
                    }
                }
                for item in items { continuation.yield(item) }
            }
            continuation.finish()
        }
        reader.stackSize = 4 << 20
        reader.start()
        for await item in stream {
            await server.receive(item)
        }
        return exitCode.get() ?? 1
    }

    /// A quick look for `$/cancelRequest` before decoding the whole body.
    static func isCancel(_ body: [UInt8]) -> Bool {
        body.count < 512 && String(decoding: body, as: UTF8.self).contains("$/cancelRequest")
    }
}

import Synchronization

final class ExitBox: Sendable {
    private let value = Mutex<Int32?>(nil)
    func set(_ v: Int32) { value.withLock { $0 = v } }
    func get() -> Int32? { value.withLock { $0 } }
}
