"""LLM back end for the writing commands' end-to-end tests: the fake LLM server
(`fakellm.FakeLLM`), reached through the real providers. (The binaries carry no test hook.)
"""
import json



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
    return FakeBackend(tk)


def suggestions_reply(*items):
    return json.dumps({"suggestions": [dict(advisor_id=a, type=t, original_text=o, suggested_text=s,
                                            reasoning=r, priority=p, confidence=c)
                                       for (a, t, o, s, r, p, c) in items]})
