"""Words written, goals and streaks; snapshots, history, diff and restore; changed-scope rounds."""
import json
import math
import shutil
import sqlite3

import pytest

from fakellm import FakeLLM
from progress_helpers import prose_sample, request_chars, user_text, words
from review_helpers import sidecar, suggestion, write_config

P1 = "The morning came slowly over the hills and the village woke to the end."
P2 = "Second paragraph, about the baker and his habits, stays as it is all day."
P3 = "Third paragraph: the one that moves to the other chapter before noon."
Q1 = "Chapter two opens with a long and winding sentence about the river and its banks."
N1 = "A brand new paragraph typed this morning with twelve words in it."
LATE = " ".join(f"late{i}" for i in range(40)) + "."
IMPORT = "\n\n".join(" ".join(f"imported{p}x{i}" for i in range(20)) for p in range(100))


def doc(*paras):
    return "\n\n".join(paras) + "\n"


class Day:
    """Saves documents and lets `tk-agent index` see each save at a fixed time (libfaketime sets the clock)."""

    def __init__(self, tk, proj):
        self.tk, self.proj = tk, proj

    def save(self, when, **files):
        for name, text in files.items():
            (self.proj / name).write_text(text)
        self.tk.run("index", self.proj, clock=when)

    def progress(self, when, *args):
        return self.tk.json("progress", "--project", self.proj, "--json", *args, clock=when)


def test_a_scripted_writing_day(tk):
    proj = tk.project()
    (proj / ".tk").mkdir()
    (proj / ".tk" / "config.json").write_text(json.dumps({"progress": {
        "daily_goal": 50, "target_words": 100000, "deadline": "2026-11-27",
        "writing_days": ["mon", "tue", "wed", "thu", "fri"], "day_starts": "04:00", "import_words": 500}}))
    day = Day(tk, proj)
    # First sight of the project: nothing counts.
    day.save("2026-11-19T09:00:00Z", **{"a.md": doc("# One", P1, P2, P3), "b.md": doc("# Two", Q1)})
    assert day.progress("2026-11-19T09:01:00Z")["today"]["written"] == 0
    # Thursday and Friday: the goal is met.
    thu = " ".join(f"thursday{i}" for i in range(55)) + "."
    day.save("2026-11-19T10:00:00Z", **{"a.md": doc("# One", P1, P2, P3, thu)})
    fri = " ".join(f"friday{i}" for i in range(70)) + "."
    day.save("2026-11-20T10:00:00Z", **{"a.md": doc("# One", P1, P2, P3, thu, fri)})
    words_at_monday = len(words(doc("# One", P1, P2, P3, thu, fri))) + len(words(doc("# Two", Q1)))

    # Monday: typing a new paragraph (+12), three words in an old one (+3).
    day.save("2026-11-23T09:00:00Z", **{"a.md": doc("# One", P1, P2, P3, thu, fri, N1)})
    p1b = P1[:-1] + " and three more."
    day.save("2026-11-23T09:10:00Z", **{"a.md": doc("# One", p1b, P2, P3, thu, fri, N1)})
    # A paragraph moved within the document: nothing.
    day.save("2026-11-23T09:20:00Z", **{"a.md": doc("# One", p1b, P3, thu, fri, N1, P2)})
    # A paragraph moved to the other document (cut, saved, then pasted): nothing, not even deleted.
    day.save("2026-11-23T09:30:00Z", **{"a.md": doc("# One", p1b, thu, fri, N1, P2)})
    day.save("2026-11-23T09:40:00Z", **{"b.md": doc("# Two", Q1, P3)})
    # A pasted import of 2,000 words: imported.
    day.save("2026-11-23T10:00:00Z", **{"b.md": doc("# Two", Q1, P3, IMPORT)})
    # Deleting six words, in two places.
    q1c = Q1.replace("a long and winding sentence", "a sentence").replace(" and its banks", "")
    assert len(words(Q1)) - len(words(q1c)) == 6 and len(words(N1)) == 12
    day.save("2026-11-23T11:00:00Z", **{"b.md": doc("# Two", q1c, P3, IMPORT)})
    # After midnight, before 04:00: still Monday's writing (+40).
    day.save("2026-11-24T02:30:00Z", **{"a.md": doc("# One", p1b, thu, fri, N1, P2, LATE)})

    p = day.progress("2026-11-24T03:00:00Z", "--days", "7")
    assert p["today"] == {"date": "2026-11-23", "written": 12 + 3 + 40, "imported": 2000, "deleted": 6,
                          "goal": 50, "met": True}
    # Thursday, Friday, (weekend: rest days), Monday.
    assert p["streak"] == 3
    # Five writing days from Monday to Friday, from where Monday began.
    assert p["pace"] == {"target_words": 100000, "deadline": "2026-11-27",
                         "words_per_day_needed": math.ceil((100000 - words_at_monday) / 5)}
    assert [d["date"] for d in p["days"]] == [f"2026-11-{d}" for d in range(17, 24)]
    assert {d["date"]: d["written"] for d in p["days"]}["2026-11-19"] == 55
    assert {d["date"]: d["written"] for d in p["days"]}["2026-11-20"] == 70
    assert all(set(d) == {"date", "written", "imported", "deleted"} for d in p["days"])
    # At 04:00 a new day begins: nothing written yet, the streak waits for it.
    p = day.progress("2026-11-24T05:00:00Z")
    assert p["today"]["written"] == 0 and p["today"]["met"] is False and p["streak"] == 4 - 1
    # The text form: plain when not a terminal, with the goal.
    r = tk.run("progress", "--project", proj, clock="2026-11-24T03:00:00Z")
    assert "55 words written of 50" in r.stdout and "goal met" in r.stdout and "streak: 3 days" in r.stdout
    assert "2026-11-23  written 55  imported 2000  deleted 6" in r.stdout
    # status shows today's words.
    s = tk.json("status", "--json", clock="2026-11-24T03:00:00Z")
    assert s["progress"]["written"] == 55
    assert "written today: 55 words" in tk.run("status", clock="2026-11-24T03:00:00Z").stdout


