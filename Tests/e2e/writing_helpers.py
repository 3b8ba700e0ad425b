"""LLM back ends for the writing commands' end-to-end tests.

Two ways to give the built binary model replies:
- `FakeBackend`: the lead's fake LLM server (`fakellm.FakeLLM`), through the real providers.
- `HookBackend`: the hidden test hook `TK_FAKE_PROVIDER_REPLIES=<file of JSON replies>` (and
  `TK_FAKE_PROVIDER_LOG=<file>`, one JSON line per request with start/end times), which works
  even before the providers land.
The fake server is the default; `TK_E2E_LLM=hook` runs the tests through the hook instead.
"""
import json
import os



class HookBackend:
    name = "hook"

    def __init__(self, tk):
        self.tk = tk
        self.replies = []
        self.file = tk.root / "hook-replies.json"
        self.log = tk.root / "hook-log.jsonl"

    def reply(self, text, delay_ms=0):
        self.replies.append({"text": text, "delay_ms": delay_ms} if delay_ms else text)

    def env(self):
        # Each run of the binary gets the replies queued since the previous run.
        self.file.write_text(json.dumps(self.replies))
        self.replies = []
        return {"TK_FAKE_PROVIDER_REPLIES": str(self.file), "TK_FAKE_PROVIDER_LOG": str(self.log)}

    def requests(self):
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines() if line.strip()]

    def user_messages(self):
        return [[m["content"] for m in r["messages"]] for r in self.requests()]

    def overlapped(self):
        reqs = self.requests()
        return any(a["start"] < b["end"] and b["start"] < a["end"]
                   for i, a in enumerate(reqs) for b in reqs[i + 1:])

    def stop(self):
        pass


class FakeBackend:
    name = "fake"
    provider = "anthropic"

    def __init__(self, tk):
        from fakellm import FakeLLM  # noqa: PLC0415 (lands on main with the lead's server)
        self.tk = tk
        self.fake = FakeLLM().start()
        cfg_path = tk.config_home / "tk" / "config.json"
        cfg_path.parent.mkdir(parents=True, exist_ok=True)
        cfg = json.loads(cfg_path.read_text()) if cfg_path.exists() else {}
        cfg = _merge(cfg, _as_config(self.fake.config(self.provider), self.provider))
        cfg_path.write_text(json.dumps(cfg))

    def reply(self, text, delay_ms=0):
        self.fake.enqueue(self.provider, self.fake.text(text, delay=delay_ms / 1000))

    def env(self):
        return dict(self.fake.env())

    def requests(self):
        return [r for r in self.fake.requests if r.get("method", "POST") == "POST"]

    def user_messages(self):
        out = []
        for r in self.requests():
            body = r.get("json") or r.get("body") or {}
            msgs = [m for m in body.get("messages", []) if m.get("role") != "system"]
            out.append([_content_text(m.get("content")) for m in msgs])
        return out

    def overlapped(self):
        return self.fake.max_active > 1

    def stop(self):
        self.fake.stop()


def _content_text(c):
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "".join(p.get("text", "") for p in c if isinstance(p, dict))
    return ""


def _as_config(fragment, provider):
    """`fake.config(p)` may be a whole config fragment or just the provider's settings."""
    if "providers" in fragment or "provider" in fragment:
        return fragment
    return {"providers": {provider: fragment}}


def _merge(a, b):
    out = dict(a)
    for k, v in b.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out



def make_backend(tk, tmp_path_factory):
    mode = os.environ.get("TK_E2E_LLM", "")
    if mode == "hook":
        return HookBackend(tk)
    # The fake server through the real providers, always: a broken provider must fail these tests,
    # not quietly switch them to the hook.
    return FakeBackend(tk)


def suggestions_reply(*items):
    return json.dumps({"suggestions": [dict(advisor_id=a, type=t, original_text=o, suggested_text=s,
                                            reasoning=r, priority=p, confidence=c)
                                       for (a, t, o, s, r, p, c) in items]})
