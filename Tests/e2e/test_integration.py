"""The whole journey on the built binary: an LLM round from the fake provider, then the writer's own
edits in the ways editors save, then the data folder is lost and the agent restarted."""
import json
import os
import shutil

from fakellm import FakeLLM

DOC = """---
title: Harbour notes
tk:
  story_type: blog_personal
---
# Harbour notes

The boat was painted by my father in the spring of that year.

It is important to note that the harbour was very quiet.

We utilize the old crane to lift the nets every morning.

The gulls screamed over the water like they always did.
"""

SUGGESTIONS = [
    {"advisor_id": "editor", "type": "rephrase", "original_text": "The boat was painted by my father",
     "suggested_text": "My father painted the boat", "reasoning": "active voice", "priority": 1, "confidence": 0.9},
    {"advisor_id": "editor", "type": "remove", "original_text": "It is important to note that the harbour was very quiet.",
     "suggested_text": "The harbour was quiet.", "reasoning": "filler", "priority": 2, "confidence": 0.8},
    {"advisor_id": "creative_writer", "type": "fix", "original_text": "We utilize the old crane",
     "suggested_text": "We use the old crane", "reasoning": "plain word", "priority": 3, "confidence": 0.7},
    {"advisor_id": "creative_writer", "type": "improve", "original_text": "The gulls screamed over the water like they always did.",
     "suggested_text": "The gulls screamed over the water.", "reasoning": "cut the tail", "priority": 4, "confidence": 0.6},
]


def sidecar(p, name="harbour.md"):
    return json.loads((p / ".tk" / (name + ".review.json")).read_text())


def by_text(sc):
    return {s["original_text"]: s for s in sc["suggestions"]}


def write_config(tk, fake, **review):
    cfg = fake.config("anthropic")
    cfg.update({"watch": {"settle_ms": 50}, "notifications": {"enabled": False},
                "review": {"auto": False, **review}})
    path = tk.config_home / "tk" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cfg))


def test_round_then_the_writers_edits_then_the_data_folder_is_lost(tk):
    fake = FakeLLM().start()
    try:
        write_config(tk, fake)
        env = fake.env()
        tk.env.update(env)
        p = tk.project()
        doc = p / "harbour.md"
        doc.write_text(DOC)
        agent = tk.start(p)
        tk.wait_for(lambda: (p / ".tk" / "harbour.md.review.json").exists(), what="first sidecar")

        fake.enqueue("anthropic", fake.suggestions(SUGGESTIONS, usage={"input_tokens": 900, "output_tokens": 300}))
        r = tk.run("review", doc, "--now", "--wait", timeout=60)
        assert r.returncode == 0, r.stderr
        sc = sidecar(p)
        assert sc["rounds"][-1]["status"] == "done"
        assert sc["journey"]["stage"] == "revise" and sc["journey"]["revision_cycle"] == 1
        assert sc["journey"]["stats"]["received"] == 4
        sug = by_text(sc)
        data = doc.read_bytes()
        for s in sug.values():
            assert s["status"] == "pending"
            assert data[s["start"]:s["end"]].decode() == s["original_text"]

        # 1. applied in place (the editor writes the same inode)
        text = doc.read_text().replace("The boat was painted by my father", "My father painted the boat")
        with open(doc, "r+") as f:
            f.seek(0)
            f.write(text)
            f.truncate()
        tk.wait_for(lambda: by_text(sidecar(p))["The boat was painted by my father"]["status"] == "accepted",
                    what="accepted after an in-place save")

        # 2. rewritten differently through a temp file and a rename
        text = doc.read_text().replace("It is important to note that the harbour was very quiet.",
                                       "Nobody spoke in the harbour that night.")
        tmp = p / ".harbour.md.tmp"
        tmp.write_text(text)
        os.replace(tmp, doc)
        tk.wait_for(lambda: by_text(sidecar(p))["It is important to note that the harbour was very quiet."]["status"]
                    == "edited", what="edited after a rename-style save")

        # 3. skipped from the terminal
        third = by_text(sidecar(p))["We utilize the old crane"]["id"]
        tk.run("skip", third)
        assert by_text(sidecar(p))["We utilize the old crane"]["status"] == "skipped"

        # 4. text inserted above the fourth: it stays pending and follows its passage
        text = doc.read_text().replace("# Harbour notes\n", "# Harbour notes\n\nA new paragraph, with ünïcödé — ✓.\n")
        doc.write_text(text)

        def moved():
            s = by_text(sidecar(p))["The gulls screamed over the water like they always did."]
            b = doc.read_bytes()
            return s["status"] == "pending" and b[s["start"]:s["end"]].decode() == s["original_text"]
        tk.wait_for(moved, what="pending suggestion follows its passage")

        sc = sidecar(p)
        stats = sc["journey"]["stats"]
        assert (stats["received"], stats["accepted"], stats["edited"], stats["skipped"]) == (4, 1, 1, 1)
        assert sc["journey"]["stage"] == "revise"
        for s in sc["suggestions"]:
            if s["status"] != "pending":
                assert s["start"] is None and s["end"] is None
        assert tk.json("journey", "show", doc, "--json")["stage"] == "revise"

        # The data folder is lost; the agent restarts and everything is still there.
        tk.stop(agent)
        before = sidecar(p)
        shutil.rmtree(tk.data)
        tk.data.mkdir()
        tk.start(p)
        after = sidecar(p)
        assert by_text(after) == by_text(before)
        assert after["journey"] == before["journey"]
        listed = tk.json("suggestions", doc, "--json")
        statuses = sorted(s["status"] for s in (listed["suggestions"] if isinstance(listed, dict) else listed))
        assert statuses == ["accepted", "edited", "pending", "skipped"]

        # The API key is nowhere the agent wrote.
        key = env["ANTHROPIC_API_KEY"].encode()
        for root in (tk.data, p / ".tk", tk.runtime, tk.config_home):
            for dirpath, _, files in os.walk(root):
                for f in files:
                    fp = os.path.join(dirpath, f)
                    if os.path.isfile(fp):
                        with open(fp, "rb") as fh:
                            assert key not in fh.read(), fp
        for proc in tk.agents:
            assert key not in open(proc.log_path, "rb").read()
        # the request really carried it
        assert fake.requests_for("anthropic")[0]["headers"]["x-api-key"] == env["ANTHROPIC_API_KEY"]
    finally:
        fake.stop()
