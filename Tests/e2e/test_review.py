"""End-to-end tests of LLM review rounds: the queue, the sidecar, status, usage, budget,
notifications and failures, against the fake LLM server."""
import json
import signal
import subprocess
import time

import pytest

from agent_helpers import BIN
from fakellm import DUMMY_KEYS, FakeLLM
from review_helpers import (files_containing, last_round, notification_server, provider_available,
                            read_notifications, sidecar, suggestion, write_config)

DOC = """---
title: Cats
tk:
  story_type: blog_personal
---
# Cats

The cat sat on the mat and looked very happy about it.
It was a really nice day, and the sun was shining on everything.
"""


@pytest.fixture
def fake():
    f = FakeLLM().start()
    yield f
    f.stop()


@pytest.fixture
def setup(tk, fake):
    """A project with one document, the user config pointing at the fake Anthropic server."""
    proj = tk.project()
    (proj / "cats.md").write_text(DOC)
    write_config(tk, fake)
    return proj


@pytest.fixture
def needs_provider(tk, fake, setup):
    assert provider_available(tk, fake.env()), "the binary cannot reach the fake provider"


def good_reply(fake, **kw):
    return fake.suggestions([suggestion("The cat sat on the mat", "The cat lounged on the mat", priority=1),
                             suggestion("really nice day", "bright day", advisor="creative_writer")], **kw)


def review(tk, fake, *args, timeout=90):
    return tk.run("review", *args, check=False, env=fake.env(), timeout=timeout)


# -- without a provider ----------------------------------------------------------------------

def test_dry_run_prints_the_exact_prompt_and_sends_nothing(tk, fake, setup):
    r = review(tk, fake, setup / "cats.md", "--dry-run")
    assert r.returncode == 0, r.stderr
    assert "===== system =====" in r.stdout and "===== user =====" in r.stdout
    assert "Creative Writer" in r.stdout and "Editor" in r.stdout
    assert "The cat sat on the mat" in r.stdout
    j = json.loads(review(tk, fake, setup / "cats.md", "--dry-run", "--json", "--advisors", "editor").stdout)
    assert j["advisors"] == ["editor"]
    assert "<document>" in j["user"] and j["schema"]["type"] == "object"
    assert fake.requests == []
    assert sidecar(setup, "cats.md") is None


def test_bad_usage(tk, fake, setup):
    r = review(tk, fake, setup / "cats.md", "--advisors", "nobody", "--dry-run")
    assert r.returncode == 64
    assert "nobody" in r.stderr
    r = review(tk, fake, setup / "missing.md", "--now")
    assert r.returncode == 1 and "no such file" in r.stderr


def test_review_false_is_never_sent(tk, fake, setup):
    (setup / "private.md").write_text("---\ntk:\n  review: false\n---\nSecret words here.\n")
    r = review(tk, fake, setup / "private.md", "--now", "--wait")
    assert r.returncode == 1
    assert "review: false" in r.stderr
    assert fake.requests_for("anthropic") == []
    assert last_round(setup, "private.md")["status"] == "failed"


def test_excluded_by_config_is_never_sent(tk, fake, setup):
    write_config(tk, fake, review={"exclude": ["drafts/**"]})
    tk.run("watch", "add", setup)
    (setup / "drafts").mkdir()
    (setup / "drafts" / "x.md").write_text("Some draft words to review here.\n")
    r = review(tk, fake, setup / "drafts" / "x.md", "--now", "--wait")
    assert r.returncode == 1 and "review.exclude" in r.stderr
    assert fake.requests_for("anthropic") == []


def test_usage_with_nothing_recorded(tk, fake, setup):
    j = tk.json("usage", "--json")
    assert j["today"]["cost_usd"] == 0 and j["days"] == [] and j["budget_usd"] == 1
    assert "No model calls" in tk.run("usage").stdout


# -- with the providers ------------------------------------------------------------------------

