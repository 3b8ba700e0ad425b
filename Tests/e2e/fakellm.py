"""A fake LLM server that speaks the wire formats of Anthropic, OpenAI (and compatible servers)
and Ollama, for end-to-end tests of the built binary. Python stdlib only.

    fake = FakeLLM().start()
    fake.enqueue("anthropic", fake.text('{"suggestions": []}'))
    fake.enqueue("openai", fake.fixture("openai/error_429"))
    cfg = fake.config("anthropic")          # {"provider": ..., "providers": {...: {"base_url": ...}}}
    env = fake.env()                        # dummy API keys
    ...
    fake.requests                           # what the server received
    fake.stop()

Replies are taken from a queue per provider (`anthropic`, `openai`, `ollama`); with nothing queued
the default reply of that provider is used (`fake.default(provider, reply)`), else a 500 whose
body says nothing was queued. Every reply adapts to the request: streamed when the request asks
for a stream, a forced tool call when the request forces one (Anthropic `tool_choice`), etc.

Replies:
- `text(s, usage=None, stop="complete", chunk=None, split_utf8=False, delay=0)`: a normal reply
  whose text is `s`. `stop="max_tokens"` marks it truncated at the output limit. `chunk` sets
  the size of streamed text deltas; `split_utf8=True` writes the stream a few bytes at a time so
  multi-byte characters are cut across TCP writes. `delay` waits before answering.
- `fixture("anthropic/error_429", **transport)`: the recorded body, status and headers of a file
  in `llm-fixtures/` (`transport` overrides e.g. `stall_seconds=2`).
- `raw(status, body, headers=None)`: anything.
- `stall(provider, seconds=2)`: a stream that sends its first events, then goes silent.
- `cut(provider)`: a stream cut in the middle of an event (the connection is closed).
"""
import json
import pathlib
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FIXTURES = pathlib.Path(__file__).resolve().parent / "llm-fixtures"

DUMMY_KEYS = {
    "ANTHROPIC_API_KEY": "sk-ant-test-FAKEKEY-a1b2c3d4e5f6",
    "OPENAI_API_KEY": "sk-test-FAKEKEY-openai-0f9e8d7c6b5a",
}

PROVIDERS = ("anthropic", "openai", "ollama")


class Reply:
    """One queued reply. `render(handler, provider, request)` writes it."""

    def __init__(self, kind, **kw):
        self.kind = kind
        self.kw = kw

    def __repr__(self):
        return f"Reply({self.kind}, {self.kw})"


