"""Journey and suggestion lifecycle, end to end on the built binary.

Suggestions come from real review rounds (`tk-agent review FILE --now --wait`) against the fake provider
server, scripted to reply with exactly the test's suggestions; the writer's edits are plain file writes.
"""
import json
import os
import shutil
import subprocess
import time

import pytest

from agent_helpers import BIN
from fakellm import FakeLLM
from review_helpers import merge

DOC = """# Walk

The very big dog runs quickly over the hill.

It was a dark and stormy night, and the rain fell hard.

We utilize many tools in order to get things done.

Naïve café owners 🐕 said the end is near.
"""

SUGGESTIONS = {"suggestions": [
    {"advisor_id": "editor", "type": "rephrase", "original_text": "The very big dog runs quickly",
     "suggested_text": "The huge dog races", "reasoning": "tighter", "priority": 2, "confidence": 0.8},
    {"advisor_id": "creative_writer", "type": "rephrase", "original_text": "It was a dark and stormy night",
     "suggested_text": "The storm broke at midnight", "reasoning": "cliche", "priority": 1, "confidence": 0.7},
    {"advisor_id": "editor", "type": "fix", "original_text": "in order to",
     "suggested_text": "to", "reasoning": "wordy", "priority": 3, "confidence": 0.9},
    {"advisor_id": "editor", "type": "rephrase", "original_text": "said the end is near",
     "suggested_text": "say the end nears", "reasoning": "fresher", "priority": 4, "confidence": 0.5},
]}


def sidecar_path(project, rel="draft.md"):
    return project / ".tk" / (rel + ".review.json")


def read_sidecar(project, rel="draft.md"):
    try:
        return json.loads(sidecar_path(project, rel).read_text())
    except (OSError, json.JSONDecodeError):
        return None


@pytest.fixture
def fake(tk):
    """The fake provider server, selected in the user config (no automatic rounds); its dummy API keys
    are in the environment of every command and agent the test starts."""
    f = FakeLLM().start()
    tk.env.update(f.env())
    write_config(tk, f)
    yield f
    f.stop()


def write_config(tk, fake, extra=None):
    cfg = merge({"watch": {"settle_ms": 50}, "review": {"auto": False}, "notifications": {"enabled": False}},
                fake.config("anthropic"))
    if extra:
        cfg = merge(cfg, extra)
    path = tk.config_home / "tk" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cfg))


def seed(tk, fake, doc, items=None):
    """Runs a review round whose reply is exactly `items` (default: SUGGESTIONS) and returns the new
    suggestions' ids in the order of the document (the running agent runs it, else this command)."""
    items = SUGGESTIONS["suggestions"] if items is None else items
    fake.enqueue("anthropic", fake.suggestions(items))
    r = tk.run("review", doc, "--now", "--wait", "--json", check=False, timeout=90)
    assert r.returncode == 0, r.stdout + r.stderr + "".join(tk.logs(a) for a in tk.agents)
    out = json.loads(r.stdout)
    assert out["round"]["status"] == "done", out
    added = sorted(out["suggestions"], key=lambda x: x["start"])
    assert [x["original_text"] for x in added] == sorted((x["original_text"] for x in items),
                                                         key=lambda t: doc.read_text().find(t)), out
    return [x["id"] for x in added]


def by_id(sidecar):
    return {s["id"]: s for s in sidecar["suggestions"]}


def check_positions(doc_path, suggestion):
    """A pending suggestion's start/end/line/column describe the bytes on disk exactly."""
    data = doc_path.read_bytes()
    start, end = suggestion["start"], suggestion["end"]
    assert data[start:end].decode() == suggestion["original_text"], (suggestion, data[start:end])
    before = data[:start].decode()
    line = before.count("\n") + 1
    column = len(before.split("\n")[-1]) + 1  # Python str length = Unicode scalars
    assert (suggestion["line"], suggestion["column"]) == (line, column), suggestion


