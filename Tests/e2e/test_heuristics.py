"""End-to-end tests of issue 3: quick heuristics on every save, sidecars and `tk-agent check`."""
import hashlib
import json
import os
import pathlib
import re
import shutil
import signal
import time

import pytest

SETTLE = 0.6  # comfortably longer than settle_ms (50) plus a batch, for "nothing happened" checks


def sidecar_path(project: pathlib.Path, rel: str) -> pathlib.Path:
    return project / ".tk" / (rel + ".review.json")


def read_sidecar(project, rel):
    p = sidecar_path(project, rel)
    try:
        return json.loads(p.read_bytes())
    except (OSError, json.JSONDecodeError):
        return None


def wait_sidecar(tk, project, rel, agent, sha=None, timeout=10):
    """Waits until the sidecar exists (and describes `sha` when given); returns it."""
    def ready():
        s = read_sidecar(project, rel)
        if s is None:
            return None
        if sha is not None and s.get("sha256") != sha:
            return None
        return s
    return tk.wait_for(ready, timeout=timeout, what=f"sidecar of {rel}", proc=agent)


def write_sidecar(path: pathlib.Path, sidecar: dict):
    """Writes a sidecar as a test fixture would: without a `checksum` key (if tk-agent seals its sidecars
    with one, an unsealed file is trusted as written by an older version or a test)."""
    sidecar = dict(sidecar)
    sidecar.pop("checksum", None)
    path.write_text(json.dumps(sidecar, ensure_ascii=False, indent=2))


