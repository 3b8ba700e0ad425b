import Foundation
import Synchronization
import TKCore

/// A provider for end-to-end tests, HIDDEN and not for users: when `TK_FAKE_PROVIDER_REPLIES` names a
/// JSON file holding an array of replies, the writing commands use them instead of a real provider.
/// Each reply is a string, or `{"text": "…", "delay_ms": 200}`, or `{"error": "message"}`; they are
/// given out in order. With `TK_FAKE_PROVIDER_LOG` set, each request appends one JSON line there
/// (`{"start", "end", "system", "messages"}`, times in seconds) so tests can check parallel calls.
final class HookProvider: LLMProvider {
    let name = "hook"
    let model = "hook-model"
    private let replies: Mutex<[JSONValue]>
    private let log: String?
    private let logLock = Mutex<Void>(())

    init(file: String, log: String?) throws {
        guard let bytes = try? FileSystem.read(FileSystem.absolute(file)),
              let list = (try? JSONValue.parse(bytes))?.arrayValue else {
            throw CLIError("TK_FAKE_PROVIDER_REPLIES: \(file) is not a JSON array of replies")
        }
        replies = Mutex(list)
        self.log = log
    }

    func complete(_ request: LLMRequest, onText: (@Sendable (String) -> Void)?) async throws(LLMProviderError) -> LLMResponse {
        let start = Date().timeIntervalSince1970
        let next: JSONValue? = replies.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        guard let next else { throw .invalidReply("test hook: no reply left") }
        let text = next.stringValue ?? next["text"]?.stringValue ?? ""
        if let ms = next["delay_ms"]?.doubleValue { try? await Task.sleep(for: .milliseconds(Int(ms))) }
        if let log {
            let line: JSONValue = .object([
                "start": .number(start), "end": .number(Date().timeIntervalSince1970),
                "system": .string(request.system),
                "messages": .array(request.messages.map { .object(["role": .string($0.role.rawValue), "content": .string($0.content)]) }),
            ])
            logLock.withLock { _ in
                if let fh = FileHandle(forWritingAtPath: log) ?? {
                    _ = FileManager.default.createFile(atPath: log, contents: nil)
                    return FileHandle(forWritingAtPath: log)
                }() {
                    fh.seekToEndOfFile()
                    fh.write(Data((JSON.string(line, pretty: false) + "\n").utf8))
                    try? fh.close()
                }
            }
        }
        if let error = next["error"]?.stringValue { throw .server(status: 500, error) }
        if let onText, request.stream {
            // Stream word by word, as a real provider would.
            var piece = ""
            for ch in text {
                piece.append(ch)
                if ch == " " || ch == "\n" { onText(piece); piece = "" }
            }
            if !piece.isEmpty { onText(piece) }
        }
        return LLMResponse(provider: name, model: request.model ?? model, text: text,
                           usage: LLMUsage(inputTokens: (request.system.count + 3) / 4, outputTokens: (text.count + 3) / 4))
    }
}