class FakeLLM:
    def __init__(self, host="127.0.0.1", port=0):
        self.host = host
        self.port = port
        self.lock = threading.Lock()
        self.queues = {p: [] for p in PROVIDERS}
        self.defaults = {}
        self.requests = []
        self.ollama_models = ["llama3.2:latest"]
        self.ollama_running = True
        self.active = 0
        self.max_active = 0
        self.server = None
        self.thread = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self):
        fake = self

        class Handler(_Handler):
            owner = fake

        self.server = ThreadingHTTPServer((self.host, self.port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        if self.server:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def url(self):
        return f"http://{self.host}:{self.port}"

    # -- configuration helpers ---------------------------------------------------------------
    def base_url(self, provider):
        return {"anthropic": self.url, "openai": self.url + "/v1", "ollama": self.url}[provider]

    def config(self, provider, model=None):
        """A user-config fragment that points `provider` at this server and selects it."""
        cfg = {"provider": provider, "providers": {provider: {"base_url": self.base_url(provider)}}}
        if model:
            cfg["providers"][provider]["model"] = model
        if provider != "ollama":
            # Keep other providers off the network entirely.
            other = "ollama"
            cfg["providers"][other] = {"base_url": "http://127.0.0.1:9"}
        return cfg

    def env(self):
        return dict(DUMMY_KEYS)

    # -- replies -----------------------------------------------------------------------------
    def enqueue(self, provider, *replies):
        assert provider in PROVIDERS, provider
        with self.lock:
            self.queues[provider].extend(replies)

    def default(self, provider, reply):
        with self.lock:
            self.defaults[provider] = reply

    def pending(self, provider):
        with self.lock:
            return len(self.queues[provider])

    @staticmethod
    def text(s, usage=None, stop="complete", chunk=None, split_utf8=False, delay=0):
        return Reply("text", text=s, usage=usage or {}, stop=stop, chunk=chunk, split_utf8=split_utf8, delay=delay)

    @staticmethod
    def suggestions(items, **kw):
        """A text reply holding `{"suggestions": items}` (the tk.suggestions/1 shape)."""
        return FakeLLM.text(json.dumps({"suggestions": items}, ensure_ascii=False), **kw)

    @staticmethod
    def fixture(name, **transport):
        return Reply("fixture", name=name, transport=transport)

    @staticmethod
    def raw(status, body, headers=None, delay=0):
        if not isinstance(body, (bytes, str)):
            body = json.dumps(body)
        return Reply("raw", status=status, body=body, headers=headers or {}, delay=delay)

    @staticmethod
    def stall(provider, seconds=2):
        name = {"anthropic": "anthropic/stream_stall", "openai": "openai/stream_stall",
                "ollama": "ollama/chat_stream_stall"}[provider]
        return Reply("fixture", name=name, transport={"mode": "stall", "stall_seconds": seconds})

    @staticmethod
    def cut(provider):
        name = {"anthropic": "anthropic/stream_truncated", "openai": "openai/stream_truncated",
                "ollama": "ollama/chat_stream_truncated"}[provider]
        return Reply("fixture", name=name, transport={"mode": "cut"})

    def next_reply(self, provider):
        with self.lock:
            if self.queues[provider]:
                return self.queues[provider].pop(0)
            return self.defaults.get(provider)

    # -- inspection --------------------------------------------------------------------------
    def requests_for(self, provider):
        with self.lock:
            return [r for r in self.requests if r["provider"] == provider]

    def wait_requests(self, n, timeout=10, provider=None):
        deadline = time.time() + timeout
        while time.time() < deadline:
            with self.lock:
                got = [r for r in self.requests if provider is None or r["provider"] == provider]
            if len(got) >= n:
                return got
            time.sleep(0.02)
        raise AssertionError(f"fakellm: expected {n} requests, got {len(got)}")


def _utf8_chunks(data: bytes, size=3):
    for i in range(0, len(data), size):
        yield data[i:i + size]


class _Handler(BaseHTTPRequestHandler):
    owner: FakeLLM = None
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    # -- routing -----------------------------------------------------------------------------
    def do_GET(self):
        fake = self.owner
        path = self.path.split("?")[0]
        self._record("GET", path, None, self._provider_for(path))
        if path == "/api/tags":
            if not fake.ollama_running:
                return self._send_json(503, {"error": "fakellm: ollama is not running"})
            return self._send_json(200, {"models": [
                {"name": m, "model": m, "modified_at": "2025-10-01T00:00:00Z", "size": 2019393189,
                 "digest": "a80c4f17acd5", "details": {"format": "gguf", "family": "llama"}}
                for m in fake.ollama_models]})
        if path == "/api/version":
            return self._send_json(200, {"version": "0.12.6"})
        if path in ("/v1/models", "/models"):
            return self._send_json(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
        self._send_json(404, {"error": f"fakellm: no route GET {path}"})

    def do_POST(self):
        path = self.path.split("?")[0]
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        try:
            req = json.loads(body or b"{}")
        except json.JSONDecodeError:
            req = None
        provider = self._provider_for(path)
        rec = self._record("POST", path, req, provider, raw=body)
        fake = self.owner
        with fake.lock:
            fake.active += 1
            fake.max_active = max(fake.max_active, fake.active)
        try:
            if provider is None:
                return self._send_json(404, {"error": f"fakellm: no route POST {path}"})
            reply = fake.next_reply(provider)
            if reply is None:
                return self._send_json(500, {"error": {"type": "api_error", "message": "fakellm: nothing queued"}})
            rec["reply"] = repr(reply)
            self._render(reply, provider, req or {})
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            rec["ended"] = time.time()
            with fake.lock:
                fake.active -= 1

    def _provider_for(self, path):
        if path.endswith("/v1/messages"):
            return "anthropic"
        if path.endswith("/chat/completions"):
            return "openai"
        if path in ("/api/chat", "/api/generate"):
            return "ollama"
        return None

    def _record(self, method, path, req, provider, raw=b""):
        rec = {"method": method, "path": path, "provider": provider,
               "headers": {k.lower(): v for k, v in self.headers.items()},
               "json": req, "raw": raw, "started": time.time(), "ended": None}
        with self.owner.lock:
            self.owner.requests.append(rec)
        return rec

    # -- low-level writing -------------------------------------------------------------------
    def _send_json(self, status, obj, headers=None):
        self._send(status, json.dumps(obj).encode(), {"content-type": "application/json", **(headers or {})})

    def _send(self, status, data: bytes, headers):
        self.send_response_only(status)
        for k, v in headers.items():
            if k.lower() in ("content-length", "connection", "transfer-encoding"):
                continue
            self.send_header(k, v)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _start_stream(self, status, headers):
        self.send_response_only(status)
        for k, v in headers.items():
            if k.lower() in ("content-length", "connection", "transfer-encoding"):
                continue
            self.send_header(k, v)
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        self.wfile.flush()

    def _write(self, data: bytes, split=False):
        if split:
            for piece in _utf8_chunks(data):
                self.wfile.write(piece)
                self.wfile.flush()
                time.sleep(0.001)
        else:
            self.wfile.write(data)
            self.wfile.flush()

    def _hard_close(self):
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.close_connection = True

    # -- replies -----------------------------------------------------------------------------
    def _render(self, reply, provider, req):
        kind = reply.kind
        if kind == "raw":
            if reply.kw.get("delay"):
                time.sleep(reply.kw["delay"])
            body = reply.kw["body"]
            data = body.encode() if isinstance(body, str) else body
            headers = {"content-type": "application/json", **reply.kw["headers"]}
            return self._send(reply.kw["status"], data, headers)
        if kind == "fixture":
            return self._render_fixture(reply.kw["name"], reply.kw["transport"])
        if kind == "text":
            if reply.kw.get("delay"):
                time.sleep(reply.kw["delay"])
            stream = bool(req.get("stream")) if provider != "ollama" else req.get("stream", True) is not False
            render = {"anthropic": self._anthropic, "openai": self._openai, "ollama": self._ollama}[provider]
            return render(reply.kw, req, stream)
        raise ValueError(kind)

    def _render_fixture(self, name, override):
        base = FIXTURES / name
        body_path = next((p for p in (base.with_suffix(".sse"), base.with_suffix(".ndjson"), base.with_suffix(".json"))
                          if p.exists()), None)
        if body_path is None:
            raise FileNotFoundError(name)
        meta_path = base.parent / (base.name + ".headers.json")
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        status = meta.get("status", 200)
        headers = dict(meta.get("headers") or {})
        if "content-type" not in {k.lower() for k in headers}:
            headers["content-type"] = {".sse": "text/event-stream", ".ndjson": "application/x-ndjson",
                                       ".json": "application/json"}[body_path.suffix]
        transport = {**(meta.get("transport") or {}), **override}
        data = body_path.read_bytes()
        mode = transport.get("mode")
        if mode == "stall":
            self._start_stream(status, headers)
            self._write(data)
            deadline = time.time() + float(transport.get("stall_seconds", 30))
            while time.time() < deadline:
                time.sleep(0.05)
            return self._hard_close()
        if mode == "cut":
            self._start_stream(status, headers)
            self._write(data)
            return self._hard_close()
        if body_path.suffix in (".sse", ".ndjson"):
            self._start_stream(status, headers)
            self._write(data, split=transport.get("split_utf8", False))
            return self._hard_close()
        return self._send(status, data, headers)

    @staticmethod
    def _pieces(text, chunk):
        if not text:
            return []
        size = chunk or max(1, min(24, len(text) // 4 or 1))
        return [text[i:i + size] for i in range(0, len(text), size)]

    # Anthropic Messages API
    def _anthropic(self, kw, req, stream):
        text = kw["text"]
        usage = {"input_tokens": 120, "output_tokens": 40, **kw["usage"]}
        stop = {"complete": "end_turn", "max_tokens": "max_tokens", "refusal": "refusal"}[kw["stop"]]
        model = req.get("model", "claude-sonnet-4-6")
        tool = None
        choice = req.get("tool_choice") or {}
        if choice.get("type") == "tool":
            tool = choice.get("name")
        elif req.get("tools") and choice.get("type") == "any":
            tool = req["tools"][0].get("name")
        tool_input = None
        if tool is not None and kw["stop"] == "complete":
            try:
                tool_input = json.loads(text)
            except json.JSONDecodeError:
                tool_input = None
        msg_id = "msg_fake%012d" % (int(time.time() * 1000) % 10**12)
        if not stream:
            if tool_input is not None:
                content = [{"type": "tool_use", "id": "toolu_fake01", "name": tool, "input": tool_input}]
                stop = "tool_use"
            else:
                content = [{"type": "text", "text": text}]
            body = {"id": msg_id, "type": "message", "role": "assistant", "model": model, "content": content,
                    "stop_reason": stop, "stop_sequence": None, "usage": usage}
            return self._send(200, json.dumps(body, ensure_ascii=False).encode(),
                              {"content-type": "application/json", "request-id": "req_fake01"})
        self._start_stream(200, {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache",
                                 "request-id": "req_fake01"})
        start_usage = {k: v for k, v in usage.items() if k != "output_tokens"}
        start_usage["output_tokens"] = 1

        def ev(name, obj):
            return f"event: {name}\ndata: {json.dumps(obj, ensure_ascii=False)}\n\n".encode()

        out = [ev("message_start", {"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "content": [], "model": model,
            "stop_reason": None, "stop_sequence": None, "usage": start_usage}})]
        if tool_input is not None:
            out.append(ev("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
                "type": "tool_use", "id": "toolu_fake01", "name": tool, "input": {}}}))
            out.append(ev("ping", {"type": "ping"}))
            for p in self._pieces(json.dumps(tool_input, ensure_ascii=False), kw["chunk"]):
                out.append(ev("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                      "delta": {"type": "input_json_delta", "partial_json": p}}))
            stop = "tool_use"
        else:
            out.append(ev("content_block_start", {"type": "content_block_start", "index": 0,
                                                  "content_block": {"type": "text", "text": ""}}))
            out.append(ev("ping", {"type": "ping"}))
            for p in self._pieces(text, kw["chunk"]):
                out.append(ev("content_block_delta", {"type": "content_block_delta", "index": 0,
                                                      "delta": {"type": "text_delta", "text": p}}))
        out.append(ev("content_block_stop", {"type": "content_block_stop", "index": 0}))
        out.append(ev("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                        "usage": usage}))
        out.append(ev("message_stop", {"type": "message_stop"}))
        self._write(b"".join(out), split=kw["split_utf8"])
        self._hard_close()

    # OpenAI Chat Completions
    def _openai(self, kw, req, stream):
        text = kw["text"]
        u = kw["usage"]
        usage = {"prompt_tokens": u.get("prompt_tokens", 120), "completion_tokens": u.get("completion_tokens", 40)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        usage["prompt_tokens_details"] = {"cached_tokens": u.get("cached_tokens", 0), "audio_tokens": 0}
        usage["completion_tokens_details"] = {"reasoning_tokens": 0, "audio_tokens": 0,
                                              "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}
        finish = {"complete": "stop", "max_tokens": "length", "refusal": "content_filter"}[kw["stop"]]
        model = req.get("model", "gpt-4o-mini")
        cid = "chatcmpl-fake%010d" % (int(time.time() * 1000) % 10**10)
        created = int(time.time())
        if not stream:
            body = {"id": cid, "object": "chat.completion", "created": created, "model": model,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": text, "refusal": None,
                                                         "annotations": []},
                                 "logprobs": None, "finish_reason": finish}],
                    "usage": usage, "service_tier": "default", "system_fingerprint": "fp_fake"}
            return self._send(200, json.dumps(body, ensure_ascii=False).encode(),
                              {"content-type": "application/json", "x-request-id": "req_fake01"})
        self._start_stream(200, {"content-type": "text/event-stream; charset=utf-8", "x-request-id": "req_fake01"})

        def chunk(delta, finish_reason=None, usage_obj=None, choices=True):
            obj = {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                   "system_fingerprint": "fp_fake",
                   "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}]
                   if choices else [], "usage": usage_obj}
            return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n".encode()

        out = [chunk({"role": "assistant", "content": "", "refusal": None})]
        for p in self._pieces(text, kw["chunk"]):
            out.append(chunk({"content": p}))
        out.append(chunk({}, finish_reason=finish))
        if (req.get("stream_options") or {}).get("include_usage"):
            out.append(chunk(None, usage_obj=usage, choices=False))
        out.append(b"data: [DONE]\n\n")
        self._write(b"".join(out), split=kw["split_utf8"])
        self._hard_close()

    # Ollama /api/chat
    def _ollama(self, kw, req, stream):
        text = kw["text"]
        u = kw["usage"]
        model = req.get("model", "llama3.2")
        done_reason = {"complete": "stop", "max_tokens": "length", "refusal": "stop"}[kw["stop"]]
        final = {"model": model, "created_at": "2025-10-26T17:21:21.3Z",
                 "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": done_reason,
                 "total_duration": 1200000000, "load_duration": 1000000,
                 "prompt_eval_count": u.get("prompt_eval_count", 120), "prompt_eval_duration": 100000000,
                 "eval_count": u.get("eval_count", 40), "eval_duration": 900000000}
        if not stream:
            final["message"]["content"] = text
            return self._send(200, json.dumps(final, ensure_ascii=False).encode(),
                              {"content-type": "application/json; charset=utf-8"})
        self._start_stream(200, {"content-type": "application/x-ndjson"})
        out = []
        for p in self._pieces(text, kw["chunk"]):
            out.append(json.dumps({"model": model, "created_at": "2025-10-26T17:21:21.2Z",
                                   "message": {"role": "assistant", "content": p}, "done": False},
                                  ensure_ascii=False).encode() + b"\n")
        out.append(json.dumps(final).encode() + b"\n")
        self._write(b"".join(out), split=kw["split_utf8"])
        self._hard_close()


if __name__ == "__main__":  # a manual server for trying the agent by hand
    import argparse

    ap = argparse.ArgumentParser(description="fake LLM server (replies with an empty suggestion list)")
    ap.add_argument("--port", type=int, default=8765)
    a = ap.parse_args()
    f = FakeLLM(port=a.port).start()
    for p in PROVIDERS:
        f.default(p, FakeLLM.suggestions([]))
    print(f"fakellm on {f.url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        f.stop()