def test_normal_round(tk, fake, setup, needs_provider):
    fake.enqueue("anthropic", good_reply(fake, usage={"input_tokens": 1500, "output_tokens": 200}))
    agent = tk.start(setup, extra_env=fake.env())
    r = review(tk, fake, setup / "cats.md", "--now", "--wait", "--json")
    assert r.returncode == 0, r.stderr + tk.logs(agent)
    out = json.loads(r.stdout)
    assert out["round"]["status"] == "done"
    assert len(out["suggestions"]) == 2

    s = sidecar(setup, "cats.md")
    rnd = s["rounds"][-1]
    assert rnd["status"] == "done" and rnd["provider"] == "anthropic"
    assert rnd["usage"]["input_tokens"] == 1500 and rnd["usage"]["output_tokens"] == 200
    assert rnd["started_at"] and rnd["finished_at"] and rnd["queued_at"]
    assert set(rnd["advisors"]) == {"creative_writer", "editor"}
    data = (setup / "cats.md").read_bytes()
    for sug in s["suggestions"]:
        assert sug["status"] == "pending" and sug["round"] == rnd["id"]
        assert data[sug["start"]:sug["end"]].decode() == sug["original_text"]
    assert s["journey"]["stage"] == "revise"

    req = fake.requests_for("anthropic")[0]
    assert req["headers"]["x-api-key"] == DUMMY_KEYS["ANTHROPIC_API_KEY"]
    assert "The cat sat on the mat" in json.dumps(req["json"])

    tk.wait_for(lambda: tk.status()["queue"] == {"queued": 0, "waiting": 0, "running": 0, "failed": 0}, timeout=10,
                what="queue to be empty in status")
    st = tk.status()
    assert st["provider"]["name"] == "anthropic" and st["provider"]["available"] is True
    assert set(st["usage"]) >= {"today_usd", "month_usd", "budget_usd"}
    assert st["usage"]["budget_usd"] == 1

    u = tk.json("usage", "--json")
    assert u["today"]["calls"] == 1 and u["today"]["input_tokens"] == 1500
    assert u["models"][0]["provider"] == "anthropic"

    # The same content with the same prompt is never sent twice.
    r = review(tk, fake, setup / "cats.md", "--now", "--wait")
    assert r.returncode == 0 and "no call made" in r.stdout
    assert len(fake.requests_for("anthropic")) == 1


def test_round_without_an_agent_runs_in_process(tk, fake, setup, needs_provider):
    fake.enqueue("anthropic", good_reply(fake))
    r = review(tk, fake, setup / "cats.md", "--now", "--wait")
    assert r.returncode == 0, r.stderr
    assert "2 suggestions" in r.stdout
    assert last_round(setup, "cats.md")["status"] == "done"
    st = tk.status()
    assert st["running"] is False and st["queue"]["queued"] == 0 and st["queue"]["failed"] == 0
    assert st["usage"]["today_usd"] > 0 and st["usage"]["month_usd"] >= st["usage"]["today_usd"]
    assert st["provider"]["name"] == "anthropic"
    assert "Queue: 0 queued" in tk.run("status").stdout


def test_max_concurrent_rounds(tk, fake, setup, needs_provider):
    write_config(tk, fake, review={"max_concurrent": 1})
    for name in ("b.md", "c.md"):
        (setup / name).write_text(DOC.replace("cat", "dog" if name == "b.md" else "bird"))
    fake.default("anthropic", fake.suggestions([], delay=1))
    tk.start(setup, extra_env=fake.env())
    for name in ("cats.md", "b.md", "c.md"):
        assert review(tk, fake, setup / name, "--now").returncode == 0
    tk.wait_for(lambda: all((last_round(setup, n) or {}).get("status") == "done" for n in ("cats.md", "b.md", "c.md")),
                timeout=30, what="three rounds")
    assert fake.max_active == 1
    assert len(fake.requests_for("anthropic")) == 3


def test_rate_limited_then_overloaded_then_success(tk, fake, setup, needs_provider):
    fake.enqueue("anthropic", fake.fixture("anthropic/error_429"), fake.fixture("anthropic/error_529"), good_reply(fake))
    tk.start(setup, extra_env=fake.env())
    r = review(tk, fake, setup / "cats.md", "--now", "--wait", timeout=120)
    assert r.returncode == 0, r.stderr
    assert len(fake.requests_for("anthropic")) == 3
    assert last_round(setup, "cats.md")["status"] == "done"


def test_bad_key_fails_at_once_with_a_clear_reason(tk, fake, setup, needs_provider):
    fake.enqueue("anthropic", fake.fixture("anthropic/error_401"))
    tk.start(setup, extra_env=fake.env())
    r = review(tk, fake, setup / "cats.md", "--now", "--wait")
    assert r.returncode == 1
    time.sleep(0.5)
    assert len(fake.requests_for("anthropic")) == 1
    rnd = last_round(setup, "cats.md")
    assert rnd["status"] == "failed"
    assert "key" in rnd["reason"].lower()
    assert DUMMY_KEYS["ANTHROPIC_API_KEY"] not in json.dumps(rnd)
    assert tk.status()["queue"]["failed"] == 1


