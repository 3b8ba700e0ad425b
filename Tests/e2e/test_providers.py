"""End-to-end tests of the LLM providers through the hidden `tk-agent provider-check` command,
against the fake LLM server (real HTTP, each provider's wire format, stalls and cut streams)."""
import json
import os
import time

import pytest

from fakellm import DUMMY_KEYS, FIXTURES, FakeLLM

PROVIDERS = ("anthropic", "openai", "ollama")
UNICODE = "“Unique” — naïve café 🙂 ünïcödé ✓"


@pytest.fixture
def fake():
    f = FakeLLM().start()
    yield f
    f.stop()


def write_config(tk, cfg):
    path = tk.config_home / "tk" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    base = {"review": {"auto": False, "stall_seconds": 1, "max_attempts": 4, "request_timeout_seconds": 10,
                       "retry_backoff_seconds": 0.01},
            "notifications": {"enabled": False}}
    for k, v in cfg.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            base[k] = {**base[k], **v}
        else:
            base[k] = v
    path.write_text(json.dumps(base))


def use(tk, fake, provider, **review):
    cfg = fake.config(provider)
    if provider == "ollama":
        cfg["providers"]["ollama"]["model"] = "llama3.2"
    if review:
        cfg["review"] = review
    write_config(tk, cfg)


def check(tk, *args, env=None, expect=0, timeout=60):
    e = dict(DUMMY_KEYS)
    if env is not None:
        e = dict(env)
    r = tk.run("provider-check", *args, env=e, check=False, timeout=timeout)
    assert r.returncode == expect, f"exit {r.returncode}\nstdout: {r.stdout}\nstderr: {r.stderr}"
    return r


def check_json(tk, *args, **kw):
    r = check(tk, *args, "--json", **kw)
    return json.loads(r.stdout)


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("stream", [True, False])
def test_each_provider_streamed_and_not(tk, fake, provider, stream):
    use(tk, fake, provider)
    fake.enqueue(provider, fake.text("Hello from " + provider + " " + UNICODE,
                                     usage={"input_tokens": 100, "output_tokens": 20, "prompt_tokens": 100,
                                            "completion_tokens": 20, "prompt_eval_count": 100, "eval_count": 20}))
    out = check_json(tk, "--stream" if stream else "--no-stream", "--prompt", "Say hello")
    assert out["provider"] == provider
    assert out["text"] == "Hello from " + provider + " " + UNICODE
    assert out["attempts"] == 1
    assert out["usage"]["input_tokens"] == 100 and out["usage"]["output_tokens"] == 20
    if provider == "ollama":
        assert out["cost_usd"] == 0 and out["local"] is True
    else:
        assert out["cost_usd"] > 0
    (req,) = fake.requests_for(provider)
    body, headers = req["json"], req["headers"]
    assert body["stream"] is stream
    if provider == "anthropic":
        assert req["path"] == "/v1/messages"
        assert headers["x-api-key"] == DUMMY_KEYS["ANTHROPIC_API_KEY"]
        assert headers["anthropic-version"] == "2023-06-01"
        assert "authorization" not in headers
        assert body["system"][0]["cache_control"] == {"type": "ephemeral"}
        assert body["max_tokens"] > 0
        assert "temperature" not in body
        assert body["messages"][-1]["role"] == "user"
    elif provider == "openai":
        assert req["path"] == "/v1/chat/completions"
        assert headers["authorization"] == "Bearer " + DUMMY_KEYS["OPENAI_API_KEY"]
        assert body["max_completion_tokens"] > 0
        assert body["messages"][0]["role"] == "system"
        if stream:
            assert body["stream_options"] == {"include_usage": True}
    else:
        assert req["path"] == "/api/chat"
        assert body["options"]["num_ctx"] >= 2048 and body["options"]["num_predict"] > 0
        assert "authorization" not in headers