def test_without_goal_or_target_pace_is_null(tk):
    proj = tk.project()
    day = Day(tk, proj)
    day.save("2026-11-23T09:00:00Z", **{"a.md": doc("Hello there.")})
    day.save("2026-11-23T09:05:00Z", **{"a.md": doc("Hello there.", "Four more words here.")})
    p = day.progress("2026-11-23T10:00:00Z")
    assert p["pace"] is None and p["today"]["goal"] is None and p["today"]["met"] is False
    assert p["today"]["written"] == 4 and p["streak"] == 1
    r = tk.run("progress", "--days", "0", check=False)
    assert r.returncode == 64


def test_history_diff_restore_across_a_rename(tk):
    proj = tk.project()
    day = Day(tk, proj)
    v1 = doc("# Chapter", "It was the best of times.")
    v2 = doc("# Chapter", "It was the best of times, it was the worst of times.")
    v3 = doc("# Chapter", "A completely different opening line now.")
    day.save("2026-11-23T09:00:00Z", **{"ch1.md": v1})
    (proj / "ch1.md").write_text(v2)
    out = tk.run("snapshot", proj / "ch1.md", "-m", "before the rewrite", clock="2026-11-23T09:10:00Z").stdout
    assert "kept version" in out
    # The rewrite is seen by the index 40 minutes later: an interval snapshot.
    day.save("2026-11-23T09:50:00Z", **{"ch1.md": v3})
    (proj / "ch1.md").rename(proj / "chapter-one.md")
    day.save("2026-11-23T10:00:00Z")
    h = tk.json("history", proj / "chapter-one.md", "--json")
    assert [e["reason"] for e in h] == ["save", "snapshot", "save"]
    assert [e["rev"] for e in h] == [3, 2, 1]  # numbered per document
    assert all({"rev", "time", "reason", "words", "added", "removed"} <= set(e) for e in h)
    assert h[1]["note"] == "before the rewrite"
    assert h[0]["words"] == len(words(v3)) and h[2]["words"] == len(words(v1))
    assert h[1]["added"] == 6 and h[1]["removed"] == 0
    newest, manual, first = h[0]["rev"], h[1]["rev"], h[2]["rev"]
    d = tk.run("diff", proj / "chapter-one.md", first, manual).stdout
    assert "-It was the best of times." in d and "+It was the best of times, it was the worst of times." in d
    d = tk.run("diff", "--words", proj / "chapter-one.md", first, manual).stdout
    assert "{+times, it was the worst of +}times." in d
    assert "no change" in tk.run("diff", proj / "chapter-one.md").stdout
    # Restore the first version; the current one is kept first.
    r = tk.run("restore", proj / "chapter-one.md", first, clock="2026-11-23T10:10:00Z")
    assert (proj / "chapter-one.md").read_text() == v1
    h = tk.json("history", proj / "chapter-one.md", "--json")
    assert h[0]["reason"] == "restore"
    kept = h[0]["rev"]
    assert str(kept) in r.stdout
    # Restored words are not writing.
    before = tk.json("progress", "--json", clock="2026-11-23T10:20:00Z")["today"]
    day.save("2026-11-23T10:20:00Z")
    after = tk.json("progress", "--json", clock="2026-11-23T10:20:00Z")["today"]
    assert after == before
    # The restore undone (on the same day: with today's clock, versions over a week old are thinned
    # to one a day, and the test would depend on the date it runs).
    tk.run("restore", proj / "chapter-one.md", kept, clock="2026-11-23T10:30:00Z")
    assert (proj / "chapter-one.md").read_text() == v3
    assert tk.run("diff", proj / "chapter-one.md", newest, clock="2026-11-23T10:30:00Z").stdout.startswith("chapter-one.md: no change")
    # Bad input: one clear line.
    r = tk.run("restore", proj / "chapter-one.md", "999999", check=False, clock="2026-11-23T10:30:00Z")
    assert r.returncode == 1 and "no version 999999" in r.stderr
    # Versions are stored once each (content-addressed), compressed, in the data folder's database.
    db = sqlite3.connect(tk.data / "index.sqlite")
    try:
        shas = [r[0] for r in db.execute("SELECT sha256 FROM history_object")]
        assert len(shas) == len(set(shas)) == 3
        assert all(size > 0 for (size,) in db.execute("SELECT size FROM history_object"))
    finally:
        db.close()