@pytest.mark.parametrize("broken", ["stall", "cut"])
def test_stalled_or_cut_stream_is_retried(tk, fake, setup, needs_provider, broken):
    first = fake.stall("anthropic", seconds=10) if broken == "stall" else fake.cut("anthropic")
    fake.enqueue("anthropic", first, good_reply(fake))
    tk.start(setup, extra_env=fake.env())
    r = review(tk, fake, setup / "cats.md", "--now", "--wait", timeout=120)
    assert r.returncode == 0, r.stderr
    assert len(fake.requests_for("anthropic")) == 2
    assert len(sidecar(setup, "cats.md")["suggestions"]) == 2


def test_fenced_reply(tk, fake, setup, needs_provider):
    body = json.dumps({"suggestions": [suggestion("looked very happy", "looked content")]})
    fake.enqueue("anthropic", fake.text("Here you go:\n```json\n" + body + "\n```\nHope it helps."))
    r = review(tk, fake, setup / "cats.md", "--now", "--wait", "--json")
    assert r.returncode == 0, r.stderr
    assert [s["original_text"] for s in json.loads(r.stdout)["suggestions"]] == ["looked very happy"]


def test_truncated_reply_keeps_complete_suggestions(tk, fake, setup, needs_provider):
    whole = json.dumps(suggestion("looked very happy", "looked content"))
    fake.enqueue("anthropic", fake.text('{"suggestions": [' + whole + ', {"advisor_id": "editor", "type": "fix", "orig',
                                        stop="max_tokens"))
    r = review(tk, fake, setup / "cats.md", "--now", "--wait", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["round"]["truncated"] is True
    assert len(out["suggestions"]) == 1


def test_kill_during_a_round_then_restart_completes_it(tk, fake, setup, needs_provider):
    fake.enqueue("anthropic", good_reply(fake, delay=30))
    fake.default("anthropic", good_reply(fake))
    agent = tk.start(setup, extra_env=fake.env())
    assert review(tk, fake, setup / "cats.md", "--now").returncode == 0
    fake.wait_requests(1, timeout=20, provider="anthropic")
    tk.wait_for(lambda: (last_round(setup, "cats.md") or {}).get("status") == "running", timeout=10, what="running round")
    round_id = last_round(setup, "cats.md")["id"]
    agent.send_signal(signal.SIGKILL)
    agent.wait(timeout=10)
    tk.start(setup, extra_env=fake.env())
    tk.wait_for(lambda: last_round(setup, "cats.md")["status"] == "done", timeout=30, what="round to complete after restart")
    s = sidecar(setup, "cats.md")
    assert [r["id"] for r in s["rounds"]] == [round_id]
    assert len(s["suggestions"]) == 2
    assert len(fake.requests_for("anthropic")) == 2


def test_automatic_round_after_quiet(tk, fake, setup, needs_provider):
    write_config(tk, fake, review={"auto": True, "quiet_seconds": 0.5, "min_changed_words": 5})
    fake.default("anthropic", good_reply(fake))
    tk.start(setup, extra_env=fake.env())
    time.sleep(1.0)
    assert fake.requests_for("anthropic") == []  # a first sighting is not an edit
    with open(setup / "cats.md", "a") as f:
        f.write("\nThe dog came along later and barked loudly at the happy cat.\n")
    tk.wait_for(lambda: (last_round(setup, "cats.md") or {}).get("status") == "done", timeout=20, what="automatic round")
    assert len(fake.requests_for("anthropic")) == 1
    # A small edit does not start another round.
    with open(setup / "cats.md", "a") as f:
        f.write("Fine.\n")
    time.sleep(1.5)
    assert len(fake.requests_for("anthropic")) == 1


@pytest.mark.parametrize("budget,words", [(0, "daily budget reached"), (0.001, "would be exceeded")])
def test_budget_reached_waits_with_the_reason(tk, fake, setup, needs_provider, budget, words):
    # 0: nothing may be spent; 0.001: the price table says this round costs more than that.
    write_config(tk, fake, review={"daily_budget_usd": budget})
    tk.start(setup, extra_env=fake.env())
    r = review(tk, fake, setup / "cats.md", "--now", "--wait")
    assert r.returncode == 1
    assert "budget" in r.stderr
    rnd = last_round(setup, "cats.md")
    assert rnd["status"] == "waiting" and words in rnd["reason"]
    tk.wait_for(lambda: tk.status()["queue"]["waiting"] == 1, timeout=10, what="waiting round in status")
    assert any("budget" in p for p in tk.status()["problems"])
    assert fake.requests_for("anthropic") == []


def test_notification_on_a_real_session_bus(tk, fake, setup, needs_provider, tmp_path):
    with notification_server(tmp_path) as (address, received):
        write_config(tk, fake, notifications={"enabled": True})
        fake.enqueue("anthropic", good_reply(fake))
        env = dict(fake.env(), DBUS_SESSION_BUS_ADDRESS=address)
        tk.start(setup, extra_env=env)
        r = review(tk, fake, setup / "cats.md", "--now", "--wait")
        assert r.returncode == 0, r.stderr
        tk.wait_for(lambda: read_notifications(received), timeout=15, what="a notification")
        n = read_notifications(received)
        assert len(n) == 1
        assert n[0]["app_name"] == "tk-agent"
        assert n[0]["summary"] == "cats.md"
        assert n[0]["body"].startswith("2 suggestions")
        assert "The cat lounged on the mat" in n[0]["body"]


def test_no_session_bus_no_notification_and_no_failure(tk, fake, setup, needs_provider, tmp_path):
    write_config(tk, fake, notifications={"enabled": True, "command": "notify-send"})
    fake.enqueue("anthropic", good_reply(fake))
    tk.start(setup, extra_env=fake.env())
    assert review(tk, fake, setup / "cats.md", "--now", "--wait").returncode == 0


def test_the_key_is_written_nowhere(tk, fake, setup, needs_provider):
    fake.enqueue("anthropic", good_reply(fake), fake.fixture("anthropic/error_401"))
    agent = tk.start(setup, extra_env=fake.env())
    assert review(tk, fake, setup / "cats.md", "--now", "--wait").returncode == 0
    with open(setup / "cats.md", "a") as f:
        f.write("One more line to make the content new.\n")
    assert review(tk, fake, setup / "cats.md", "--now", "--wait").returncode == 1
    tk.stop(agent)
    for key in DUMMY_KEYS.values():
        needle = key.encode()
        for root in (tk.data, setup, tk.runtime, tk.config_home):
            assert files_containing(root, needle) == []
        assert needle not in agent.log_path.read_bytes()


@pytest.mark.parametrize("provider", ["openai", "ollama"])
def test_local_servers_are_exempt_from_the_budget(tk, fake, setup, needs_provider, provider):
    # The fake server listens on 127.0.0.1: an OpenAI-compatible server there is local, like Ollama.
    write_config(tk, fake, provider=provider, review={"daily_budget_usd": 0},
                 extra={"providers": {provider: {"model": "llama3.2:latest" if provider == "ollama" else "fake-model"}}})
    fake.enqueue(provider, good_reply(fake))
    r = review(tk, fake, setup / "cats.md", "--now", "--wait", "--json")
    assert r.returncode == 0, r.stderr
    rnd = json.loads(r.stdout)["round"]
    assert rnd["provider"] == provider and rnd["usage"]["cost_usd"] == 0
    assert tk.json("usage", "--json")["today"]["cost_usd"] == 0


def test_document_edited_while_its_round_runs_gets_anchors_in_the_new_text(tk, fake, setup, needs_provider):
    fake.enqueue("anthropic", good_reply(fake, delay=2.0))
    agent = tk.start(setup, extra_env=fake.env())
    doc = setup / "cats.md"
    waiting = subprocess.Popen([BIN, "review", str(doc), "--now", "--wait"], env={**tk.env, **fake.env()},
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        fake.wait_requests(1, timeout=20, provider="anthropic")
        # The writer keeps writing while the model thinks: text inserted above both passages.
        doc.write_text(DOC.replace("# Cats\n", "# Cats\n\nA brand-new opening paragraph, written mid-round — ✓.\n"))
        out, err = waiting.communicate(timeout=60)
    finally:
        if waiting.poll() is None:
            waiting.kill()
    assert waiting.returncode == 0, err + tk.logs(agent)

    def anchored():
        s = sidecar(setup, "cats.md")
        data = doc.read_bytes()
        sugs = [x for x in s["suggestions"] if x["status"] == "pending"]
        return len(sugs) == 2 and all(data[x["start"]:x["end"]].decode() == x["original_text"] for x in sugs) and s
    s = tk.wait_for(anchored, timeout=10, what="suggestions anchored in the edited text", proc=agent)
    assert min(x["line"] for x in s["suggestions"]) == 10
