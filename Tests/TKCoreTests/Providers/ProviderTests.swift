import Foundation
import Logging
import Testing
@testable import TKCore

@Suite("HTTP providers")
struct ProviderTests {
    typealias Kit = ProviderTestKit

    // MARK: Requests

    @Test("Anthropic request: headers, cached system block, forced tool, no prefill, no temperature by default")
    func anthropicRequest() throws {
        let (p, _) = Kit.anthropic([])
        let schema = PromptSchemas.suggestions(advisorIds: ["editor"])
        var req = Kit.request(stream: true, schema: schema)
        req.messages.append(LLMMessage(role: .assistant, content: "{"))
        let http = p.httpRequest(for: req, model: "claude-haiku-4-5")
        #expect(http.url == "https://api.anthropic.com/v1/messages")
        #expect(http.headers["x-api-key"] == Kit.anthropicKey)
        #expect(http.headers["anthropic-version"] == "2023-06-01")
        #expect(http.headers["authorization"] == nil)
        let body = try JSONValue.parse(http.body ?? [])
        #expect(body["max_tokens"] == .number(1000))
        #expect(body["system"]?.arrayValue?.first?["cache_control"] == .object(["type": .string("ephemeral")]))
        #expect(body["tool_choice"] == .object(["type": .string("tool"), "name": .string("tk_suggestions")]))
        #expect(body["tools"]?.arrayValue?.first?["input_schema"] == schema)
        #expect(body["messages"]?.arrayValue?.count == 1, "a trailing assistant turn (prefill) is dropped")
        #expect(body["temperature"] == nil)
        #expect(body["stream"] == .bool(true))
        req.temperature = 0.2
        #expect(try JSONValue.parse(p.httpRequest(for: req, model: "claude-sonnet-4-6").body ?? [])["temperature"] == .number(0.2))
        #expect(try JSONValue.parse(p.httpRequest(for: req, model: "claude-opus-4-7").body ?? [])["temperature"] == nil)
    }

    @Test("OpenAI request: Bearer, max_completion_tokens, json_schema, include_usage")
    func openAIRequest() throws {
        let (p, _) = Kit.openai([])
        let schema = PromptSchemas.council
        let http = p.httpRequest(for: Kit.request(stream: true, schema: schema), model: "gpt-4o")
        #expect(http.url == "https://api.openai.com/v1/chat/completions")
        #expect(http.headers["authorization"] == "Bearer \(Kit.openAIKey)")
        let body = try JSONValue.parse(http.body ?? [])
        #expect(body["max_completion_tokens"] == .number(1000))
        #expect(body["max_tokens"] == nil)
        #expect(body["stream_options"] == .object(["include_usage": .bool(true)]))
        #expect(body["response_format"]?["json_schema"]?["schema"] == schema)
        #expect(body["response_format"]?["json_schema"]?["strict"] == .bool(true))
        #expect(body["messages"]?.arrayValue?.first?["role"] == .string("system"))
        let o3 = try JSONValue.parse(p.httpRequest(for: Kit.request(stream: false), model: "o3-mini").body ?? [])
        #expect(o3["messages"]?.arrayValue?.first?["role"] == .string("developer"))
        #expect(o3["stream_options"] == nil)
        // A compatible server also gets the older max_tokens.
        let (local, _) = Kit.openai([], base: "http://127.0.0.1:8080/v1", model: "qwen")
        let lb = try JSONValue.parse(local.httpRequest(for: Kit.request(stream: false), model: "qwen").body ?? [])
        #expect(lb["max_tokens"] == .number(1000))
        #expect(local.isLocal)
    }

