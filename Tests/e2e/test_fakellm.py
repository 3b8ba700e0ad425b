"""The fake LLM server itself: each provider's wire shape, so the agent's tests rest on a faithful fake."""
import json
import urllib.error
import urllib.request

import pytest

from fakellm import FakeLLM


@pytest.fixture
def fake():
    f = FakeLLM().start()
    yield f
    f.stop()


def post(url, body, timeout=5):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def test_anthropic_stream_and_tool(fake):
    fake.enqueue("anthropic", fake.text("héllo wörld 🙂", split_utf8=True))
    status, _, body = post(fake.url + "/v1/messages", {"model": "m", "stream": True, "messages": []})
    assert status == 200
    text = body.decode()
    assert text.index("message_start") < text.index("message_stop")
    deltas = [json.loads(l[6:])["delta"]["text"] for l in text.splitlines()
              if l.startswith("data: ") and "text_delta" in l]
    assert "".join(deltas) == "héllo wörld 🙂"
    fake.enqueue("anthropic", fake.suggestions([{"original_text": "a"}]))
    status, _, body = post(fake.url + "/v1/messages", {"model": "m", "tools": [{"name": "suggestions"}],
                                                      "tool_choice": {"type": "tool", "name": "suggestions"}})
    reply = json.loads(body)
    assert reply["content"][0]["type"] == "tool_use" and reply["stop_reason"] == "tool_use"


def test_openai_usage_chunk_and_done(fake):
    fake.enqueue("openai", fake.text("abc"))
    _, _, body = post(fake.url + "/v1/chat/completions",
                      {"model": "m", "stream": True, "stream_options": {"include_usage": True}})
    lines = [l for l in body.decode().splitlines() if l.startswith("data: ")]
    assert lines[-1] == "data: [DONE]"
    assert json.loads(lines[-2][6:])["usage"]["prompt_tokens"] == 120


def test_ollama_streams_by_default_and_fixture_errors(fake):
    fake.enqueue("ollama", fake.text("hi"))
    _, _, body = post(fake.url + "/api/chat", {"model": "m"})
    assert json.loads(body.decode().splitlines()[-1])["done"] is True
    fake.enqueue("openai", fake.fixture("openai/error_429_quota"))
    status, _, body = post(fake.url + "/v1/chat/completions", {"model": "m"})
    assert status == 429 and b"insufficient_quota" in body
    status, _, _ = post(fake.url + "/v1/chat/completions", {"model": "m"})
    assert status == 500  # nothing queued
    assert len(fake.requests_for("openai")) == 2