@pytest.mark.parametrize("provider", PROVIDERS)
def test_structured_output(tk, fake, provider):
    use(tk, fake, provider)
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"],
              "additionalProperties": False}
    fake.enqueue(provider, fake.text('{"ok": true}'))
    out = check_json(tk, "--schema", json.dumps(schema))
    assert json.loads(out["text"]) == {"ok": True}
    assert out["structured"] == {"ok": True}
    body = fake.requests_for(provider)[0]["json"]
    if provider == "anthropic":
        assert body["tool_choice"] == {"type": "tool", "name": "reply"}
        assert body["tools"][0]["input_schema"] == schema
    elif provider == "openai":
        assert body["response_format"]["type"] == "json_schema"
        assert body["response_format"]["json_schema"]["schema"] == schema
    else:
        assert body["format"] == schema


def test_streamed_text_is_printed_live(tk, fake):
    use(tk, fake, "anthropic")
    fake.enqueue("anthropic", fake.text(UNICODE * 3, chunk=2, split_utf8=True))
    r = check(tk, "--stream")
    assert r.stdout.splitlines()[0] == UNICODE * 3
    assert "attempts: 1" in r.stdout


@pytest.mark.parametrize("provider", PROVIDERS)
def test_utf8_split_across_tcp_writes(tk, fake, provider):
    use(tk, fake, provider)
    text = UNICODE * 4
    fake.enqueue(provider, fake.text(text, chunk=1, split_utf8=True))
    out = check_json(tk, "--stream")
    assert out["text"] == text


def test_429_then_529_then_success(tk, fake):
    use(tk, fake, "anthropic")
    body = json.loads((FIXTURES / "anthropic/error_429.json").read_text())
    fake.enqueue("anthropic",
                 fake.raw(429, body, {"retry-after": "1", "x-should-retry": "true"}),
                 fake.fixture("anthropic/error_529"),
                 fake.text("finally"))
    t0 = time.time()
    out = check_json(tk, "--stream")
    elapsed = time.time() - t0
    assert out["text"] == "finally"
    assert out["attempts"] == 3
    assert len(fake.requests_for("anthropic")) == 3
    assert elapsed >= 1.0, "retry-after: 1 was not honoured"
    assert elapsed < 20


