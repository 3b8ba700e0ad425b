import Foundation
import Testing
@testable import TKCore

@Suite("Stream parsing")
struct StreamParsingTests {
    @Test("line splitter handles \\n, \\r\\n split across chunks, and a lone \\r")
    func lineEnds() {
        var s = LineSplitter()
        var lines = s.push(Array("a\r".utf8))
        lines += s.push(Array("\nb\rc\n\nd".utf8))
        #expect(lines.map { String(decoding: $0, as: UTF8.self) } == ["a", "b", "c", ""])
        #expect(s.finish().map { String(decoding: $0, as: UTF8.self) } == "d")
    }

    @Test("SSE: multi-line data joined, comments skipped, CRLF accepted, last event without blank line")
    func sseRules() {
        let body = ": ping\r\nevent: a\r\ndata: one\r\ndata:two\r\nid: 7\r\n\r\ndata: {\"x\":1}\n\n: comment\n\nevent: b\ndata: tail"
        let events = SSEParser.parse(Array(body.utf8))
        #expect(events == [SSEEvent(event: "a", data: "one\ntwo"), SSEEvent(data: "{\"x\":1}"), SSEEvent(event: "b", data: "tail")])
    }

    @Test("SSE: the legacy llama.cpp error field is kept")
    func sseLegacyError() {
        let events = SSEParser.parse(LLMFixtures.bytes("openai_compat/llamacpp_stream_error_legacy.sse"))
        #expect(events.count == 2)
        #expect(events.first?.error?.contains("exceeds the available context size") == true)
        #expect(events.last?.data == "[DONE]")
    }

    @Test("SSE fixtures parse into events with JSON data", arguments: LLMFixtures.files("anthropic", ext: "sse")
        + LLMFixtures.files("openai", ext: "sse"))
    func sseFixtures(_ file: String) {
        let events = SSEParser.parse(LLMFixtures.bytes(file))
        #expect(!events.isEmpty)
        for e in events where e.data != "[DONE]" {
            // A cut stream's last event may be partial; every complete event is JSON.
            if file.contains("truncated") && e == events.last { continue }
            #expect((try? JSONValue.parse(Array(e.data.utf8))) != nil, "\(file): \(e.data.prefix(60))")
        }
    }

    @Test("NDJSON fixtures: one JSON value per line")
    func ndjson() {
        let values = NDJSON.parse(LLMFixtures.bytes("ollama/chat_stream.ndjson"))
        #expect(values.count == 6)
        #expect(values.allSatisfy { $0 != nil })
        #expect(values.last??["done"]?.boolValue == true)
    }

    /// Feeds `bytes` through a decoder in the given chunks; returns the final text and the streamed deltas.
    static func decode<D: StreamDecoder>(_ decoder: D, _ bytes: [UInt8], cuts: [Int]) throws -> (String, String) {
        var d = decoder
        var splitter = LineSplitter()
        var streamed = ""
        var start = 0
        for cut in cuts + [bytes.count] where cut >= start {
            for line in splitter.push(bytes[start..<cut]) { streamed += try d.line(line).joined() }
            start = cut
        }
        let reply = try d.finish(remainder: splitter.finish())
        return (reply.text, streamed)
    }

    static let ctx = ProviderContext(provider: "anthropic", model: "m", baseURL: "https://x", keyEnv: nil, isLocal: false)
    static let octx = ProviderContext(provider: "openai", model: "m", baseURL: "https://x", keyEnv: nil, isLocal: false)
    static let lctx = ProviderContext(provider: "ollama", model: "m", baseURL: "http://x", keyEnv: nil, isLocal: true)

    @Test("a UTF-8 character split at every byte boundary is never garbled",
          arguments: ["anthropic/stream_suggestions.sse", "openai/stream_modern_usage.sse",
                      "openai_compat/llamacpp_stream_ok.sse", "ollama/chat_stream.ndjson"])
    func utf8Splits(_ file: String) throws {
        let bytes = LLMFixtures.bytes(file)
        let request = ProviderTestKit.request(stream: true)
        func run(_ cuts: [Int]) throws -> (String, String) {
            if file.hasPrefix("anthropic") { return try Self.decode(AnthropicStreamDecoder(context: Self.ctx, wantsTool: false), bytes, cuts: cuts) }
            if file.hasPrefix("ollama") { return try Self.decode(OllamaStreamDecoder(context: Self.lctx, request: request), bytes, cuts: cuts) }
            return try Self.decode(OpenAIStreamDecoder(context: Self.octx, request: request), bytes, cuts: cuts)
        }
        let (whole, streamed) = try run([])
        #expect(whole == streamed)
        #expect(whole.contains("“Unique”"))
        #expect(whole.contains("🙂"))
        #expect(whole.contains("—"))
        // Every cut inside or next to a multi-byte character, and every 16th cut elsewhere (all cuts
        // are quadratic in debug builds and add nothing: ASCII cuts exercise the same line joining).
        let cuts = (1..<bytes.count).filter { k in bytes[k] >= 0x80 || bytes[k - 1] >= 0x80 || k % 16 == 0 }
        #expect(cuts.contains { bytes[$0] & 0xC0 == 0x80 })  // some cut really splits a character
        for k in cuts {
            let (text, deltas) = try run([k])
            #expect(text == whole, "split at byte \(k)")
            #expect(deltas == whole, "split at byte \(k)")
        }
        // One byte at a time.
        let (bytewise, _) = try run(Array(1..<bytes.count))
        #expect(bytewise == whole)
    }