    @Test("Ollama request: explicit stream flag, format schema, num_ctx sized to the prompt, num_predict")
    func ollamaRequest() throws {
        let (p, _) = Kit.ollama([])
        let schema = PromptSchemas.council
        var req = Kit.request(stream: false, schema: schema)
        let body = try JSONValue.parse(p.httpRequest(for: req, model: "llama3.2").body ?? [])
        #expect(body["stream"] == .bool(false))
        #expect(body["format"] == schema)
        #expect(body["options"]?["num_ctx"] == .number(2048))
        #expect(body["options"]?["num_predict"] == .number(1000))
        req.messages = [LLMMessage(role: .user, content: String(repeating: "word ", count: 6000))]  // 30k chars ≈ 10k tokens
        #expect(OllamaProvider.contextSize(for: req) == 16384)
        req.messages = [LLMMessage(role: .user, content: String(repeating: "x", count: 3_000_000))]
        #expect(OllamaProvider.contextSize(for: req) == OllamaProvider.maxContext)
    }

    // MARK: Replies and usage

    @Test("Anthropic usage: cache writes and reads are part of the prompt, counted once; cost per multipliers")
    func anthropicUsage() async throws {
        let (p, _) = Kit.anthropic([LLMFixtures.response("anthropic/messages_cache_write"),
                                    LLMFixtures.response("anthropic/messages_cache_read")])
        let w = try await p.complete(Kit.request(stream: false))
        #expect(w.usage == LLMUsage(inputTokens: 38 + 4215, outputTokens: 187, cacheReadTokens: 0, cacheWriteTokens: 4215))
        let r = try await p.complete(Kit.request(stream: false))
        #expect(r.usage == LLMUsage(inputTokens: 38 + 4215, outputTokens: 187, cacheReadTokens: 4215, cacheWriteTokens: 0))
        // claude-haiku-4-5: $1 in, $5 out; writes 1.25×, reads 0.1×.
        #expect(abs(w.costUsd - (38 * 1 + 4215 * 1.25 + 187 * 5) / 1e6) < 1e-12)
        #expect(abs(r.costUsd - (38 * 1 + 4215 * 0.1 + 187 * 5) / 1e6) < 1e-12)
        #expect(r.text.contains("“Unique”"))
    }

    @Test("OpenAI usage: cached tokens are a subset of prompt_tokens")
    func openAIUsage() async throws {
        let (p, _) = Kit.openai([LLMFixtures.response("openai/chat_cached")])
        let r = try await p.complete(Kit.request(stream: false))
        #expect(r.usage == LLMUsage(inputTokens: 2006, outputTokens: 300, cacheReadTokens: 1920))
        // gpt-4o: $2.50 in, $1.25 cached, $10 out.
        #expect(abs(r.costUsd - ((2006 - 1920) * 2.5 + 1920 * 1.25 + 300 * 10) / 1e6) < 1e-12)
    }

    @Test("OpenAI stream usage from the final usage chunk")
    func openAIStreamUsage() async throws {
        let (p, _) = Kit.openai([LLMFixtures.response("openai/stream_modern_usage")])
        let c = TextCollector()
        let r = try await p.complete(Kit.request(stream: true), onText: c.sink)
        #expect(r.usage == LLMUsage(inputTokens: 2006, outputTokens: 96, cacheReadTokens: 1920))
        #expect(c.text == r.text)
    }

    @Test("Ollama: missing prompt_eval_count is 0; cost is always 0")
    func ollamaUsage() async throws {
        let body = #"{"model":"llama3.2","created_at":"2025-10-26T17:21:21Z","message":{"role":"assistant","content":"hi"},"done":true,"done_reason":"stop","eval_count":3}"#
        let (p, _) = Kit.ollama([.json(200, body), LLMFixtures.response("ollama/chat_stream")])
        let r = try await p.complete(Kit.request(stream: false))
        #expect(r.usage == LLMUsage(inputTokens: 0, outputTokens: 3))
        #expect(r.costUsd == 0)
        let s = try await p.complete(Kit.request(stream: true))
        #expect(s.usage == LLMUsage(inputTokens: 412, outputTokens: 96))
        #expect(s.costUsd == 0)
        #expect(p.isLocal)
    }