def wait_status(tk, project, sid, status, rel="draft.md", timeout=10):
    def ok():
        s = read_sidecar(project, rel)
        return s and by_id(s).get(sid, {}).get("status") == status and s
    return tk.wait_for(ok, timeout=timeout, what=f"{sid} to become {status}")


def test_lifecycle_statuses_positions_stats_and_rebuild(tk, fake):
    p = tk.project()
    doc = p / "draft.md"
    doc.write_text(DOC)
    agent = tk.start(p)
    tk.wait_for(lambda: read_sidecar(p) and read_sidecar(p)["journey"]["stage"] == "draft", what="draft stage")
    ids = seed(tk, fake, doc)
    assert read_sidecar(p)["journey"]["stage"] == "revise"

    # 1. Apply the first suggestion with an in-place save.
    doc.write_text(doc.read_text().replace("The very big dog runs quickly", "The huge dog races"))
    wait_status(tk, p, ids[0], "accepted")

    # 2. Rewrite the second another way, through a temporary file and a rename.
    tmp = p / ".draft.md.swp"
    tmp.write_text(doc.read_text().replace("It was a dark and stormy night", "Night fell, wet and loud"))
    os.rename(tmp, doc)
    wait_status(tk, p, ids[1], "edited")

    # 3. Skip the third.
    r = tk.run("skip", ids[2])
    assert "skipped" in r.stdout

    # 4. Insert text above the fourth: it stays pending and follows its passage.
    text = doc.read_text()
    doc.write_text(text.replace("Naïve café", "A new paragraph — with ünïcode 🎉 in it.\n\nNaïve café"))

    def moved():
        s = read_sidecar(p)
        four = by_id(s)[ids[3]]
        return four["status"] == "pending" and four["line"] == 11 and s
    s = tk.wait_for(moved, what="the fourth suggestion to follow its passage")
    sug = by_id(s)
    assert [sug[i]["status"] for i in ids] == ["accepted", "edited", "skipped", "pending"]
    check_positions(doc, sug[ids[3]])
    for i in ids[:3]:
        assert sug[i]["start"] is None and sug[i]["line"] is None
    j = s["journey"]
    assert j["stage"] == "revise" and j["revision_cycle"] == 1
    assert j["stats"] == {"received": 4, "accepted": 1, "edited": 1, "skipped": 1}
    assert j["cycle_stats"]["1"] == j["stats"]

    shown = tk.json("journey", "show", doc, "--json")
    assert shown["stage"] == "revise" and shown["pending_suggestions"] == 1
    listed = tk.json("suggestions", doc, "--json")
    assert [x["status"] for x in listed["suggestions"]] == ["accepted", "edited", "skipped", "pending"]
    docs = tk.json("documents", "--json")
    assert docs[0]["stage"] == "revise" and docs[0]["pending_suggestions"] == 1
    tk.wait_for(lambda: (tk.status()["projects"][0].get("journey") or {}).get("pending_suggestions") == 1,
                what="journey facts in status")

    # The data folder is a cache: delete it and restart; everything is still there.
    before = read_sidecar(p)
    tk.stop(agent)
    shutil.rmtree(tk.data)
    tk.data.mkdir()
    tk.start(p)
    tk.wait_for(lambda: tk.json("documents", "--json")[0]["stage"] == "revise", what="journey re-imported")
    after = read_sidecar(p)
    assert after["suggestions"] == before["suggestions"]
    assert after["journey"] == before["journey"]
    docs = tk.json("documents", "--json")
    assert docs[0]["pending_suggestions"] == 1

    # Without previous bytes (new database) the pending passage is still followed.
    doc.write_text("Preface.\n\n" + doc.read_text())
    s = tk.wait_for(lambda: (by_id(read_sidecar(p))[ids[3]]["line"] == 13) and read_sidecar(p),
                    what="re-anchoring after the rebuild")
    check_positions(doc, by_id(s)[ids[3]])

    # Addressing the last one: the command says the document is ready.
    r = tk.run("accept", ids[3])
    assert "ready for final" in r.stdout
    assert read_sidecar(p)["journey"]["notified_cycle"] == 1