def test_a_deleted_documents_history_stays_restorable(tk):
    """Documents are kept by id: deleting one takes it out of the index and search, not out of the
    history; `history`, `diff` and `restore` still take its path, and a restore brings it back
    under the same row, its history continued."""
    proj = tk.project()
    day = Day(tk, proj)
    v1 = doc("# Lost", "The lighthouse keeper wrote every night.")
    v2 = doc("# Lost", "The lighthouse keeper wrote every night, and burned every page.")
    day.save("2026-11-23T09:00:00Z", **{"lost.md": v1, "other.md": doc("# Other", "Something else.")})
    day.save("2026-11-23T10:00:00Z", **{"lost.md": v2})
    assert tk.json("search", "lighthouse", "--json")["results"]
    (proj / "lost.md").unlink()
    day.save("2026-11-23T11:00:00Z")
    assert not tk.json("search", "lighthouse", "--json")["results"]
    h = tk.json("history", proj / "lost.md", "--json")
    assert [e["words"] for e in h] == [len(words(v2)), len(words(v1))]
    d = tk.run("diff", proj / "lost.md", h[1]["rev"], h[0]["rev"]).stdout
    assert "+The lighthouse keeper wrote every night, and burned every page." in d
    written = tk.json("progress", "--json", clock="2026-11-23T11:01:00Z")["today"]["written"]
    assert written > 0
    r = tk.json("restore", proj / "lost.md", h[0]["rev"], "--json", clock="2026-11-23T11:05:00Z")
    assert r == {"restored": h[0]["rev"], "kept": None}
    assert (proj / "lost.md").read_text() == v2
    day.save("2026-11-23T11:10:00Z")
    assert [e["path"] for e in tk.json("search", "lighthouse", "--json")["results"]] == ["lost.md"]
    assert len(tk.json("history", proj / "lost.md", "--json")) == 2
    # Restored words are not writing.
    assert tk.json("progress", "--json", clock="2026-11-23T11:10:00Z")["today"]["written"] == written
    # A file that never was: one clear line.
    r = tk.run("history", proj / "never.md", check=False)
    assert r.returncode != 0 and "never.md: no such file" in r.stderr
    db = sqlite3.connect(tk.data / "index.sqlite")
    try:
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        assert [r[0] for r in db.execute("SELECT count(*) FROM document WHERE path = CAST('lost.md' AS BLOB)")] == [1]
    finally:
        db.close()


# -- rounds that read only what changed ------------------------------------------------------

@pytest.fixture
def fake():
    f = FakeLLM().start()
    yield f
    f.stop()


def paragraphs(text):
    return [p for p in text.split("\n\n") if p.strip()]