    @Test("Anthropic forced tool reply: tool_use.input is the structured reply and its JSON the text")
    func anthropicTool() async throws {
        let body = #"{"id":"msg_1","type":"message","role":"assistant","model":"claude-haiku-4-5","content":[{"type":"tool_use","id":"toolu_1","name":"tk_suggestions","input":{"suggestions":[]}}],"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5}}"#
        let (p, _) = Kit.anthropic([.json(200, body)])
        let r = try await p.complete(Kit.request(stream: false, schema: PromptSchemas.suggestions(advisorIds: [])))
        #expect(r.structured == .object(["suggestions": .array([])]))
        #expect(r.text == #"{"suggestions":[]}"#)
        #expect(r.stopReason == .complete)
    }

    @Test("truncated replies report max tokens", arguments: ["anthropic/messages_max_tokens", "openai/chat_length_suggestions",
                                                             "ollama/chat_length", "openai/stream_length"])
    func truncated(_ file: String) async throws {
        let stream = file.contains("stream")
        let r: LLMResponse
        if file.hasPrefix("anthropic") { r = try await Kit.anthropic([LLMFixtures.response(file)]).0.complete(Kit.request(stream: stream)) }
        else if file.hasPrefix("openai") { r = try await Kit.openai([LLMFixtures.response(file)]).0.complete(Kit.request(stream: stream)) }
        else { r = try await Kit.ollama([LLMFixtures.response(file)]).0.complete(Kit.request(stream: stream)) }
        #expect(r.truncated)
    }

    // MARK: Retries end to end (scripted transport)

    @Test("429 then 529 then success: three attempts, the server's delay honoured")
    func retrySequence() async throws {
        let sleeper = SleepRecorder()
        var limited = LLMFixtures.response("anthropic/error_429")
        limited.headers["retry-after"] = "2"
        let (p, t) = Kit.anthropic([limited, LLMFixtures.response("anthropic/error_529"), LLMFixtures.response("anthropic/stream_ok")],
                                   sleeper: sleeper)
        let c = TextCollector()
        let r = try await p.complete(Kit.request(stream: true), onText: c.sink)
        #expect(r.attempts == 3)
        #expect(r.text == "Hello there!")
        #expect(c.text == "Hello there!")
        #expect(t.requests.count == 3)
        #expect(sleeper.delays.first == 2)
        #expect(sleeper.delays.count == 2)
    }

    @Test("a bad key is not retried and the key never appears in the error")
    func badKey() async {
        let (p, t) = Kit.anthropic([LLMFixtures.response("anthropic/error_401"), LLMFixtures.response("anthropic/stream_ok")])
        do {
            _ = try await p.complete(Kit.request(stream: true))
            Issue.record("no error")
        } catch {
            #expect(error.kind == "authentication")
            #expect(!error.message.contains(Kit.anthropicKey))
        }
        #expect(t.requests.count == 1)
    }

    @Test("an exhausted quota is not retried")
    func quota() async {
        let (p, t) = Kit.openai([LLMFixtures.response("openai/error_429_quota"), LLMFixtures.response("openai/chat_ok")])
        await #expect(throws: LLMProviderError.self) { _ = try await p.complete(Kit.request(stream: false)) }
        #expect(t.requests.count == 1)
    }

    @Test("stalled and cut streams are retried as a whole; text is not shown twice",
          arguments: ["anthropic/stream_stall", "anthropic/stream_truncated", "anthropic/stream_error_overloaded"])
    func streamRetried(_ file: String) async throws {
        let (p, t) = Kit.anthropic([LLMFixtures.response(file, chunk: 5), LLMFixtures.response("anthropic/stream_ok", chunk: 3)])
        let c = TextCollector()
        let r = try await p.complete(Kit.request(stream: true), onText: c.sink)
        #expect(r.attempts == 2)
        #expect(r.text == "Hello there!")
        #expect(c.text == "Hello there!")
        #expect(t.requests.count == 2)
    }

