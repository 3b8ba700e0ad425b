"""A project question's plain command lines are read without ArgumentParser (`Ask.quickParse`);
anything else goes to ArgumentParser. Each case runs one command the quick reader takes and one
that means the same but that it declines (a repeated option, of which ArgumentParser keeps the
last; or an option it leaves to ArgumentParser), and compares stdout, stderr and the exit status."""
import json
import subprocess

import pytest

from agent_helpers import BIN

CASES = [
    (["where is the lighthouse", "--project", "{p}", "--sources"],
     ["where is the lighthouse", "--project", "{p}", "--sources", "--passages", "3", "--passages", "8"]),
    (["where is the lighthouse", "--project={p}", "--sources", "--json"],
     ["where is the lighthouse", "--project", "elsewhere", "--project={p}", "--sources", "--json"]),
    (["keeper of the light", "--all", "--sources", "--ndjson", "--passages", "2"],
     ["keeper of the light", "--all", "--sources", "--ndjson", "--passages", "9", "--passages=2"]),
    (["--project", "{p}", "--sources", "--verbose", "--", "the storm"],
     ["--project", "{p}", "--sources", "-v", "--model", "x", "--model", "y", "--", "the storm"]),
    (["the storm", "--project", "{p}", "--dry-run", "--until", "b.md"],
     ["the storm", "--project", "{p}", "--dry-run", "--until", "a.md", "--until", "b.md"]),
    (["the storm", "--project", "{p}", "--sources", "--from", "b.md:2", "--quiet"],
     ["the storm", "--project", "{p}", "--sources", "--from", "a.md", "--from=b.md:2", "--quiet"]),
    # Errors found after the parse: the same line either way.
    (["the storm", "--project", "{p}", "--sources", "--until", "missing.md"],
     ["the storm", "--project", "{p}", "--sources", "--until", "a.md", "--until", "missing.md"]),
    (["the storm", "--project", "{p}", "--sources", "--until=-b.md"],
     ["the storm", "--project", "{p}", "--sources", "--until", "a.md", "--until=-b.md"]),
    (["the storm", "--project", "/nowhere", "--sources"],
     ["the storm", "--project", "{p}", "--project", "/nowhere", "--sources"]),
    (["the storm", "--project", "{p}", "--passages", "0"],
     ["the storm", "--project", "{p}", "--passages", "5", "--passages", "0"]),
]


@pytest.fixture
def proj(tk):
    p = tk.project()
    (p / "a.md").write_text("# The lighthouse\n\nThe keeper climbed the lighthouse every night.\n")
    (p / "b.md").write_text("# The storm\n\nThe storm broke the light.\nNobody came.\n")
    cfg = tk.config_home / "tk" / "config.json"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(json.dumps({"embeddings": {"provider": "none"}, "notifications": {"enabled": False}}))
    tk.run("index", p)
    return p


def run(tk, proj, args):
    return subprocess.run([BIN, "ask", *[a.replace("{p}", str(proj)) for a in args]], cwd=proj, capture_output=True,
                          text=True, env=tk.env, timeout=60)


def timings_free(s):
    # `--verbose` prints phase timings; everything else must be the same.
    return [line for line in s.splitlines() if not line.startswith(("timings:", "retrieval:"))]


@pytest.mark.parametrize("quick,full", CASES)
def test_the_quick_reading_and_argument_parser_agree(tk, proj, quick, full):
    a, b = run(tk, proj, quick), run(tk, proj, full)
    assert (a.returncode, a.stdout, timings_free(a.stderr)) == (b.returncode, b.stdout, timings_free(b.stderr))
    assert a.stdout or a.stderr


def test_sources_come_from_the_project(tk, proj):
    r = run(tk, proj, ["where is the lighthouse", "--project", "{p}", "--sources", "--json"])
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["sources"] and out["sources"][0]["path"] == "a.md"


@pytest.mark.parametrize("args,needle", [
    (["", "--project", "{p}", "--sources"], "the question is empty"),
    (["q", "--project", "{p}", "--all"], "give --project P or --all, not both"),
    (["q", "--all", "--until", "a.md"], "--until and --from need one project"),
    (["q", "--project", "{p}", "--json", "--quiet"], "--json, --ndjson and --quiet exclude one another"),
    (["q", "--project", "{p}", "--provider", "nope"], "unknown provider \"nope\""),
    (["q", "--project", "{p}", "--passages", "many"], "The value 'many' is invalid for '--passages <passages>'"),
    (["q", "--project", "{p}", "--sourcs"], "Unknown option '--sourcs'"),
    (["q", "--project"], "Missing value for '--project <project>'"),
])
def test_what_the_quick_reading_declines_gets_argument_parsers_error(tk, proj, args, needle):
    r = run(tk, proj, args)
    assert r.returncode == 64, r
    assert needle in r.stderr, r.stderr
    assert r.stdout == ""


def test_a_question_about_a_text_and_help_take_the_full_parse(tk, proj):
    h = run(tk, proj, ["--help"])
    assert h.returncode == 0 and "USAGE: tk-agent ask" in h.stdout
    r = run(tk, proj, ["q", "help", "--project", "{p}"])
    assert r.returncode == 64 and "Unexpected argument 'help'" in r.stderr, r.stderr