def test_accept_apply_and_edit_rewrite_the_document(tk, fake):
    p = tk.project()
    doc = p / "draft.md"
    doc.write_text(DOC)
    os.chmod(doc, 0o640)
    tk.start(p)
    tk.wait_for(lambda: read_sidecar(p), what="sidecar")
    ids = seed(tk, fake, doc)

    r = tk.run("accept", ids[0], "--apply")
    assert r.returncode == 0
    assert "The huge dog races over the hill." in doc.read_text()
    assert oct(os.stat(doc).st_mode & 0o777) == oct(0o640)
    s = read_sidecar(p)
    assert by_id(s)[ids[0]]["status"] == "accepted"
    # The others were moved to the new bytes at once.
    for i in ids[1:]:
        check_positions(doc, by_id(s)[i])

    # edit applies the writer's own wording (FILE ID form).
    r = tk.run("edit", doc, ids[2], "--text", "so as to")
    assert "so as to get things done" in doc.read_text()
    assert by_id(read_sidecar(p))[ids[2]]["status"] == "edited"

    # The passage changed under the suggestion: --apply refuses and changes nothing.
    doc.write_text(doc.read_text().replace("stormy night", "stormy evening"))
    tk.wait_for(lambda: by_id(read_sidecar(p))[ids[1]]["status"] == "edited", what="agent saw the change")
    before = doc.read_bytes()
    r = tk.run("accept", ids[3], "--apply", check=False)
    assert r.returncode == 0  # still exactly there
    r = tk.run("accept", ids[0], "--apply", check=False)
    assert r.returncode == 1 and "not pending" in r.stderr
    assert doc.read_bytes() != before  # only the successful apply changed it

    # Stale position: the passage is not exactly where the sidecar says.
    tk.stop(tk.agents[-1])
    doc.write_text("x" + doc.read_text())
    s = read_sidecar(p)
    ids2 = seed_more(tk, fake, doc)
    doc.write_text("yy" + doc.read_text())
    before = doc.read_bytes()
    r = tk.run("accept", ids2[0], "--apply", check=False)
    assert r.returncode == 1 and "nothing changed" in r.stderr
    assert doc.read_bytes() == before
    assert s is not None

    r = tk.run("skip", "s000000000000", check=False)
    assert r.returncode == 1 and "no suggestion" in r.stderr


def seed_more(tk, fake, doc):
    more = [{"advisor_id": "editor", "type": "fix", "original_text": "over the hill",
             "suggested_text": "up the hill", "reasoning": "r", "priority": 1, "confidence": 1}]
    return seed(tk, fake, doc, more)