def test_a_changed_scope_round_reads_a_quarter_and_keeps_untouched_suggestions(tk, fake, tmp_path):
    sample = prose_sample(tmp_path / "corpora")
    proj = tk.project()
    shutil.copy(sample, proj / "book.md")
    write_config(tk, fake)
    text = (proj / "book.md").read_text()
    paras = paragraphs(text)
    untouched = next(p for p in paras[10:] if len(p) > 200 and "“" not in p[:60])
    target_index = len(paras) // 2
    target = paras[target_index]
    far_away = next(p for p in paras[-10:] if len(p) > 100)
    q_untouched = " ".join(untouched.split()[:6])
    fake.enqueue("anthropic", fake.suggestions([suggestion(q_untouched, "A better opening", priority=1)]))
    r = tk.run("review", proj / "book.md", "--now", "--wait", "--json", env=fake.env(), check=False, timeout=120)
    assert r.returncode == 0, r.stderr
    first = fake.requests[-1]
    assert "<changed>" not in user_text(first)

    # One paragraph changes.
    changed = target.rstrip(".") + ", and then the rain began to fall on the garden."
    (proj / "book.md").write_text(text.replace(target, changed))
    dry = tk.run("review", proj / "book.md", "--dry-run", "--scope", "changed", env=fake.env())
    assert "===== estimate =====" in dry.stdout and "estimated input:" in dry.stdout and "tokens" in dry.stdout
    assert "cost" in dry.stdout
    dj = tk.json("review", proj / "book.md", "--dry-run", "--scope", "changed", "--json", env=fake.env())
    assert dj["scope"] == "changed" and dj["estimated_input_tokens"] > 0

    q_changed = "the rain began to fall on the garden"
    q_far = " ".join(far_away.split()[:5])
    fake.enqueue("anthropic", fake.suggestions([suggestion(q_changed, "rain fell on the garden", priority=1),
                                                suggestion(q_far, "elsewhere", priority=2)]))
    r = tk.run("review", proj / "book.md", "--now", "--wait", "--json", "--scope", "changed", env=fake.env(),
               check=False, timeout=120)
    assert r.returncode == 0, r.stderr
    second = fake.requests[-1]
    body = user_text(second)
    assert "<changed>" in body and q_changed in body
    ratio = request_chars(second) / request_chars(first)
    assert ratio <= 0.25, ratio
    s = sidecar(proj, "book.md")
    pending = {x["original_text"]: x for x in s["suggestions"] if x["status"] == "pending"}
    assert q_untouched in pending          # kept as it was
    assert q_changed in pending            # new, on the changed paragraph
    assert q_far not in pending            # outside the changes: not taken
    h = tk.json("history", proj / "book.md", "--json")
    assert [e["reason"] for e in h][:2] == ["round", "round"]


def test_the_agent_counts_saves_and_announces_the_goal_once(tk):
    proj = tk.project()
    doc_path = proj / "draft.md"
    doc_path.write_text(doc("# Draft", "Start here."))
    (proj / ".tk").mkdir()
    (proj / ".tk" / "config.json").write_text(json.dumps({"progress": {"daily_goal": 10}}))
    log = tk.root / "notified.txt"
    script = tk.root / "fake-notify"
    script.write_text(f"#!/bin/sh\nprintf '%s|' \"$@\" >> {log}\necho >> {log}\n")
    script.chmod(0o755)
    cfg = tk.config_home / "tk" / "config.json"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(json.dumps({"watch": {"settle_ms": 50}, "review": {"auto": False},
                               "notifications": {"enabled": True, "command": str(script)}}))
    tk.start(proj, extra_env={"DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent-test-bus"})
    tk.wait_for(lambda: sidecar(proj, "draft.md"), what="first scan")

    def today():
        return tk.json("progress", "--project", proj, "--json")["today"]

    doc_path.write_text(doc("# Draft", "Start here.", "Six new words are written now."))
    tk.wait_for(lambda: today()["written"] == 6, what="six words written")
    assert not log.exists()
    doc_path.write_text(doc("# Draft", "Start here.", "Six new words are written now.", "Five more make the goal."))
    tk.wait_for(lambda: log.exists() and "Goal reached" in log.read_text(), what="goal notification")
    assert today() == {**today(), "written": 11, "goal": 10, "met": True}
    doc_path.write_text(doc("# Draft", "Start here.", "Six new words are written now.", "Five more make the goal.", "And more."))
    tk.wait_for(lambda: today()["written"] == 13, what="more words")
    lines = log.read_text().splitlines()
    assert len(lines) == 1 and "11 words written today" in lines[0]
    h = tk.json("history", doc_path, "--json")
    assert h[-1]["reason"] == "save" and h[-1]["rev"] == 1
