"""Issue 24, a writer's first hour, on the release binary: the README's shape and links, each
command's error line and exit code, `diff --words` on a small change, per-document version
numbers and reasons, a quiet `progress`, Latin-1 documents, `watch list` during a run, the
language server's actions and refresh, and doctor's wording."""
import json
import pathlib
import re
import time

import pytest

from lsp_helpers import LSPClient

REPO = pathlib.Path(__file__).resolve().parents[2]


# -- the README -----------------------------------------------------------------------------------

def anchors(md: str) -> set:
    """GitHub's heading anchors of a markdown text."""
    out = set()
    for line in md.splitlines():
        m = re.match(r"^#{1,6} (.*)$", line)
        if m:
            a = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
            out.add(a)
    return out


def relative_links(md: str):
    text = re.sub(r"```.*?```", "", md, flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if not re.match(r"^[a-z]+://", target):
            yield target


def test_readme_starts_where_a_writer_starts_and_every_link_resolves():
    readme = (REPO / "README.md").read_text()
    lines = readme.splitlines()
    assert len(lines) < 300, f"README has {len(lines)} lines"
    headings = [l for l in lines if l.startswith("## ")]
    # What it is, the two commands, your own folder, then the commands and the configuration.
    order = ["## Quick start", "## On your own folder", "## Commands", "## Configuration", "## Checking prose"]
    positions = [next(i for i, h in enumerate(headings) if h.startswith(o)) for o in order]
    assert positions == sorted(positions), headings
    intro = readme.split("## ")[0].strip().splitlines()
    assert 2 <= len(intro) - 1 <= 5, intro          # the title, then about three lines
    assert "./scripts/try" in readme and "./scripts/test" in readme
    for script in ("scripts/try", "scripts/test"):
        assert (REPO / script).exists()
    own = readme.split("## On your own folder")[1].split("\n## ")[0]
    for word in ("tk-agent run", "tk-agent status", "tk-agent check", "tk-agent search", "tk-agent\", \"lsp"):
        assert word in own, word
    # The command table: one row per command, none twice, no blank line inside it.
    table = readme.split("## Commands")[1].split("\n\n")[1]
    rows = [r for r in table.splitlines() if r.startswith("| `")]
    names = []
    for r in rows:
        names += sorted(set(re.findall(r"`([a-z-]+)[ `]", r.split("|")[1])))   # `journey show`, `journey set`: one row
    dupes = {n for n in names if names.count(n) > 1}
    assert not dupes, dupes
    for command in ("run", "watch", "status", "doctor", "index", "documents", "search", "check", "lsp", "review",
                    "suggestions", "journey", "ask", "suggest", "progress", "snapshot", "history", "diff", "restore",
                    "config", "usage"):
        assert command in names, command
    # Every relative link, in the README and in docs/, resolves (file and anchor).
    files = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
    assert len(files) >= 8
    for f in files:
        text = f.read_text()
        for target in relative_links(text):
            path, _, anchor = target.partition("#")
            dest = (f.parent / path).resolve() if path else f
            assert dest.exists(), f"{f.name}: link {target} does not resolve"
            if anchor and dest.suffix == ".md":
                assert anchor in anchors(dest.read_text()), f"{f.name}: no heading #{anchor} in {dest.name}"
    dev = (REPO / "docs" / "development.md").read_text()
    assert "libinotifytools" in dev and "race" in dev and "## HTTP client" in dev


# -- errors that name the fix ---------------------------------------------------------------------

@pytest.fixture
def indexed(tk):
    proj = tk.project("novel")
    (proj / "fox.md").write_text("# The fox\n\nThe quick brown fox left the farm at dawn.\n")
    tk.run("index", proj)
    return proj


def one_line(r):
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    assert len(lines) == 1, r.stderr
    return lines[0]


def test_a_project_that_is_not_watched_or_indexed_is_an_error_that_says_how_to_add_it(tk, indexed):
    stranger = tk.project("elsewhere")
    for args in (["search", "fox"], ["search", "fox", "--json"], ["documents"], ["documents", "--json"], ["progress"]):
        for folder, fix in (("/nonexistent", "no such folder"), (str(stranger), f"tk-agent watch add {stranger}")):
            r = tk.run(*args, "--project", folder, check=False)
            assert r.returncode == 1, (args, folder, r.stdout, r.stderr)
            line = one_line(r)
            assert "not a watched or indexed project" in line and fix in line, line
            assert r.stdout == ""
    # The project itself, and a folder inside it, still answer.
    assert tk.json("search", "fox", "--project", indexed, "--json")["results"]
    assert tk.run("documents", "--project", indexed).returncode == 0


def test_usage_errors_exit_64_and_say_what_is_expected(tk, indexed):
    r = tk.run("ask", "Why did the fox leave?", input="", check=False)
    assert r.returncode == 64, (r.stdout, r.stderr)
    line = one_line(r)
    assert "--project" in line and "--file" in line and "standard input" in line
    assert "provider" not in line
    r = tk.run("search", "fox", "--limit", "-1", check=False)
    assert r.returncode == 64
    assert "--limit must be 1 or more (got -1)" in r.stderr
    r = tk.run("progress", "--days", "0", check=False)
    assert r.returncode == 64 and "between 1 and 3660" in r.stderr


def test_a_broken_config_names_the_file_line_and_column(tk, indexed):
    cfg = indexed / ".tk" / "config.json"
    cfg.parent.mkdir(exist_ok=True)
    cfg.write_text('{\n  "heuristics": {\n    "max_sentence_words": 30\n    "disabled": []\n  }\n}\n')
    r = tk.run("check", indexed / "fox.md", check=False)
    assert f"{cfg}: not valid JSON at line 4, column 5" in r.stderr, r.stderr
    assert "comma missing" in r.stderr
    assert "not valid JSON at line 4, column 5" in json.dumps(tk.json("status", "--json"))


# -- readable output ------------------------------------------------------------------------------

def test_diff_words_shows_the_changed_region_not_the_document(tk):
    proj = tk.project()
    lines = [f"Line {i} of the chapter, where the fox keeps running through the wet grass." for i in range(1, 601)]
    doc = proj / "long.md"
    doc.write_text("\n".join(lines) + "\n")
    tk.run("index", proj)
    tk.run("snapshot", doc)
    lines[299] = lines[299].replace("fox keeps running", "hare keeps walking")
    doc.write_text("\n".join(lines) + "\n")
    out = tk.run("diff", doc, "--words").stdout
    assert len(out.splitlines()) <= 3, out
    assert len(out) < 300, out
    assert "@@ line 300 @@" in out
    assert "[-fox-]{+hare+}" in out and "[-running-]{+walking+}" in out


def test_history_numbers_versions_per_document_with_their_reasons(tk):
    proj = tk.project()
    a, b = proj / "a.md", proj / "b.md"
    a.write_text("# A\n\nOne.\n")
    b.write_text("# B\n\nFirst words of b.\n")
    tk.run("index", proj)
    for text in ("# A\n\nOne. Two.\n", "# A\n\nOne. Two. Three.\n"):
        a.write_text(text)
        tk.run("snapshot", a)
    tk.run("snapshot", b, "-m", "before the rewrite")
    # Each document counts its own versions from 1 (the first seen by the index is a save).
    hb = tk.json("history", b, "--json")
    assert [(e["rev"], e["reason"]) for e in hb] == [(2, "snapshot"), (1, "save")]
    ha = tk.json("history", a, "--json")
    assert [(e["rev"], e["reason"]) for e in ha] == [(3, "snapshot"), (2, "snapshot"), (1, "save")]
    assert tk.run("history", b).stdout.splitlines()[-1].split()[:1] == ["1"]
    # Versions are taken by their per-document number.
    assert "One.{+ Two.+}" in tk.run("diff", a, "1", "2", "--words").stdout
    tk.run("restore", a, "2")
    assert a.read_text() == "# A\n\nOne. Two.\n"
    assert [e["reason"] for e in tk.json("history", a, "--json")][0] == "restore"


def test_an_edit_that_moves_a_document_to_draft_is_a_save_not_a_stage(tk):
    proj = tk.project()
    doc = proj / "new.md"
    doc.write_text("")
    tk.start(proj)
    time.sleep(0.3)
    doc.write_text("# New\n\nThe first real sentence of the new story is written here today.\n")
    tk.wait_for(lambda: tk.json("history", doc, "--json"), what="a version kept", timeout=15)
    reasons = [e["reason"] for e in tk.json("history", doc, "--json")]
    assert "stage" not in reasons and set(reasons) <= {"save", "round", "snapshot"}, reasons


def test_progress_without_goal_or_writing_is_one_short_paragraph(tk, indexed):
    r = tk.run("progress", "--project", indexed)
    out = r.stdout.strip()
    assert len(out.splitlines()) == 1 and len(out) < 300, out
    assert "no goal" in out and "progress.daily_goal" in out


def test_latin1_documents_are_read_as_latin1_with_one_problem(tk):
    proj = tk.project()
    doc = proj / "cafe.md"
    doc.write_bytes("# Au café\n\nLe café était naïve et très calme.\n".encode("latin-1"))
    tk.run("index", proj)
    hits = tk.json("search", "cafe", "--json")["results"]
    assert [h["path"] for h in hits] == ["cafe.md"], hits
    assert "café" in hits[0]["snippet"].lower() or "Café" in hits[0]["title"] or "café" in hits[0]["title"]
    findings = json.loads(tk.run("check", "--format", "json", doc, check=False).stdout)["files"][0]["findings"]
    texts = {f["text"] for f in findings}
    assert not texts & {"Caf", "na", "ve", "tr", "s"}, texts
    problems = [p for p in tk.json("status", "--json")["projects"][0]["problems"] if "Latin-1" in p]
    assert len(problems) == 1 and "save as UTF-8" in problems[0], problems


def test_watch_list_shows_this_runs_projects(tk):
    saved, run_only = tk.project("saved"), tk.project("draft")
    tk.run("watch", "add", saved)
    assert tk.json("watch", "list", "--json") == [{"path": str(saved), "exists": True, "saved": True, "watching": False}]
    tk.start(run_only)
    items = tk.json("watch", "list", "--json")
    assert {"path": str(run_only), "exists": True, "saved": False, "watching": True} in items
    text = tk.run("watch", "list").stdout
    assert str(run_only) in text and "this run" in text


# -- the language server --------------------------------------------------------------------------

def test_lsp_actions_once_ignore_here_and_refresh_after_add_to_dictionary(tk):
    proj = tk.project()
    (proj / ".tk").mkdir()
    text = "# Notes\n\nIt was a fait fait accompli by then.\n\nThe zorbleflux was eaten by the dog.\n"
    (proj / "doc.md").write_text(text)
    c = LSPClient(dict(tk.env), cwd=proj)
    try:
        c.initialize()
        uri = c.open(proj / "doc.md", text)
        diags = c.diagnostics(uri, lambda ds: any(d["code"] == "spelling" for d in ds) and any(d["code"] == "passive" for d in ds))
        # Everything on the line of the repeated, misspelt word: no title twice.
        line2 = {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 40}}
        acts = c.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": line2,
                                                    "context": {"diagnostics": []}})["result"]
        titles = [a["title"] for a in acts]
        assert titles and len(titles) == len(set(titles)), titles
        # Ignore here beside ignore in this file, for the passive on line 5.
        passive = next(d for d in diags if d["code"] == "passive")
        acts = c.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": passive["range"],
                                                    "context": {"diagnostics": [passive]}})["result"]
        titles = [a["title"] for a in acts]
        assert "Ignore passive here" in titles and "Ignore passive in this file" in titles
        here = next(a for a in acts if a["title"] == "Ignore passive here")["edit"]["changes"][uri][0]
        assert here["newText"] == "<!-- tk-ignore-next-line passive -->\n"
        assert here["range"]["start"] == {"line": 4, "character": 0}
        # Add to dictionary: the squiggle goes within a second, with no keystroke.
        spell = next(d for d in diags if d["code"] == "spelling" and "zorbleflux" in d["message"].lower()
                     or d["code"] == "spelling" and d["range"]["start"]["line"] == 4)
        acts = c.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": spell["range"],
                                                    "context": {"diagnostics": [spell]}})["result"]
        add = next(a for a in acts if a["title"].startswith("Add “"))
        mark = c.mark()
        t0 = time.monotonic()
        c.request("workspace/executeCommand", add["command"])
        c.diagnostics(uri, lambda ds: not any(d["code"] == "spelling" and d["range"]["start"]["line"] == 4 for d in ds),
                      after=mark, timeout=5)
        assert time.monotonic() - t0 < 1.0
        # Applying "Ignore here" silences that occurrence only.
        mark = c.mark()
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                            "contentChanges": [{"range": here["range"], "text": here["newText"]}]})
        c.diagnostics(uri, lambda ds: not any(d["code"] == "passive" for d in ds), after=mark)
        # Hover over several diagnostics shows each of them.
        h = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 10}})
        assert h["result"] and h["result"]["contents"]["value"].count("**tk-agent ·") >= 1
    finally:
        c.close()


