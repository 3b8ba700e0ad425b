"""End-to-end tests of the writing commands: suggest, council, ask, pipe, export, story-types assemble, config."""
import json
import os
import pty
import stat
import subprocess

import pytest

from agent_helpers import BIN
from writing_helpers import make_backend, suggestions_reply

DRAFT = """---
title: Morning Notes
---
# Morning

This is a very unique sentence. It is really quite good.

The second paragraph talks about coffee and the light.
"""

EDITOR_REPLY = suggestions_reply(
    ("editor", "rephrase", "very unique", "unique", "Unique is absolute.", 2, 0.9),
    ("editor", "remove", "really quite ", "", "Hedging words.", 3, 0.6),
    ("editor", "fix", "a passage that is not there", "x", "Unanchorable.", 4, 0.5),
)


@pytest.fixture
def llm(tk, tmp_path_factory):
    b = make_backend(tk, tmp_path_factory)
    yield b
    b.stop()


@pytest.fixture
def draft(tk):
    p = tk.project() / "draft.md"
    p.write_text(DRAFT)
    return p


def run(tk, llm, *args, **kw):
    env = dict(kw.pop("env", {}) or {})
    env.update(llm.env())
    return tk.run(*args, env=env, check=kw.pop("check", False), **kw)


def one_line(stderr):
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one error line, got: {stderr!r}"
    return lines[0]


# suggest ---------------------------------------------------------------------------------------

def test_suggest_text_and_json(tk, llm, draft):
    llm.reply(EDITOR_REPLY)
    r = run(tk, llm, "suggest", draft, "--role", "editor")
    assert r.returncode == 0, r.stderr
    assert "very unique" in r.stdout and "+ unique" in r.stdout
    assert "not in the document" in r.stderr

    llm.reply(EDITOR_REPLY)
    r = run(tk, llm, "suggest", draft, "--role", "editor", "--json", "--min-confidence", "0.5")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert set(doc) == {"version", "suggestions", "metadata"}
    assert doc["version"] == "1.0"
    assert [s["original_text"] for s in doc["suggestions"]] == ["very unique", "really quite "]
    data = draft.read_bytes()
    for s in doc["suggestions"]:
        assert data[s["start"]:s["end"]].decode() == s["original_text"]
        assert s["status"] == "pending" and s["advisor_id"] == "editor"
    assert doc["suggestions"][0]["line"] == 6
    assert doc["metadata"]["unanchored"] == 1


def test_suggest_reads_standard_input_and_strict(tk, llm):
    llm.reply(EDITOR_REPLY)
    r = run(tk, llm, "suggest", "--role", "editor", "--strict", "--quiet", input="It was a very unique day.\n")
    assert r.returncode == 2, r.stderr
    assert r.stdout == "unique\n"

    llm.reply(json.dumps({"suggestions": []}))
    r = run(tk, llm, "suggest", "--role", "editor", "--strict", input="Fine text.\n")
    assert r.returncode == 0, r.stderr
    assert "No suggestions" in r.stdout


def test_empty_input_makes_no_call(tk, llm):
    r = run(tk, llm, "suggest", "--role", "editor", "--json", input="\n\n")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["suggestions"] == []
    assert "empty" in r.stderr
    r = run(tk, llm, "pipe", input="  \n")
    assert r.returncode == 0 and r.stdout == "  \n"
    assert llm.requests() == []


def test_suggest_ndjson_and_text_option(tk, llm):
    llm.reply(EDITOR_REPLY)
    r = run(tk, llm, "suggest", "--text", "This is a very unique sentence. It is really quite good.", "--ndjson",
            "--role", "editor")
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert [x["suggested_text"] for x in lines] == ["unique", ""]
    assert all(x["path"] == "--text" for x in lines)