def test_retry_after_beyond_the_wait_budget_stops(tk, fake):
    use(tk, fake, "anthropic", max_retry_wait_seconds=5)
    fake.enqueue("anthropic", fake.raw(429, {"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}},
                                       {"retry-after": "3600"}), fake.text("never"))
    r = check(tk, expect=1)
    assert "rate limiting" in r.stderr
    assert len(fake.requests_for("anthropic")) == 1


@pytest.mark.parametrize("provider,fixture,line", [
    ("anthropic", "anthropic/error_401", "the Anthropic API key was rejected: check ANTHROPIC_API_KEY"),
    ("openai", "openai/error_401", "rejected the API key (401): check OPENAI_API_KEY"),
])
def test_bad_key_is_not_retried(tk, fake, provider, fixture, line):
    use(tk, fake, provider)
    fake.enqueue(provider, fake.fixture(fixture), fake.text("should not be used"))
    r = check(tk, "--stream", expect=1)
    assert line in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert len(fake.requests_for(provider)) == 1
    for key in DUMMY_KEYS.values():
        assert key not in r.stdout + r.stderr
    assert "sk-fixt" not in r.stderr  # the masked key OpenAI echoes is not repeated


def test_quota_is_not_retried(tk, fake):
    use(tk, fake, "openai")
    fake.enqueue("openai", fake.fixture("openai/error_429_quota"), fake.text("nope"))
    r = check(tk, expect=1)
    assert "insufficient_quota" in r.stderr and "not retrying" in r.stderr
    assert len(fake.requests_for("openai")) == 1


def test_unknown_model_names_it(tk, fake):
    use(tk, fake, "ollama")
    fake.enqueue("ollama", fake.raw(404, {"error": "model 'nosuch' not found"}))
    r = check(tk, "--model", "nosuch", expect=1)
    assert "ollama pull nosuch" in r.stderr
    assert len(fake.requests_for("ollama")) == 1


@pytest.mark.parametrize("provider", PROVIDERS)
def test_stalled_stream_is_retried(tk, fake, provider):
    use(tk, fake, provider)
    fake.enqueue(provider, fake.stall(provider, seconds=4), fake.text("recovered"))
    t0 = time.time()
    out = check_json(tk, "--stream")
    assert out["text"] == "recovered"
    assert out["attempts"] == 2
    assert time.time() - t0 < 4, "the stall was not detected after review.stall_seconds"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_cut_stream_is_retried(tk, fake, provider):
    use(tk, fake, provider)
    fake.enqueue(provider, fake.cut(provider), fake.text("whole"))
    out = check_json(tk, "--stream")
    assert out["text"] == "whole"
    assert out["attempts"] == 2


@pytest.mark.parametrize("provider,fixture", [
    ("anthropic", "anthropic/stream_error_overloaded"),
    ("openai", "openai/stream_error_midstream"),
    ("ollama", "ollama/chat_stream_error_midstream"),
])
def test_error_inside_a_200_stream_is_retried(tk, fake, provider, fixture):
    use(tk, fake, provider)
    fake.enqueue(provider, fake.fixture(fixture), fake.text("second time lucky"))
    out = check_json(tk, "--stream")
    assert out["text"] == "second time lucky"
    assert out["attempts"] == 2


def test_persistent_failure_stops_at_max_attempts(tk, fake):
    use(tk, fake, "openai", max_attempts=3)
    for _ in range(5):
        fake.enqueue("openai", fake.fixture("openai/error_500"))
    r = check(tk, expect=1)
    assert "(3 attempts)" in r.stderr
    assert len(fake.requests_for("openai")) == 3


def test_network_down(tk, fake):
    write_config(tk, {"provider": "anthropic", "providers": {"anthropic": {"base_url": "http://127.0.0.1:9"}},
                      "review": {"max_attempts": 2}})
    r = check(tk, expect=1)
    assert "cannot reach Anthropic" in r.stderr and "(2 attempts)" in r.stderr


def auto_config(tk, fake):
    write_config(tk, {"provider": "auto", "providers": {
        "anthropic": {"base_url": fake.url}, "openai": {"base_url": fake.url + "/v1"},
        "ollama": {"base_url": fake.url}}})


def test_auto_choice_order(tk, fake):
    auto_config(tk, fake)
    # 1. a running Ollama with a model wins, even with keys set
    st = check_json(tk, "--status-only")
    assert (st["name"], st["model"], st["available"]) == ("ollama", "llama3.2:latest", True)
    fake.enqueue("ollama", fake.text("from ollama"))
    assert check_json(tk)["provider"] == "ollama"
    # 2. no Ollama (or one without models) → Anthropic with a key
    fake.ollama_models = []
    assert check_json(tk, "--status-only")["name"] == "anthropic"
    fake.ollama_running = False
    fake.enqueue("anthropic", fake.text("from anthropic"))
    out = check_json(tk)
    assert out["provider"] == "anthropic" and out["text"] == "from anthropic"
    # 3. only an OpenAI key → OpenAI
    only_openai = {"OPENAI_API_KEY": DUMMY_KEYS["OPENAI_API_KEY"]}
    fake.enqueue("openai", fake.text("from openai"))
    assert check_json(tk, env=only_openai)["provider"] == "openai"
    # 4. nothing → one actionable line, exit 1
    r = check(tk, env={}, expect=1)
    assert "no LLM provider is available" in r.stderr and "ANTHROPIC_API_KEY" in r.stderr
    st = check_json(tk, "--status-only", env={})
    assert st["available"] is False and st["reason"]


def test_precedence_flags_env_config(tk, fake):
    auto_config(tk, fake)
    fake.ollama_running = False
    fake.enqueue("openai", fake.text("x"))
    out = check_json(tk, env={**DUMMY_KEYS, "TK_PROVIDER": "openai", "TK_MODEL": "gpt-4.1"})
    assert out["provider"] == "openai" and out["model"] == "gpt-4.1"
    assert fake.requests_for("openai")[-1]["json"]["model"] == "gpt-4.1"
    fake.enqueue("anthropic", fake.text("y"))
    out = check_json(tk, "--provider", "anthropic", "--model", "claude-haiku-4-5",
                     env={**DUMMY_KEYS, "TK_PROVIDER": "openai", "TK_MODEL": "gpt-4.1"})
    assert out["provider"] == "anthropic" and out["model"] == "claude-haiku-4-5"


def test_tk_api_key_and_missing_key(tk, fake):
    use(tk, fake, "anthropic")
    fake.enqueue("anthropic", fake.text("ok"))
    check_json(tk, env={"TK_API_KEY": "sk-generic-FAKE-123456"})
    assert fake.requests_for("anthropic")[-1]["headers"]["x-api-key"] == "sk-generic-FAKE-123456"
    r = check(tk, env={}, expect=1)
    assert r.stderr.strip().startswith("no Anthropic API key: set ANTHROPIC_API_KEY")


def test_ollama_context_sized_to_the_prompt(tk, fake):
    use(tk, fake, "ollama")
    fake.enqueue("ollama", fake.text("ok"))
    check_json(tk, "--prompt", "word " * 8000, "--max-tokens", "1000")
    opts = fake.requests_for("ollama")[-1]["json"]["options"]
    assert opts["num_ctx"] == 16384 and opts["num_predict"] == 1000


def test_keys_never_printed_or_written(tk, fake):
    """Every scenario at debug level: no dummy key in any output or any file tk-agent may write."""
    outputs = []
    env = {**DUMMY_KEYS, "TK_LOG_LEVEL": "trace"}
    for provider in ("anthropic", "openai"):
        use(tk, fake, provider)
        fake.enqueue(provider, fake.fixture(f"{provider}/error_401"))
        outputs.append(check(tk, env=env, expect=1))
        fake.enqueue(provider, fake.fixture(f"{provider}/error_500"), fake.cut(provider), fake.text("ok"))
        outputs.append(check(tk, "--stream", env=env))
        own = DUMMY_KEYS["ANTHROPIC_API_KEY" if provider == "anthropic" else "OPENAI_API_KEY"]
        fake.enqueue(provider, fake.raw(400, {"error": {"message": "bad key " + own}}))
        outputs.append(check(tk, env=env, expect=1))
    text = "".join(r.stdout + r.stderr for r in outputs)
    for key in DUMMY_KEYS.values():
        assert key not in text
    assert "***" in text  # the echoed key was redacted, not dropped silently
    for root in (tk.data, tk.home, tk.runtime):
        for dirpath, _, files in os.walk(root):
            for name in files:
                data = open(os.path.join(dirpath, name), "rb").read()
                for key in DUMMY_KEYS.values():
                    assert key.encode() not in data, os.path.join(dirpath, name)


def test_no_reply_within_the_request_timeout_is_retried(tk, fake):
    use(tk, fake, "openai", request_timeout_seconds=1)
    fake.enqueue("openai", fake.raw(200, {"choices": []}, delay=3), fake.text("in time"))
    t0 = time.time()
    out = check_json(tk, "--no-stream")
    assert out["text"] == "in time" and out["attempts"] == 2
    assert time.time() - t0 < 3
    fake.enqueue("openai", *[fake.raw(200, {"choices": []}, delay=3) for _ in range(2)])
    use(tk, fake, "openai", request_timeout_seconds=1, max_attempts=2)
    r = check(tk, "--no-stream", expect=1)
    assert "no reply from" in r.stderr and "within 1 s" in r.stderr and "request_timeout_seconds" in r.stderr