    @Test("Ollama and OpenAI cut streams are retried", arguments: ["ollama/chat_stream_truncated", "openai/stream_truncated",
                                                                   "ollama/chat_stream_stall", "openai/stream_stall"])
    func otherStreams(_ file: String) async throws {
        if file.hasPrefix("ollama") {
            let (p, _) = Kit.ollama([LLMFixtures.response(file), LLMFixtures.response("ollama/chat_stream")])
            let r = try await p.complete(Kit.request(stream: true))
            #expect(r.attempts == 2)
            #expect(r.text.hasSuffix("🙂\",\"start\":60,\"end\":71}]}"))
        } else {
            let (p, _) = Kit.openai([LLMFixtures.response(file), LLMFixtures.response("openai/stream_ok")])
            let r = try await p.complete(Kit.request(stream: true))
            #expect(r.attempts == 2)
            #expect(r.text.hasPrefix("I'm unable to provide real-time weather updates."))
        }
    }

    @Test("connection refused is a network error, retried up to the cap")
    func refused() async {
        let (p, t) = Kit.ollama([.failure(.cannotConnect("Connection refused")), .failure(.cannotConnect("Connection refused")),
                                 .failure(.cannotConnect("Connection refused")), .failure(.cannotConnect("Connection refused"))])
        do {
            _ = try await p.complete(Kit.request(stream: true))
        } catch {
            #expect(error.kind == "network")
            #expect(error.message.contains("ollama serve"))
            #expect(error.message.hasSuffix("(4 attempts)"))
        }
        #expect(t.requests.count == 4)
    }

    @Test("a stream answered with a JSON body is read whole")
    func jsonInsteadOfStream() async throws {
        let (p, _) = Kit.openai([LLMFixtures.response("openai/chat_ok")])
        let r = try await p.complete(Kit.request(stream: true))
        #expect(r.text.hasPrefix("I'm unable"))
        #expect(r.usage.inputTokens == 14)
    }

    @Test("llama.cpp: fenced JSON reply and usage", arguments: [false, true])
    func llamaCpp(_ stream: Bool) async throws {
        let file = stream ? "openai_compat/llamacpp_stream_ok" : "openai_compat/llamacpp_chat_ok"
        var response = LLMFixtures.response(file)
        if stream { response.headers["content-type"] = "text/event-stream" }
        let (p, _) = Kit.openai([response], base: "http://127.0.0.1:8080/v1", model: "qwen2.5-7b-instruct")
        let r = try await p.complete(Kit.request(stream: stream))
        #expect(r.usage.inputTokens == 44 && r.usage.outputTokens == 96)
        #expect(r.costUsd == 0)
        #expect(r.text.contains("“Unique”"))
    }
}

@Suite("Cost table")
struct CostTableTests {
    @Test("longest prefix wins; dated ids match; unknown models cost 0")
    func prices() {
        #expect(CostTable.price(for: "gpt-4o-mini-2024-07-18")?.input == 0.15)
        #expect(CostTable.price(for: "gpt-4o-2024-08-06")?.input == 2.5)
        #expect(CostTable.price(for: "claude-sonnet-4-5-20250929")?.output == 15)
        #expect(CostTable.price(for: "claude-haiku-4-5-20251001")?.input == 1)
        #expect(CostTable.price(for: "llama3.2") == nil)
        #expect(CostTable.cost(model: "llama3.2", usage: LLMUsage(inputTokens: 1000, outputTokens: 1000)) == 0)
        #expect(CostTable.cost(model: "gpt-4o", usage: LLMUsage(inputTokens: 1000, outputTokens: 1000), local: true) == 0)
        #expect(abs(CostTable.cost(model: "claude-sonnet-4-6", usage: LLMUsage(inputTokens: 1_000_000, outputTokens: 0)) - 3) < 1e-9)
    }
}