def sha(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def line_column(data: bytes, offset: int):
    """1-based line, and 1-based column counted in Unicode scalars (the contract's positions)."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, len(data[line_start:offset].decode("utf-8")) + 1


def assert_positions(data: bytes, findings):
    assert findings, "expected findings"
    for f in findings:
        assert 0 <= f["start"] < f["end"] <= len(data), f
        assert data[f["start"]:f["end"]].decode("utf-8") == f["text"], f
        assert (f["line"], f["column"]) == line_column(data, f["start"]), f
        for k in ["id", "rule", "category", "severity", "message", "replacements"]:
            assert k in f, (k, f)


def rules(findings):
    return sorted({f["rule"] for f in findings})


def texts(findings):
    return sorted(f["text"] for f in findings)


def user_config(tk, extra=None):
    cfg = {"watch": {"settle_ms": 50}, "review": {"auto": False}, "notifications": {"enabled": False}}
    for k, v in (extra or {}).items():
        cfg.setdefault(k, {}).update(v)
    p = tk.config_home / "tk" / "config.json"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(cfg))


NON_ASCII = (
    "---\ntitle: Café 日本語\ntags: [x]\n---\n\n"
    "# Le café 😀\n\n"
    "Le café 日本語 😀 was written by the team. Ça va 👍🏽 very well, it is really very good.\n\n"
    "Émilie 🇫🇷 delve into the tapestry of 東京. The the end.\n"
)


# ---------------------------------------------------------------- sidecars written by the agent


def test_sidecar_after_save_with_exact_positions_on_non_ascii(tk):
    p = tk.project()
    agent = tk.start(p)
    doc = p / "notes" / "café.md"
    doc.parent.mkdir()
    doc.write_text(NON_ASCII)
    s = wait_sidecar(tk, p, "notes/café.md", agent, sha=sha(doc))
    assert s["schema"] == "tk.review/1"
    assert s["document"] == "notes/café.md"
    assert re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", s["updated_at"])
    assert isinstance(s["words"], int) and s["words"] > 10
    for k in ["journey", "quick", "rounds", "suggestions"]:
        assert k in s
    data = doc.read_bytes()
    assert_positions(data, s["quick"])
    got = rules(s["quick"])
    for r in ["passive", "ai_cliche", "repeated_word"]:
        assert r in got, got
    # Nothing from the front matter (the title has no findings anyway, but its bytes must be excluded).
    fm_end = data.index(b"---\n", 4) + 4
    assert all(f["start"] >= fm_end for f in s["quick"])

    # A later save refreshes the findings.
    doc.write_text(NON_ASCII.replace("delve into the tapestry of", "walked around"))
    s2 = wait_sidecar(tk, p, "notes/café.md", agent, sha=sha(doc))
    assert "delve into" not in texts(s2["quick"]) and "tapestry" not in texts(s2["quick"])
    assert_positions(doc.read_bytes(), s2["quick"])


def test_no_rewrite_on_touch_or_identical_save(tk):
    p = tk.project()
    doc = p / "a.md"
    doc.write_text("# A\n\nThe plan was approved by the board.\n")
    agent = tk.start(p)
    s = wait_sidecar(tk, p, "a.md", agent, sha=sha(doc))
    side = sidecar_path(p, "a.md")
    before = (side.stat().st_mtime_ns, side.stat().st_ino, side.read_bytes())
    # touch: ATTRIB + CLOSE_WRITE, same content.
    os.utime(doc, None)
    time.sleep(SETTLE)
    tk.wait_for(tk.idle, proc=agent, what="idle")
    # The same bytes written again (an editor's save without changes).
    doc.write_bytes(doc.read_bytes())
    time.sleep(SETTLE)
    tk.wait_for(tk.idle, proc=agent, what="idle")
    after = (side.stat().st_mtime_ns, side.stat().st_ino, side.read_bytes())
    assert after == before
    assert s["updated_at"] == read_sidecar(p, "a.md")["updated_at"]
    # No feedback loop: the agent's own write under .tk/ does not trigger more writes.
    time.sleep(SETTLE)
    assert (side.stat().st_mtime_ns, side.stat().st_ino) == before[:2]


def test_sidecar_moved_on_rename_and_removed_on_delete(tk):
    p = tk.project()
    doc = p / "book" / "part1" / "ch1.md"
    doc.parent.mkdir(parents=True)
    doc.write_text("# One\n\nIt was written by me. Really very good.\n")
    agent = tk.start(p)
    wait_sidecar(tk, p, "book/part1/ch1.md", agent, sha=sha(doc))
    # Mark the sidecar so we can tell it was moved, not rebuilt.
    side = sidecar_path(p, "book/part1/ch1.md")
    s = json.loads(side.read_bytes())
    s["journey"]["revision_cycle"] = 7
    write_sidecar(side, s)

    new = p / "book" / "ch-one.md"
    os.rename(doc, new)
    # The sidecar is moved first, then derived for its new path (a reader may see the moment between).
    moved = tk.wait_for(lambda: (read_sidecar(p, "book/ch-one.md") or {}).get("document") == "book/ch-one.md"
                        and read_sidecar(p, "book/ch-one.md"), proc=agent, what="sidecar moved and derived")
    assert moved["journey"]["revision_cycle"] == 7
    tk.wait_for(lambda: not sidecar_path(p, "book/part1/ch1.md").exists(), proc=agent, what="old sidecar gone")
    # The emptied .tk/book/part1 folder went with it.
    tk.wait_for(lambda: not (p / ".tk" / "book" / "part1").exists(), proc=agent, what="empty .tk subfolder pruned")

    # A directory rename moves every sidecar below it.
    os.rename(p / "book", p / "novel")
    moved = wait_sidecar(tk, p, "novel/ch-one.md", agent)
    assert moved["journey"]["revision_cycle"] == 7
    tk.wait_for(lambda: not (p / ".tk" / "book").exists(), proc=agent, what=".tk/book pruned")

    new = p / "novel" / "ch-one.md"
    new.unlink()
    tk.wait_for(lambda: not sidecar_path(p, "novel/ch-one.md").exists(), proc=agent, what="sidecar removed")
    tk.wait_for(lambda: not (p / ".tk" / "novel").exists(), proc=agent, what=".tk/novel pruned")
    assert (p / ".tk").is_dir()  # the project's .tk itself stays
    assert agent.poll() is None


def test_journey_rounds_and_suggestions_survive_a_refresh(tk):
    p = tk.project()
    doc = p / "post.md"
    doc.write_text("# Post\n\nThe cake was eaten by the dog.\n")
    agent = tk.start(p)
    s = wait_sidecar(tk, p, "post.md", agent, sha=sha(doc))
    s["journey"]["revision_cycle"] = 2
    s["journey"]["stats"] = {"received": 5, "accepted": 2, "edited": 1, "skipped": 1}
    s["rounds"] = [{
        "id": "r-test-1", "cycle": 2, "status": "done", "reason": None, "provider": "anthropic",
        "model": "claude-x", "advisors": ["editor"], "queued_at": "2026-11-23T10:00:00Z",
        "started_at": "2026-11-23T10:00:01Z", "finished_at": "2026-11-23T10:00:09Z",
        "usage": {"input_tokens": 100, "output_tokens": 20, "cost_usd": 0.001}, "error": None,
    }]
    s["suggestions"] = [
        {"id": "s-test-1", "round": "r-test-1", "advisor_id": "editor", "type": "rephrase",
         "original_text": "The cake was eaten by the dog.", "suggested_text": "The dog ate the cake.",
         "reasoning": "Active voice.", "priority": 2, "confidence": 0.9, "status": "skipped",
         "start": None, "end": None, "line": None, "column": None},
    ]
    write_sidecar(sidecar_path(p, "post.md"), s)
    doc.write_text("# Post\n\nThe cake was eaten by the dog. It is very tasty.\n")
    s2 = wait_sidecar(tk, p, "post.md", agent, sha=sha(doc))
    assert "very" in texts(s2["quick"])
    assert s2["journey"]["revision_cycle"] == 2
    assert s2["journey"]["stats"]["accepted"] == 2
    assert [r["id"] for r in s2["rounds"]] == ["r-test-1"]
    assert s2["rounds"][0]["usage"]["input_tokens"] == 100
    assert [x["id"] for x in s2["suggestions"]] == ["s-test-1"]
    assert s2["suggestions"][0]["status"] == "skipped"
    assert s2["suggestions"][0]["suggested_text"] == "The dog ate the cake."


def test_unreadable_or_oversized_document_gets_no_partial_sidecar(tk):
    p = tk.project()
    (p / ".tk").mkdir()
    (p / ".tk" / "config.json").write_text(json.dumps({"watch": {"max_file_bytes": 2000}}))
    ok = p / "ok.md"
    ok.write_text("# Ok\n\nIt was done by me.\n")
    big = p / "big.md"
    big.write_text("# Big\n\n" + "It was written by a very tired person. " * 100)
    # Not regular files: a FIFO (reading it would block forever) and a folder named like a document.
    os.mkfifo(p / "pipe.md")
    (p / "folder.md").mkdir()
    (p / "folder.md" / "inner.md").write_text("# Inner\n\ninner text\n")
    agent = tk.start(p)
    wait_sidecar(tk, p, "ok.md", agent)
    wait_sidecar(tk, p, "folder.md/inner.md", agent)
    assert not sidecar_path(p, "big.md").exists()
    assert not sidecar_path(p, "pipe.md").exists()
    assert tk.indexed_paths() == ["folder.md/inner.md", "ok.md"]

    def big_reported():
        probs = tk.status()["projects"][0]["problems"]
        return any("big.md" in x and "max_file_bytes" in x for x in probs)
    tk.wait_for(big_reported, proc=agent, what="problem for big.md")

    # A document that grows over the limit keeps no stale index entry, gets no new sidecar, and is reported.
    before = read_sidecar(p, "ok.md")
    ok.write_text("# Ok\n\n" + "It was done by me. " * 200)
    def ok_reported():
        probs = tk.status()["projects"][0]["problems"]
        return any("ok.md" in x and "max_file_bytes" in x for x in probs)
    tk.wait_for(ok_reported, proc=agent, what="problem for ok.md")
    assert tk.search_paths("done") == []
    after = read_sidecar(p, "ok.md")
    assert after is None or after["sha256"] == before["sha256"]
    # Back under the limit: indexed again, problem gone.
    ok.write_text("# Ok\n\nIt was finished by me.\n")
    wait_sidecar(tk, p, "ok.md", agent, sha=sha(ok))
    tk.wait_for(lambda: not ok_reported(), proc=agent, what="problem cleared")
    assert tk.search_paths("finished") == ["ok.md"]
    # The limit raised in the project config: the big document comes in at once.
    (p / ".tk" / "config.json").write_text(json.dumps({"watch": {"max_file_bytes": 100_000}}))
    wait_sidecar(tk, p, "big.md", agent, sha=sha(big))
    tk.wait_for(lambda: not big_reported(), proc=agent, what="problem gone with the higher limit")
    (p / ".tk" / "config.json").write_text(json.dumps({"watch": {"max_file_bytes": 2000}}))
    tk.wait_for(big_reported, proc=agent, what="problem back with the lower limit")
    tk.wait_for(lambda: "big.md" not in tk.indexed_paths(), proc=agent, what="big.md out of the index")
    # A too-large document deleted with its folder: its problem goes too.
    (p / "sub").mkdir()
    os.rename(big, p / "sub" / "big.md")
    tk.wait_for(lambda: any("sub/big.md" in x for x in tk.status()["projects"][0]["problems"]), proc=agent,
                what="problem for sub/big.md")
    shutil.rmtree(p / "sub")
    tk.wait_for(lambda: not any("big.md" in x for x in tk.status()["projects"][0]["problems"]), proc=agent,
                what="problem gone with its folder")
    assert agent.poll() is None


def test_broken_front_matter_is_reported_in_status(tk):
    p = tk.project()
    doc = p / "broken.md"
    doc.write_text("---\ntitle: [unclosed\n---\n\nIt was written by me.\n")
    agent = tk.start(p)
    s = wait_sidecar(tk, p, "broken.md", agent)
    assert all("unclosed" not in f["text"] for f in s["quick"])

    def reported():
        return any("broken.md" in x and "front matter" in x for x in tk.status()["projects"][0]["problems"])
    tk.wait_for(reported, proc=agent, what="front matter problem in status")
    # Still reported after a restart, although the unchanged document is not read again.
    assert tk.stop(agent) == 0
    agent = tk.start(p)
    tk.wait_for(reported, proc=agent, what="front matter problem after a restart")
    doc.write_text("---\ntitle: Fixed\n---\n\nIt was written by me.\n")
    tk.wait_for(lambda: not reported(), proc=agent, what="problem cleared")


MARKDOWN_TRAPS = """---
title: It is important to note the robust tapestry
description: very very really passive was written
---

# Traps

```python
x = "it was written by a very robust leverage"  # delve
```

    indented code: the the was eaten really

Use `very very robust` and see https://example.com/delve/tapestry/really-was-written or
[a link](https://example.com/leverage-the-the) and <https://robust.example/delve>.

<div>
HTML block: delve into the tapestry, it was eaten.
</div>

| data | really |
|---|---|
| delve | was eaten |

<!-- tk-ignore -->
Ignored block: we delve into the tapestry. It was eaten by him.
<!-- tk-end-ignore -->

<!-- tk-ignore-next-line -->
Ignored line: leverage the robust landscape.

<!-- tk-ignore passive -->
Only passive ignored: the cake was eaten by the dog, and we delve into it.

Plain prose: the bread was eaten by the cat.
"""


def test_no_findings_inside_markup_and_ignore_comments(tk):
    p = tk.project()
    doc = p / "traps.md"
    doc.write_text(MARKDOWN_TRAPS)
    agent = tk.start(p)
    s = wait_sidecar(tk, p, "traps.md", agent, sha=sha(doc))
    data = doc.read_bytes()
    assert_positions(data, s["quick"])
    lines = data.decode().split("\n")
    flagged_lines = {lines[f["line"] - 1] for f in s["quick"]}
    for line in flagged_lines:
        assert line.startswith("Only passive ignored") or line.startswith("Plain prose"), (line, s["quick"])
    only = [f for f in s["quick"] if lines[f["line"] - 1].startswith("Only passive ignored")]
    assert "passive" not in rules(only) and "ai_cliche" in rules(only)
    plain = [f for f in s["quick"] if lines[f["line"] - 1].startswith("Plain prose")]
    assert "passive" in rules(plain)
    # `check` agrees with the sidecar.
    r = tk.json("check", "--format", "json", doc)
    assert [f["id"] for f in r["files"][0]["findings"]] == [f["id"] for f in s["quick"]]


def test_project_config_disables_rules_and_allows_words(tk):
    p = tk.project()
    (p / ".tk").mkdir()
    (p / ".tk" / "config.json").write_text(json.dumps(
        {"heuristics": {"disabled": ["passive"], "allow": ["tapestry"]}}))
    other = tk.project("other")
    text = "# T\n\nThe cake was eaten by the dog. We delve into the tapestry.\n"
    (p / "a.md").write_text(text)
    (other / "a.md").write_text(text)
    agent = tk.start(p, other)
    s = wait_sidecar(tk, p, "a.md", agent)
    o = wait_sidecar(tk, other, "a.md", agent)
    assert "passive" not in rules(s["quick"]) and "tapestry" not in texts(s["quick"])
    assert "delve into" in texts(s["quick"])
    assert "passive" in rules(o["quick"]) and "tapestry" in texts(o["quick"])
    # `check` uses the nearest project's config too.
    r = tk.json("check", "--json", p / "a.md", other / "a.md")
    assert "passive" not in rules(r["files"][0]["findings"])
    assert "passive" in rules(r["files"][1]["findings"])

    # An edit of the project config applies at once, without a save or a restart: every sidecar is refreshed.
    (p / "b.md").write_text("# B\n\nThe bread was eaten. We leverage synergies.\n")
    wait_sidecar(tk, p, "b.md", agent)
    (p / ".tk" / "config.json").write_text(json.dumps({"heuristics": {"disabled": ["ai_cliche"]}}))

    def refreshed(rel):
        def check():
            s = read_sidecar(p, rel)
            return s and "passive" in rules(s["quick"]) and "ai_cliche" not in rules(s["quick"])
        return check
    tk.wait_for(refreshed("a.md"), proc=agent, what="a.md refreshed after the config edit")
    tk.wait_for(refreshed("b.md"), proc=agent, what="b.md refreshed after the config edit")
    # The other project is untouched.
    assert "ai_cliche" in rules(read_sidecar(other, "a.md")["quick"])
    # And the next save still uses it.
    (p / "a.md").write_text(text + "\nIt was sold.\n")
    s2 = wait_sidecar(tk, p, "a.md", agent, sha=sha(p / "a.md"))
    assert "passive" in rules(s2["quick"]) and "ai_cliche" not in rules(s2["quick"])
    # Removing the project config brings the user's settings back.
    (p / ".tk" / "config.json").unlink()
    tk.wait_for(lambda: "ai_cliche" in rules(read_sidecar(p, "b.md")["quick"]), proc=agent,
                what="refresh after the project config was removed")


# ---------------------------------------------------------------- tk-agent check


CHECK_DOC = "# Check\n\nThe report was written by the team. We delve into the data.\n"


def test_check_formats(tk):
    p = tk.project()
    f = p / "doc.md"
    f.write_text(CHECK_DOC)
    # json: tk.check/1
    r = tk.run("check", "--format", "json", f)
    out = json.loads(r.stdout)
    assert out["schema"] == "tk.check/1"
    assert out["files"][0]["path"] == str(f)
    findings = out["files"][0]["findings"]
    assert_positions(f.read_bytes(), findings)
    assert r.returncode == 0
    assert json.loads(tk.run("check", "--json", f).stdout) == out
    # line: path:line:column: severity: message [rule]
    lines = tk.run("check", "--format", "line", f).stdout.splitlines()
    assert len(lines) == len(findings)
    pat = re.compile(r"^(.+):(\d+):(\d+): (info|suggestion|warning): (.+) \[([a-z_.]+)\]$")
    for line, fd in zip(lines, findings):
        m = pat.match(line)
        assert m, line
        assert (m[1], int(m[2]), int(m[3]), m[4], m[6]) == (str(f), fd["line"], fd["column"], fd["severity"], fd["rule"])
    # text: grouped, no escape codes with NO_COLOR (set by the fixture) or when piped.
    text = tk.run("check", f).stdout
    assert str(f) in text and "passive" in text
    assert "\x1b" not in text
    assert re.search(r"\d+ findings? in 1 file", text)
    # --strict exits 2 when anything is found, 0 when nothing is.
    assert tk.run("check", "--strict", f, check=False).returncode == 2
    clean = p / "clean.md"
    clean.write_text("# Clean\n\nThe team wrote the report.\n")
    r = tk.run("check", "--strict", clean, check=False)
    assert r.returncode == 0, r.stdout
    assert "No findings" in r.stdout


def test_check_no_color_even_on_a_terminal(tk):
    pty = pytest.importorskip("pty")
    p = tk.project()
    f = p / "doc.md"
    f.write_text(CHECK_DOC)
    import subprocess
    from agent_helpers import BIN

    def run_on_tty(env):
        master, slave = pty.openpty()
        try:
            proc = subprocess.run([BIN, "check", str(f)], stdout=slave, stderr=subprocess.PIPE, env=env, timeout=30)
            os.close(slave)
            slave = None
            chunks = []
            while True:
                try:
                    b = os.read(master, 65536)
                except OSError:
                    break
                if not b:
                    break
                chunks.append(b)
            return proc.returncode, b"".join(chunks).decode(errors="replace")
        finally:
            if slave is not None:
                os.close(slave)
            os.close(master)

    env = dict(tk.env)
    env.pop("NO_COLOR")
    env["TERM"] = "xterm-256color"
    rc, coloured = run_on_tty(env)
    assert rc == 0
    assert "\x1b[" in coloured
    env["NO_COLOR"] = "1"
    rc, plain = run_on_tty(env)
    assert rc == 0 and "passive" in plain
    assert "\x1b" not in plain


def test_check_story_type_and_stdin(tk):
    p = tk.project()
    sentence = " ".join(["word"] * 12 + ["and", "more", "words", "keep", "coming", "along", "here", "now", "today"]) + "."
    f = p / "memo.md"
    f.write_text(f"# Memo\n\n{sentence}\n")  # 21 words: over email_memo's 20, under the default 30
    plain = json.loads(tk.run("check", "--json", f).stdout)["files"][0]["findings"]
    assert "long_sentence" not in {x["category"] for x in plain}
    memo = json.loads(tk.run("check", "--json", "--story-type", "email_memo", f).stdout)["files"][0]["findings"]
    assert "long_sentence" in {x["category"] for x in memo}
    r = tk.run("check", "--story-type", "nonsense", f, check=False)
    assert r.returncode == 64 and "nonsense" in r.stderr and len(r.stderr.strip().splitlines()) <= 3
    # Standard input is the path "-".
    r = tk.run("check", "--json", "-", input=CHECK_DOC)
    out = json.loads(r.stdout)
    assert out["files"][0]["path"] == "-"
    assert "passive" in rules(out["files"][0]["findings"])
    assert_positions(CHECK_DOC.encode(), out["files"][0]["findings"])
    r = tk.run("check", "--format", "line", "-", input=CHECK_DOC)
    assert r.stdout.startswith("-:3:")


def test_check_walks_folders_with_the_watchers_rules(tk):
    p = tk.project()
    (p / ".tk").mkdir()
    (p / ".tk" / "config.json").write_text(json.dumps(
        {"watch": {"ignore": ["drafts/", "*.private.md"], "max_file_bytes": 3000}}))
    body = "# X\n\nIt was written by someone.\n"
    for rel in ["a.md", "sub/b.markdown", "sub/deep/c.md",
                ".hidden/h.md", "sub/.hidden.md", "node_modules/pkg/n.md", "drafts/d.md", "sub/drafts/d2.md",
                "x.private.md", "notes.txt", ".#lock.md", "a.md~", ".a.md.swp", "4913", "tmp.tmp"]:
        path = p / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    (p / "huge.md").write_text("# Huge\n\n" + "It was written. " * 400)
    os.symlink(p / "a.md", p / "link.md")
    os.symlink(p / "sub", p / "linkdir")
    r = tk.run("check", "--format", "json", p)
    assert r.returncode == 0, r.stderr
    paths = sorted(x["path"] for x in json.loads(r.stdout)["files"])
    assert paths == sorted(str(p / x) for x in ["a.md", "sub/b.markdown", "sub/deep/c.md"])
    assert "huge.md" in r.stderr and "max_file_bytes" in r.stderr
    # A subfolder uses its project's ignore globs (relative to the project root).
    r = tk.run("check", "--format", "json", p / "sub")
    assert sorted(x["path"] for x in json.loads(r.stdout)["files"]) == sorted(
        str(p / "sub" / x) for x in ["b.markdown", "deep/c.md"])
    # Named explicitly, a file is checked even if a folder walk would skip it.
    r = tk.run("check", "--format", "json", p / "drafts" / "d.md")
    assert json.loads(r.stdout)["files"][0]["path"] == str(p / "drafts" / "d.md")
    # The same documents the agent indexes.
    tk.run("index", p)
    assert tk.indexed_paths() == ["a.md", "sub/b.markdown", "sub/deep/c.md"]


def test_check_missing_file_is_one_clear_line(tk):
    p = tk.project()
    (p / "ok.md").write_text(CHECK_DOC)
    r = tk.run("check", p / "missing.md", check=False)
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "missing.md" in lines[0] and "no such file" in lines[0]
    assert "Error" not in r.stderr and "Traceback" not in r.stderr
    assert r.stdout.strip() == ""
    # A missing file among good ones: the good ones are still checked, exit 1.
    r = tk.run("check", "--format", "line", p / "ok.md", p / "missing.md", check=False)
    assert r.returncode == 1
    assert r.stdout.count("ok.md:") >= 1
    assert len(r.stderr.strip().splitlines()) == 1
    # A FIFO named like a document is not read (it would block).
    os.mkfifo(p / "fifo.md")
    r = tk.run("check", p / "fifo.md", check=False, timeout=10)
    assert r.returncode == 1 and "fifo.md" in r.stderr
    # No arguments and no standard input is a usage error.
    r = tk.run("check", "--strict", check=False, input="")
    assert r.returncode in (0, 64)


def test_sidecar_latency_and_broken_sidecar_rebuilt(tk):
    p = tk.project()
    agent = tk.start(p)
    doc = p / "fast.md"
    t = time.time()
    doc.write_text("# Fast\n\nThe memo was written by the intern.\n")
    tk.wait_for(lambda: sidecar_path(p, "fast.md").exists(), proc=agent, what="sidecar", interval=0.005)
    elapsed = time.time() - t
    # settle_ms is 50; the issue asks for the sidecar within 100 ms after the settle delay.
    # Allow for a shared, loaded test machine and the polling of this test.
    assert elapsed < 0.6, elapsed

    # A sidecar broken by hand (or a sync tool) is kept as .bak, rebuilt, and reported once.
    side = sidecar_path(p, "fast.md")
    side.write_text("{ this is not json")
    doc.write_text("# Fast\n\nThe memo was written by the intern. Really.\n")
    s = wait_sidecar(tk, p, "fast.md", agent, sha=sha(doc))
    assert s["schema"] == "tk.review/1"
    assert (side.parent / "fast.md.review.json.bak").read_text() == "{ this is not json"
    tk.wait_for(lambda: any("fast.md" in x and "bak" in x for x in tk.status()["projects"][0]["problems"]),
                proc=agent, what="broken sidecar reported")
    doc.write_text("# Fast\n\nThe memo was written by the intern. Really!\n")
    wait_sidecar(tk, p, "fast.md", agent, sha=sha(doc))
    tk.wait_for(lambda: not any("bak" in x for x in tk.status()["projects"][0]["problems"]),
                proc=agent, what="problem cleared after a good write")


def test_sidecars_follow_changes_made_while_the_agent_was_down(tk):
    p = tk.project()
    for name in ["keep", "move", "drop", "edit"]:
        (p / f"{name}.md").write_text(f"# {name}\n\nThe {name} was written by me.\n")
    agent = tk.start(p)
    for name in ["keep", "move", "drop", "edit"]:
        wait_sidecar(tk, p, f"{name}.md", agent)
    # Mark the sidecar of the moved document so the move is visible.
    side = sidecar_path(p, "move.md")
    s = json.loads(side.read_bytes())
    s["journey"]["revision_cycle"] = 5
    write_sidecar(side, s)
    assert tk.stop(agent) == 0

    (p / "sub").mkdir()
    os.rename(p / "move.md", p / "sub" / "moved.md")
    (p / "drop.md").unlink()
    (p / "edit.md").write_text("# edit\n\nThe edit was really changed.\n")
    os.utime(p / "edit.md", (1_000_000, 1_000_000))  # mtime in the past: the hash must notice
    agent = tk.start(p)
    moved = wait_sidecar(tk, p, "sub/moved.md", agent)
    assert moved["journey"]["revision_cycle"] == 5
    assert not sidecar_path(p, "move.md").exists()
    tk.wait_for(lambda: not sidecar_path(p, "drop.md").exists(), proc=agent, what="sidecar of a deleted document")
    wait_sidecar(tk, p, "edit.md", agent, sha=sha(p / "edit.md"))
    assert tk.stop(agent) == 0

    # The data folder is a cache: deleting it keeps every sidecar's journey and rounds.
    side = sidecar_path(p, "keep.md")
    s = json.loads(side.read_bytes())
    s["journey"]["revision_cycle"] = 9
    write_sidecar(side, s)
    shutil.rmtree(tk.data)
    tk.data.mkdir()
    agent = tk.start(p)
    assert tk.indexed_paths() == ["edit.md", "keep.md", "sub/moved.md"]
    assert read_sidecar(p, "keep.md")["journey"]["revision_cycle"] == 9
    assert read_sidecar(p, "sub/moved.md")["journey"]["revision_cycle"] == 5


def test_user_config_change_applies_on_sighup(tk):
    p = tk.project()
    (p / "a.md").write_text("# A\n\nThe cake was eaten. We delve into it.\n")
    agent = tk.start(p)
    s = wait_sidecar(tk, p, "a.md", agent)
    assert "passive" in rules(s["quick"])
    user_config(tk, {"heuristics": {"disabled": ["passive"]}})
    agent.send_signal(signal.SIGHUP)
    tk.wait_for(lambda: "passive" not in rules(read_sidecar(p, "a.md")["quick"]), proc=agent,
                what="sidecar refreshed after SIGHUP")
    assert "ai_cliche" in rules(read_sidecar(p, "a.md")["quick"])


def test_user_config_change_reaches_every_sidecar_at_the_next_save(tk):
    """Without a SIGHUP: the next batch reads the changed user config (the configuration store sees
    the file's new stat) and, its heuristics having changed, refreshes the project's other sidecars too."""
    p = tk.project()
    (p / "a.md").write_text("# A\n\nThe cake was eaten. We delve into it.\n")
    (p / "b.md").write_text("# B\n\nThe pie was baked.\n")
    agent = tk.start(p)
    assert "passive" in rules(wait_sidecar(tk, p, "a.md", agent)["quick"])
    user_config(tk, {"heuristics": {"disabled": ["passive"]}})
    (p / "b.md").write_text("# B\n\nThe pie was baked today.\n")
    tk.wait_for(lambda: "passive" not in rules(read_sidecar(p, "a.md")["quick"]), proc=agent,
                what="an unsaved document's sidecar refreshed after the user config changed")
    assert "ai_cliche" in rules(read_sidecar(p, "a.md")["quick"])


def test_sidecars_of_nfc_and_nfd_names_are_distinct(tk):
    import unicodedata
    p = tk.project()
    nfc = unicodedata.normalize("NFC", "café.md")
    nfd = unicodedata.normalize("NFD", "café.md")
    (p / nfc).write_text("# NFC\n\nThe nfc cake was eaten.\n")
    (p / nfd).write_text("# NFD\n\nThe nfd pie was baked by me.\n")
    agent = tk.start(p)
    a = wait_sidecar(tk, p, nfc, agent)
    b = wait_sidecar(tk, p, nfd, agent)
    assert a["document"] == nfc and b["document"] == nfd
    assert "was eaten" in texts(a["quick"]) and "was baked" in texts(b["quick"])
    os.unlink(p / nfd)
    tk.wait_for(lambda: not sidecar_path(p, nfd).exists(), proc=agent, what="NFD sidecar removed")
    assert sidecar_path(p, nfc).exists()