def test_hand_edited_or_broken_sidecar_is_kept_and_rebuilt(tk, fake):
    p = tk.project()
    doc = p / "draft.md"
    doc.write_text(DOC)
    tk.start(p)
    tk.wait_for(lambda: read_sidecar(p), what="sidecar")
    ids = seed(tk, fake, doc)
    # Let the agent record the seeded state with a save.
    doc.write_text(doc.read_text() + "\nMore.\n")
    tk.wait_for(lambda: read_sidecar(p)["words"] > 30 and "More" in doc.read_text() and
                read_sidecar(p)["sha256"] != "", what="save processed")

    # Edited by hand (valid JSON): reported, kept as .bak, rebuilt from the database.
    s = read_sidecar(p)
    s["suggestions"][0]["status"] = "skipped"
    sidecar_path(p).write_text(json.dumps(s))
    doc.write_text(doc.read_text() + "\nEven more.\n")
    bak = p / ".tk" / "draft.md.review.json.bak"
    tk.wait_for(lambda: bak.exists(), what=".bak of the hand-edited sidecar")
    tk.wait_for(lambda: by_id(read_sidecar(p) or {"suggestions": []}).get(ids[0], {}).get("status") == "pending",
                what="rebuilt sidecar")
    tk.wait_for(lambda: any("edited by hand" in x for x in tk.status()["projects"][0]["problems"]),
                what="problem in status")
    assert by_id(read_sidecar(p))[ids[0]]["status"] == "pending"
    assert json.loads(bak.read_text())["suggestions"][0]["status"] == "skipped"

    # Broken by hand: same.
    bak.unlink()
    sidecar_path(p).write_text("{ not json")
    doc.write_text(doc.read_text() + "\nAnd more.\n")
    tk.wait_for(lambda: bak.exists() and bak.read_text() == "{ not json", what=".bak of the broken sidecar")
    s = tk.wait_for(lambda: read_sidecar(p), what="rebuilt sidecar")
    assert len(s["suggestions"]) == 4 and s["journey"]["stage"] == "revise"

    # Edited while the agent was stopped: found by the check after the first scan, document untouched.
    tk.stop(tk.agents[-1])
    bak.unlink()
    s = read_sidecar(p)
    s["journey"]["stage"] = "final"
    sidecar_path(p).write_text(json.dumps(s))
    tk.start(p)
    tk.wait_for(lambda: bak.exists(), what=".bak after restart")
    tk.wait_for(lambda: (read_sidecar(p) or {}).get("journey", {}).get("stage") == "revise", what="rebuilt after restart")
    tk.wait_for(lambda: any("edited by hand" in x for x in tk.status()["projects"][0]["problems"]),
                what="problem in status after restart")

    # Commands rebuild too (agent stopped).
    tk.stop(tk.agents[-1])
    sidecar_path(p).write_text("garbage")
    r = tk.run("suggestions", doc, "--json")
    assert "warning:" in r.stderr
    assert len(json.loads(r.stdout)["suggestions"]) == 4


def test_rename_keeps_journey_and_delete_removes_it(tk, fake):
    p = tk.project()
    doc = p / "draft.md"
    doc.write_text(DOC)
    tk.start(p)
    tk.wait_for(lambda: read_sidecar(p), what="sidecar")
    ids = seed(tk, fake, doc)
    (p / "ch").mkdir()
    os.rename(doc, p / "ch" / "final.md")
    # The owner renames the sidecar, then derives it for the new path (`document` follows a moment later).
    tk.wait_for(lambda: (read_sidecar(p, "ch/final.md") or {}).get("document") == "ch/final.md"
                and not sidecar_path(p).exists(), what="sidecar to follow the rename")
    s = read_sidecar(p, "ch/final.md")
    assert [x["id"] for x in s["suggestions"]] == ids
    assert s["journey"]["stage"] == "revise" and s["document"] == "ch/final.md"
    check_positions(p / "ch" / "final.md", s["suggestions"][0])
    r = tk.run("skip", ids[1])
    assert "ch/final.md" in r.stdout
    os.unlink(p / "ch" / "final.md")
    tk.wait_for(lambda: not sidecar_path(p, "ch/final.md").exists(), what="sidecar removed")