def test_suggest_advisors_batched_and_fallback(tk, llm, draft):
    llm.reply(suggestions_reply(("editor", "rephrase", "very unique", "unique", "x", 2, 0.9),
                                ("copywriter", "improve", "about coffee", "about strong coffee", "y", 3, 0.7)))
    r = run(tk, llm, "suggest", draft, "--advisors", "editor,copywriter", "--json")
    assert r.returncode == 0, r.stderr
    assert {s["advisor_id"] for s in json.loads(r.stdout)["suggestions"]} == {"editor", "copywriter"}
    assert len(llm.requests()) == 1

    # An unreadable panel reply: one call per advisor follows.
    llm.reply("I'd rather talk about the weather.")
    llm.reply(suggestions_reply(("editor", "rephrase", "very unique", "unique", "x", 2, 0.9)))
    llm.reply(json.dumps({"suggestions": []}))
    r = run(tk, llm, "suggest", draft, "--advisors", "editor,copywriter", "--json")
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)["suggestions"]) == 1
    assert len(llm.requests()) == 4


def test_suggest_describe_assembles_the_team(tk, llm, draft):
    llm.reply(json.dumps({"story_type": "blog_personal",
                          "advisors": [{"id": "creative_writer", "reason": "voice"}, {"id": "editor", "reason": "polish"}],
                          "genre_context": "A personal morning blog."}))
    llm.reply(suggestions_reply(("creative_writer", "improve", "about coffee", "about bitter coffee", "x", 2, 0.8)))
    r = run(tk, llm, "suggest", draft, "--describe", "a personal blog about mornings", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["metadata"]["story_type"] == "blog_personal"
    assert doc["metadata"]["advisors"] == ["creative_writer", "editor"]
    assert len(llm.requests()) == 2


def test_suggest_interactive_with_piped_answers(tk, llm, draft):
    llm.reply(EDITOR_REPLY)
    r = run(tk, llm, "suggest", draft, "--role", "editor", "--interactive", input="a\ns\n")
    assert r.returncode == 0, r.stderr
    assert "[a]ccept" in r.stderr
    text = draft.read_text()
    assert "This is a unique sentence. It is really quite good." in text
    assert text.startswith("---\ntitle: Morning Notes\n---\n")


def test_suggest_interactive_through_a_pty(tk, llm, draft):
    llm.reply(EDITOR_REPLY)
    env = dict(tk.env)
    env.update(llm.env())
    master, slave = pty.openpty()
    try:
        p = subprocess.Popen([BIN, "suggest", str(draft), "--role", "editor", "-i"], stdin=slave,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        os.close(slave)
        slave = None
        os.write(master, b"e\nvery special\na\n")
        out, err = p.communicate(timeout=30)
    finally:
        if slave is not None:
            os.close(slave)
        os.close(master)
    assert p.returncode == 0, err
    assert "This is a very special sentence. It is good." in draft.read_text()


def test_suggest_several_files_in_parallel(tk, llm):
    proj = tk.project()
    files = []
    for i in range(3):
        f = proj / f"note{i}.md"
        f.write_text(f"Note {i} is a very unique note.\n")
        files.append(f)
        llm.reply(suggestions_reply(("editor", "rephrase", "very unique", "unique", "x", 2, 0.9)), delay_ms=300)
    r = run(tk, llm, "suggest", *files, "--role", "editor", "--parallel", "3", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert sorted(s["path"] for s in doc["suggestions"]) == sorted(str(f) for f in files)
    assert len(llm.requests()) == 3
    assert llm.overlapped()


def test_suggest_interactive_quit_writes_nothing(tk, llm, draft):
    llm.reply(EDITOR_REPLY)
    r = run(tk, llm, "suggest", draft, "--role", "editor", "--interactive", input="q\n")
    assert r.returncode == 0, r.stderr
    assert draft.read_text() == DRAFT


def test_suggest_max_suggestions_and_categories(tk, llm, draft):
    llm.reply(EDITOR_REPLY)
    r = run(tk, llm, "suggest", draft, "--role", "editor", "--json", "--max-suggestions", "1",
            "--categories", "grammar,clarity")
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)["suggestions"]) == 1
    msgs = llm.user_messages()[-1]
    assert "at most 1 suggestions" in msgs[-1]
    assert "grammar, clarity" in msgs[-1]


def pty_stdout(args, env):
    master, slave = pty.openpty()
    p = subprocess.Popen([BIN, *map(str, args)], stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.PIPE,
                         env=env)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    p.wait(timeout=30)
    os.close(master)
    return p.returncode, out


def test_colour_on_a_terminal_unless_no_color(tk, llm, draft):
    env = {k: v for k, v in tk.env.items() if k != "NO_COLOR"}
    llm.reply(EDITOR_REPLY)
    env.update(llm.env())
    rc, out = pty_stdout(["suggest", draft, "--role", "editor"], env)
    assert rc == 0
    assert b"\x1b[" in out
    llm.reply(EDITOR_REPLY)
    env.update(llm.env())
    env["NO_COLOR"] = "1"
    rc, out = pty_stdout(["suggest", draft, "--role", "editor"], env)
    assert rc == 0
    assert b"\x1b[" not in out and b"very unique" in out


def test_suggest_usage_errors(tk, llm, draft):
    r = run(tk, llm, "suggest", draft, "--advisors", "editor", "--describe", "a blog")
    assert r.returncode == 64
    r = run(tk, llm, "suggest", draft, "--role", "nobody")
    assert r.returncode == 64
    assert "unknown advisor \"nobody\"" in one_line(r.stderr)
    r = run(tk, llm, "suggest", draft, "--story-type", "sonnet")
    assert r.returncode == 64
    assert "unknown story type \"sonnet\"" in one_line(r.stderr)
    r = run(tk, llm, "suggest", tk.root / "missing.md", "--role", "editor")
    assert r.returncode == 1
    assert "no such file" in one_line(r.stderr)
    assert llm.requests() == []


def test_bad_custom_role_gives_one_clear_error(tk, llm, draft):
    roles = tk.config_home / "tk" / "roles"
    roles.mkdir(parents=True)
    (roles / "custom_pirate.json").write_text("{ this is not json")
    r = run(tk, llm, "suggest", draft, "--role", "custom_pirate")
    assert r.returncode == 64
    line = one_line(r.stderr)
    assert "custom_pirate" in line


def test_no_provider_is_one_line_and_exit_1(tk, draft):
    cfg = tk.config_home / "tk" / "config.json"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(json.dumps({"provider": "anthropic"}))
    r = tk.run("suggest", draft, "--role", "editor", check=False,
               env={"ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": "", "TK_API_KEY": ""})
    assert r.returncode == 1
    one_line(r.stderr)


# council ---------------------------------------------------------------------------------------

def council_reply(perspective, points, sentiment):
    return json.dumps({"perspective": perspective, "points": points, "sentiment": sentiment})


def test_council_runs_advisors_in_parallel_and_synthesises(tk, llm, draft):
    """Three advisors in parallel. On the release binary (./scripts/test) this caught a crash
    ("Illegal instruction" in CouncilEngine.run) that the debug build never showed."""
    llm.reply(council_reply("Clear opening.", ["The opening sentence is clear and strong", "The ending feels weak"],
                            "neutral"), delay_ms=400)
    llm.reply(council_reply("Good.", ["The opening sentence is clear and engaging", "The ending is strong"],
                            "positive"), delay_ms=400)
    llm.reply(council_reply("Hmm.", ["The opening sentence is clear", "Cut the jargon"], "negative"), delay_ms=400)
    r = run(tk, llm, "council", draft, "--advisors", "editor,copywriter,ux_writer", "-q", "Does the opening work?")
    assert r.returncode == 0, r.stderr
    assert r.stdout.index("PERSPECTIVES") < r.stdout.index("ANALYSIS")
    for name in ("Editor (editor)", "Copywriter (copywriter)", "UX Writer (ux_writer)"):
        assert name in r.stdout
    assert "Consensus:" in r.stdout and "The opening sentence is clear" in r.stdout
    assert "Overall sentiment: mixed" in r.stdout
    assert len(llm.requests()) == 3
    if llm.overlapped() is not None:
        assert llm.overlapped(), "the council's calls did not run at the same time"


def test_council_json(tk, llm, draft):
    for i in range(2):
        llm.reply(council_reply(f"View {i}.", ["Tighten the opening paragraph"], "negative"))
    r = run(tk, llm, "council", draft, "--advisors", "editor,copywriter", "--question", "What to fix?", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [p["advisor_id"] for p in doc["perspectives"]] == ["editor", "copywriter"]
    assert set(doc["analysis"]) == {"consensus", "disagreements", "unique_insights", "sentiment"}
    assert doc["analysis"]["consensus"][0]["advisors"] == ["editor", "copywriter"]
    assert doc["analysis"]["sentiment"]["overall"] == "negative"


def test_council_ndjson_streams_perspectives_then_analysis(tk, llm, draft):
    llm.reply(council_reply("Fast.", ["Tighten the opening paragraph"], "negative"))
    llm.reply(council_reply("Slow.", ["Tighten the opening paragraph now"], "negative"), delay_ms=300)
    r = run(tk, llm, "council", draft, "--advisors", "editor,copywriter", "-q", "Fix what?", "--ndjson")
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert [x["type"] for x in lines] == ["perspective", "perspective", "analysis"]
    assert {x["advisor_id"] for x in lines[:2]} == {"editor", "copywriter"}
    assert lines[2]["consensus"] and lines[2]["question"] == "Fix what?"


def test_council_usage_errors(tk, llm, draft):
    r = run(tk, llm, "council", draft, "--advisors", "editor", "-q", "x")
    assert r.returncode == 64
    r = run(tk, llm, "council", draft, "--advisors", ",".join(["editor"] * 11), "-q", "x")
    assert r.returncode == 64
    r = run(tk, llm, "council", draft, "--advisors", "editor,ghost", "-q", "x")
    assert r.returncode == 64
    assert "ghost" in one_line(r.stderr)


# ask -------------------------------------------------------------------------------------------

def test_ask_line_passage_and_continue(tk, llm, draft):
    llm.reply("The sentence is fine, but 'very unique' is redundant.")
    r = run(tk, llm, "ask", "Is this sentence OK?", "--file", draft, "--line", "6", "--role", "editor")
    assert r.returncode == 0, r.stderr
    assert "redundant" in r.stdout
    first = llm.user_messages()[-1][-1]
    assert "<passage>\nThis is a very unique sentence. It is really quite good.\n</passage>" in first
    assert "<context>" in first

    llm.reply("As I said: cut 'very'.")
    r = run(tk, llm, "ask", "And how would you fix it?", "--file", draft, "--continue", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["answer"] == "As I said: cut 'very'."
    assert doc["turn"] == 2
    msgs = llm.user_messages()[-1]
    assert len(msgs) == 3 and "redundant" in msgs[1] and "how would you fix it" in msgs[2]


def test_ask_streams_on_a_terminal(tk, llm, draft):
    llm.reply("Short answer: yes. Longer answer: the opening works because it is concrete.")
    env = dict(tk.env)
    env.update(llm.env())
    code, out = pty_stdout(["ask", "Does the opening work?", "--file", draft], env)
    assert code == 0, out
    assert b"the opening works because it is concrete." in out


def test_ask_ndjson(tk, llm, draft):
    llm.reply("One two three.")
    r = run(tk, llm, "ask", "Count?", "--file", draft, "--ndjson")
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert lines[-1]["type"] == "done" and lines[-1]["answer"] == "One two three."
    assert "".join(x["text"] for x in lines if x["type"] == "text") == "One two three."


def test_ask_stdin_and_range_errors(tk, llm, draft):
    llm.reply("It is about coffee.")
    r = run(tk, llm, "ask", "What is this about?", input="A note about coffee.\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "It is about coffee."
    assert "A note about coffee." in llm.user_messages()[-1][-1]

    r = run(tk, llm, "ask", "x", "--file", draft, "--range", "50:60")
    assert r.returncode == 64
    assert "outside the document" in one_line(r.stderr)
    r = run(tk, llm, "ask", "x", "--file", draft, "--range", "nonsense")
    assert r.returncode == 64
    r = run(tk, llm, "ask", "x", "--file", draft, "--role", "nobody")
    assert r.returncode == 64
    assert "nobody" in one_line(r.stderr)


# pipe ------------------------------------------------------------------------------------------

def test_pipe_stdout_diff_and_apply(tk, llm, draft):
    llm.reply(EDITOR_REPLY)
    r = run(tk, llm, "pipe", draft, "--role", "editor")
    assert r.returncode == 0, r.stderr
    assert "This is a unique sentence. It is good." in r.stdout
    assert draft.read_text() == DRAFT

    llm.reply(EDITOR_REPLY)
    r = run(tk, llm, "pipe", draft, "--role", "editor", "--diff")
    assert r.returncode == 0, r.stderr
    assert "-This is a very unique sentence. It is really quite good.\n" in r.stdout
    assert "+This is a unique sentence. It is good.\n" in r.stdout
    assert r.stdout.startswith("--- a/")

    llm.reply(EDITOR_REPLY)
    r = run(tk, llm, "pipe", draft, "--role", "editor", "--apply")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    assert "This is a unique sentence. It is good." in draft.read_text()

    llm.reply(EDITOR_REPLY)
    r = run(tk, llm, "pipe", "--role", "editor", input="So very unique.\n")
    assert r.returncode == 0, r.stderr
    assert r.stdout == "So unique.\n"


def test_pipe_json(tk, llm, draft):
    llm.reply(suggestions_reply(("editor", "rephrase", "very unique sentence", "unique sentence", "x", 2, 0.9),
                                ("editor", "rephrase", "unique", "singular", "y", 3, 0.5)))
    r = run(tk, llm, "pipe", draft, "--role", "editor", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert "This is a unique sentence." in doc["text"]
    assert [s["suggested_text"] for s in doc["applied"]] == ["unique sentence"]
    assert [s["suggested_text"] for s in doc["left_out"]] == ["singular"]
    assert doc["changed"] is True


def test_pipe_apply_needs_a_file(tk, llm):
    r = run(tk, llm, "pipe", "--apply", input="text\n")
    assert r.returncode == 64


# export ----------------------------------------------------------------------------------------

def test_export_formats(tk, draft):
    draft.write_text(DRAFT + "\n| a | b |\n|---|---|\n| 1 | ~~2~~ |\n\nSee https://example.com now.\n")
    r = tk.run("export", draft, "--format", "html")
    assert r.stdout.startswith("<!DOCTYPE html>")
    assert "<title>Morning Notes</title>" in r.stdout
    assert "<table>" in r.stdout and "<del>2</del>" in r.stdout
    assert '<a href="https://example.com">' in r.stdout
    assert "title: Morning Notes" not in r.stdout

    r = tk.run("export", draft, "--format", "txt")
    assert r.stdout.startswith("Morning\n\nThis is a very unique sentence.")
    assert "#" not in r.stdout and "~~" not in r.stdout and "---" not in r.stdout

    out = tk.root / "out.html"
    r = tk.run("export", draft, "--format", "html", "--output", out, "--title", "Custom")
    assert r.stdout == ""
    assert "<title>Custom</title>" in out.read_text()

    r = tk.run("export", draft, "--format", "md")
    assert r.stdout.startswith("# Morning\n")

    r = tk.run("export", draft, "--format", "pdf", check=False)
    assert r.returncode == 64
    r = tk.run("export", tk.root / "nope.md", check=False)
    assert r.returncode == 1
    one_line(r.stderr)


# story-types assemble --------------------------------------------------------------------------

def test_story_types_assemble(tk, llm):
    llm.reply(json.dumps({"story_type": "technical_docs",
                          "advisors": [{"id": "technical_writer", "reason": "Precision for developers."},
                                       {"id": "wizard", "reason": "?"}],
                          "genre_context": "Reference docs for an HTTP API."}))
    r = run(tk, llm, "story-types", "assemble", "API reference for our HTTP service", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["story_type"] == "technical_docs"
    assert doc["advisors"] == [{"id": "technical_writer", "reason": "Precision for developers."}]
    assert doc["genre_context"] == "Reference docs for an HTTP API."
    assert "wizard" in r.stderr

    llm.reply("no idea")
    r = run(tk, llm, "story-types", "assemble", "a blog post about my holiday")
    assert r.returncode == 0, r.stderr
    assert "Story type:" in r.stdout and "Advisors:" in r.stdout and "Genre context:" in r.stdout


def test_story_types_assemble_offline_uses_the_keyword_matcher(tk):
    cfg = tk.config_home / "tk" / "config.json"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(json.dumps({"provider": "anthropic"}))
    r = tk.run("story-types", "assemble", "a marketing landing page for our product launch", "--json",
               env={"ANTHROPIC_API_KEY": "", "TK_API_KEY": ""}, check=False)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["source"] == "heuristic"
    assert doc["story_type"] == "marketing_copy"
    assert "keyword matcher" in r.stderr


# config ----------------------------------------------------------------------------------------

def test_config_init_set_get_show(tk):
    cfg = tk.config_home / "tk" / "config.json"
    r = tk.run("config", "init")
    assert r.stdout.strip() == str(cfg)
    assert cfg.read_text().startswith("//")
    assert tk.run("config", "init", check=False).returncode == 1

    tk.run("config", "set", "review.auto", "false")
    tk.run("config", "set", "watch.settle_ms", "120")
    tk.run("config", "set", "provider", "ollama")
    text = cfg.read_text()
    assert "// LLM provider" in text, "comments must be kept"
    assert tk.run("config", "get", "review.auto").stdout == "false\n"
    assert tk.run("config", "get", "provider").stdout == "ollama\n"
    assert tk.json("config", "get", "watch.settle_ms", "--json") == {"key": "watch.settle_ms", "value": 120,
                                                                      "source": "user"}

    r = tk.run("config", "set", "no.such.key", "1", check=False)
    assert r.returncode == 64
    assert "unknown config key" in one_line(r.stderr)
    r = tk.run("config", "set", "review.auto", "sometimes", check=False)
    assert r.returncode == 64
    one_line(r.stderr)

    show = tk.json("config", "show", "--json", env={"TK_MODEL": "env-model"})
    by_key = {v["key"]: v for v in show["values"]}
    assert by_key["review.auto"]["source"] == "user"
    assert by_key["model"] == {"key": "model", "value": "env-model", "source": "env"}
    assert by_key["review.max_concurrent"]["source"] == "default"
    r = tk.run("config", "show", "--provider", "openai")
    assert "(flag)" in r.stdout


def test_config_set_api_key_goes_to_the_secrets_file(tk):
    env = {"TK_NO_SECRET_SERVICE": "1", "ANTHROPIC_API_KEY": ""}
    r = tk.run("config", "set", "providers.anthropic.api_key", "sk-ant-test-1234567890wxyz", env=env)
    assert "sk-ant-test" not in r.stderr and "wxyz" in r.stderr
    secrets = tk.config_home / "tk" / "secrets.json"
    assert stat.S_IMODE(secrets.stat().st_mode) == 0o600
    assert stat.S_IMODE(secrets.parent.stat().st_mode) == 0o700
    assert json.loads(secrets.read_text()) == {"providers.anthropic.api_key": "sk-ant-test-1234567890wxyz"}
    cfg = tk.config_home / "tk" / "config.json"
    assert not cfg.exists() or "sk-ant" not in cfg.read_text()

    r = tk.run("config", "show", env=env)
    assert "sk-…wxyz" in r.stdout
    assert "1234567890" not in r.stdout
    r = tk.run("config", "show", "--json", env=env)
    assert "1234567890" not in r.stdout
    assert tk.run("config", "get", "providers.anthropic.api_key", env=env).stdout.strip() == "sk-…wxyz"


def test_command_calls_count_in_usage(tk, llm, draft):
    if llm.name != "fake":
        pytest.skip("the test hook is not a provider and is not counted")
    llm.reply(EDITOR_REPLY)
    r = run(tk, llm, "suggest", draft, "--role", "editor")
    assert r.returncode == 0, r.stderr
    u = tk.json("usage", "--json")
    assert u["today"]["calls"] == 1 and u["today"]["input_tokens"] > 0
    assert [m["model"] for m in u["models"]] and u["models"][0]["provider"] == "anthropic"