    @Test("Anthropic stream: pings skipped, text joined, usage from message_delta, stop reason")
    func anthropicStream() throws {
        var d = AnthropicStreamDecoder(context: Self.ctx, wantsTool: false)
        var splitter = LineSplitter()
        for line in splitter.push(LLMFixtures.bytes("anthropic/stream_ok.sse")) { _ = try d.line(line) }
        let reply = try d.finish(remainder: splitter.finish())
        #expect(reply.text == "Hello there!")
        #expect(reply.usage == LLMUsage(inputTokens: 11, outputTokens: 6))
        #expect(reply.stopReason == .complete)
    }

    @Test("Anthropic stream with server-side padding parses")
    func anthropicPadded() throws {
        let (text, _) = try Self.decode(AnthropicStreamDecoder(context: Self.ctx, wantsTool: false),
                                        LLMFixtures.bytes("anthropic/stream_structured_padded.sse"), cuts: [])
        #expect(text == "[12345,67890]")
    }

    @Test("Anthropic tool stream: input_json_delta becomes the structured reply")
    func anthropicTool() throws {
        var d = AnthropicStreamDecoder(context: Self.ctx, wantsTool: true)
        var splitter = LineSplitter()
        for line in splitter.push(LLMFixtures.bytes("anthropic/stream_tool_use.sse")) { _ = try d.line(line) }
        let reply = try d.finish(remainder: splitter.finish())
        #expect(reply.structured == .object(["location": .string("Paris")]))
        #expect(reply.text == "{\"location\": \"Paris\"}")
    }

    @Test("Anthropic tool stream cut at max_tokens: truncated, no structured value")
    func anthropicToolMaxTokens() throws {
        var d = AnthropicStreamDecoder(context: Self.ctx, wantsTool: true)
        var splitter = LineSplitter()
        for line in splitter.push(LLMFixtures.bytes("anthropic/stream_max_tokens_tool.sse")) { _ = try d.line(line) }
        let reply = try d.finish(remainder: splitter.finish())
        #expect(reply.stopReason == .maxTokens)
        #expect(reply.structured == nil)
        #expect(reply.text.hasPrefix("{\"filename\": \"taxes.txt"))
        #expect(reply.usage.inputTokens == 450 && reply.usage.outputTokens == 124)
    }

    @Test("streams that end before their terminator are incomplete",
          arguments: ["anthropic/stream_truncated.sse", "anthropic/stream_stall.sse", "openai/stream_truncated.sse",
                      "openai/stream_stall.sse", "ollama/chat_stream_truncated.ndjson", "ollama/chat_stream_stall.ndjson"])
    func incomplete(_ file: String) {
        let bytes = LLMFixtures.bytes(file)
        let request = ProviderTestKit.request(stream: true)
        #expect(throws: ProviderFailure.self) {
            if file.hasPrefix("anthropic") { _ = try Self.decode(AnthropicStreamDecoder(context: Self.ctx, wantsTool: false), bytes, cuts: []) }
            else if file.hasPrefix("ollama") { _ = try Self.decode(OllamaStreamDecoder(context: Self.lctx, request: request), bytes, cuts: []) }
            else { _ = try Self.decode(OpenAIStreamDecoder(context: Self.octx, request: request), bytes, cuts: []) }
        }
        do {
            if file.hasPrefix("anthropic") { _ = try Self.decode(AnthropicStreamDecoder(context: Self.ctx, wantsTool: false), bytes, cuts: []) }
            else if file.hasPrefix("ollama") { _ = try Self.decode(OllamaStreamDecoder(context: Self.lctx, request: request), bytes, cuts: []) }
            else { _ = try Self.decode(OpenAIStreamDecoder(context: Self.octx, request: request), bytes, cuts: []) }
        } catch let f as ProviderFailure {
            #expect(f.error.kind == "incomplete")
            #expect(f.error.isRetryable)
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("error events inside a 200 stream are typed errors",
          arguments: [("anthropic/stream_error_overloaded.sse", "overloaded"), ("openai/stream_error_midstream.sse", "server"),
                      ("ollama/chat_stream_error_midstream.ndjson", "server"),
                      ("openai_compat/llamacpp_stream_error_legacy.sse", "context_too_long")])
    func streamErrors(_ file: String, _ kind: String) {
        let bytes = LLMFixtures.bytes(file)
        let request = ProviderTestKit.request(stream: true)
        do {
            if file.hasPrefix("anthropic") { _ = try Self.decode(AnthropicStreamDecoder(context: Self.ctx, wantsTool: false), bytes, cuts: []) }
            else if file.hasPrefix("ollama") { _ = try Self.decode(OllamaStreamDecoder(context: Self.lctx, request: request), bytes, cuts: []) }
            else { _ = try Self.decode(OpenAIStreamDecoder(context: Self.octx, request: request), bytes, cuts: []) }
            Issue.record("\(file) did not fail")
        } catch let f as ProviderFailure {
            #expect(f.error.kind == kind, "\(file): \(f.error.message)")
            #expect(!f.error.message.contains("\n"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("LM Studio: an empty 200 stream from a local server is a context overflow")
    func lmStudioOverflow() {
        let local = ProviderContext(provider: "openai", model: "qwen", baseURL: "http://127.0.0.1:1234/v1", keyEnv: nil, isLocal: true)
        do {
            _ = try Self.decode(OpenAIStreamDecoder(context: local, request: ProviderTestKit.request(stream: true)),
                                LLMFixtures.bytes("openai_compat/lmstudio_stream_empty_overflow.sse"), cuts: [])
            Issue.record("no error")
        } catch let f as ProviderFailure {
            #expect(f.error.kind == "context_too_long")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