def test_journey_set_and_front_matter(tk):
    p = tk.project()
    doc = p / "draft.md"
    doc.write_text("")
    tk.start(p)
    tk.wait_for(lambda: read_sidecar(p), what="sidecar")
    assert tk.json("journey", "show", doc, "--json")["stage"] == "canvas"
    doc.write_text("Some words at last.\n")
    tk.wait_for(lambda: read_sidecar(p)["journey"]["stage"] == "draft", what="draft")
    out = tk.json("journey", "set", doc, "--story-type", "technical_docs", "--draft-stage", "late", "--json")
    assert out["story_type"] == "technical_docs"
    assert out["advisors"] == ["technical_writer", "editor", "recent_graduate"]
    out = tk.json("journey", "set", doc, "--advisors", "editor,ux_writer", "--stage", "final", "--json")
    assert out["advisors"] == ["editor", "ux_writer"] and out["stage"] == "final"
    # Kept across saves; front matter wins.
    doc.write_text("---\ntk:\n  story_type: blog_personal\n---\nSome words at last.\n")
    tk.wait_for(lambda: read_sidecar(p)["journey"]["story_type"] == "blog_personal", what="front matter wins")
    j = read_sidecar(p)["journey"]
    assert j["advisors"] == ["editor", "ux_writer"] and j["draft_stage"] == "late" and j["stage"] == "final"
    r = tk.run("journey", "set", doc, "--stage", "bogus", check=False)
    assert r.returncode == 1 and "canvas, draft, revise, final" in r.stderr
    r = tk.run("journey", "set", doc, check=False)
    assert r.returncode == 64


def test_corrupt_database_is_rebuilt_from_sidecars(tk, fake):
    p = tk.project()
    doc = p / "draft.md"
    doc.write_text(DOC)
    agent = tk.start(p)
    tk.wait_for(lambda: read_sidecar(p), what="sidecar")
    ids = seed(tk, fake, doc)
    tk.run("skip", ids[0])
    tk.stop(agent)
    db = tk.data / "index.sqlite"
    for suffix in ("-wal", "-shm"):
        (tk.data / ("index.sqlite" + suffix)).unlink(missing_ok=True)
    db.write_bytes(b"this is not a database" * 200)
    # Start without polling `status` at once: a status command that opens the database while the agent
    # moves the corrupt one aside can make the agent's open fail ("database is locked"; reported to the lead).
    log = open(tk.root / "agent-corrupt.log", "wb")
    proc = subprocess.Popen([BIN, "run", str(p)], env=tk.env, stdout=log, stderr=subprocess.STDOUT)
    proc.log_path = tk.root / "agent-corrupt.log"
    tk.agents.append(proc)
    time.sleep(1.0)
    tk.wait_for(lambda: tk.idle(), timeout=30, what="agent up", proc=proc)
    tk.wait_for(lambda: any("corrupt" in x for x in tk.status()["problems"]), what="corrupt database reported")
    docs = tk.json("documents", "--json")
    assert docs[0]["stage"] == "revise" and docs[0]["pending_suggestions"] == 3
    assert by_id(read_sidecar(p))[ids[0]]["status"] == "skipped"


def test_ready_notification_once_when_all_addressed(tk, fake):
    p = tk.project()
    doc = p / "draft.md"
    doc.write_text(DOC)
    log = tk.root / "notified.txt"
    script = tk.root / "fake-notify"
    script.write_text(f"#!/bin/sh\nprintf '%s|' \"$@\" >> {log}\necho >> {log}\n")
    script.chmod(0o755)
    write_config(tk, fake, {"notifications": {"enabled": True, "command": str(script)}})
    tk.start(p, extra_env={"DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent-test-bus"})
    tk.wait_for(lambda: read_sidecar(p), what="sidecar")
    ids = seed(tk, fake, doc)
    for i in ids[1:]:
        tk.run("skip", i)
    doc.write_text(doc.read_text().replace("The very big dog runs quickly", "The huge dog races"))
    tk.wait_for(lambda: log.exists() and "addressed" in log.read_text(), what="ready notification")
    # The round's own notification came first (the agent ran the round), then the ready one, once.
    lines = log.read_text().splitlines()
    assert len(lines) == 2 and lines[0].startswith("draft.md|4 suggestions. Top (creative_writer)")
    assert lines[1].startswith("draft.md|All 4 suggestions of revision 1 addressed")
    words = read_sidecar(p)["words"]
    doc.write_text(doc.read_text() + "\nMore words.\n")
    tk.wait_for(lambda: read_sidecar(p)["words"] == words + 2, what="save")
    time.sleep(0.5)
    assert len(log.read_text().splitlines()) == 2