# -- messages -------------------------------------------------------------------------------------

def test_doctor_and_dry_run_wording_without_a_provider(tk):
    env = {"OLLAMA_HOST": "http://127.0.0.1:9", "ANTHROPIC_API_KEY": "", "OPENAI_API_KEY": "", "TK_API_KEY": ""}
    checks = tk.json("doctor", "--json", check=False, env=env)
    rows = checks["checks"] if isinstance(checks, dict) else checks
    text = json.dumps(rows)
    assert "no LLM provider: no LLM provider" not in text
    provider = [r for r in rows if r["area"] == "provider"]
    assert provider and "no LLM provider is available" in provider[0]["message"]
    systemd = next(r for r in rows if r["area"] == "systemd")
    fix = systemd.get("fix") or ""
    m = re.search(r"install -Dm644 (\S+)", fix)
    assert m and m.group(1).startswith("/") and pathlib.Path(m.group(1)).exists(), fix
    proj = tk.project()
    (proj / "d.md").write_text("# D\n\nA short draft.\n")
    r = tk.run("review", proj / "d.md", "--dry-run", env=env, check=False)
    assert "not in the price table" not in r.stdout + r.stderr
    assert "no LLM provider is available" in r.stdout + r.stderr


def test_config_files_linked_from_a_dotfiles_folder_are_read(tk):
    """Dotfiles managers (stow, chezmoi, home-manager) put a link where the config file goes: the
    user's and a project's config are read through it, by `check` and by the running agent, and
    nothing reports a problem (they used to be refused as "too many levels of symbolic links")."""
    dotfiles = tk.root / "dotfiles"
    dotfiles.mkdir()
    (dotfiles / "tk.json").write_text(json.dumps({
        "watch": {"settle_ms": 50}, "review": {"auto": False}, "notifications": {"enabled": False},
        "heuristics": {"max_sentence_words": 8}}))
    user_cfg = tk.config_home / "tk" / "config.json"
    user_cfg.parent.mkdir(parents=True, exist_ok=True)
    user_cfg.symlink_to(dotfiles / "tk.json")
    proj = tk.project("novel")
    (proj / ".tk").mkdir()
    (dotfiles / "novel.json").write_text(json.dumps({"heuristics": {"disabled": ["weasel"]}}))
    (proj / ".tk" / "config.json").symlink_to(dotfiles / "novel.json")
    sentence = "The fox ran over the hill and into the quiet woods beyond the farm."
    (proj / "fox.md").write_text(f"# Fox\n\n{sentence} It was very cold.\n")
    assert tk.run("config", "get", "heuristics.max_sentence_words").stdout.strip() == "8"
    (checked,) = tk.json("check", "--format", "json", proj / "fox.md")["files"]
    rules = {f["rule"] for f in checked["findings"]}
    assert "long_sentence" in rules and "weasel" not in rules, checked
    tk.start(proj)
    status = tk.status()
    problems = status.get("problems", []) + [p for pr in status.get("projects", []) for p in pr.get("problems", [])]
    assert not problems, problems
    side = json.loads((proj / ".tk" / "fox.md.review.json").read_text())
    quick = {f["rule"] for f in side["quick"]}
    assert "long_sentence" in quick and "weasel" not in quick, side["quick"]
