"""The issue's journey scenario with a real review round from the fake LLM server.

Skips until the review queue and the providers are in the binary (`tk-agent review` implemented).
"""
import json
import os
import shutil

import pytest

from fakellm import FakeLLM
from test_journey import DOC, by_id, check_positions, read_sidecar, wait_status


@pytest.fixture
def fake():
    f = FakeLLM().start()
    yield f
    f.stop()


def write_config(tk, fake):
    cfg = {"watch": {"settle_ms": 50},
           "review": {"auto": False, "quiet_seconds": 0.3, "min_changed_words": 5, "stall_seconds": 5,
                      "request_timeout_seconds": 30},
           "notifications": {"enabled": False}}
    cfg.update(fake.config("anthropic"))
    path = tk.config_home / "tk" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cfg))


def item(original, suggested, advisor="editor"):
    return {"advisor_id": advisor, "type": "rephrase", "original_text": original, "suggested_text": suggested,
            "reasoning": "reads better", "priority": 2, "confidence": 0.8}


def test_round_then_the_writer_edits(tk, fake):
    p = tk.project()
    doc = p / "draft.md"
    doc.write_text(DOC)
    write_config(tk, fake)
    fake.enqueue("anthropic", fake.suggestions([
        item("The very big dog runs quickly", "The huge dog races"),
        item("It was a dark and stormy night", "The storm broke at midnight", advisor="creative_writer"),
        item("in order to", "to"),
        item("said the end is near", "say the end nears"),
    ]))
    agent = tk.start(p, extra_env=fake.env())
    r = tk.run("review", doc, "--now", "--wait", check=False, env=fake.env(), timeout=90)
    assert r.returncode == 0, r.stderr + tk.logs(agent)
    s = read_sidecar(p)
    ids = [x["id"] for x in sorted(s["suggestions"], key=lambda x: x["start"])]
    assert len(ids) == 4 and s["journey"]["stage"] == "revise" and s["journey"]["revision_cycle"] == 1
    d = tk.json("documents", "--json")[0]
    assert d["stage"] == "revise" and d["pending_suggestions"] == 4

    doc.write_text(doc.read_text().replace("The very big dog runs quickly", "The huge dog races"))
    wait_status(tk, p, ids[0], "accepted")
    tmp = p / ".draft.md.swp"
    tmp.write_text(doc.read_text().replace("It was a dark and stormy night", "Night fell, wet and loud"))
    os.rename(tmp, doc)
    wait_status(tk, p, ids[1], "edited")
    tk.run("skip", ids[2])
    doc.write_text(doc.read_text().replace("Naïve café", "A new paragraph — with ünïcode 🎉 in it.\n\nNaïve café"))
    s = tk.wait_for(lambda: by_id(read_sidecar(p))[ids[3]]["line"] == 11 and read_sidecar(p), what="fourth moved")
    sug = by_id(s)
    assert [sug[i]["status"] for i in ids] == ["accepted", "edited", "skipped", "pending"]
    check_positions(doc, sug[ids[3]])
    assert s["journey"]["stats"] == {"received": 4, "accepted": 1, "edited": 1, "skipped": 1}
    assert s["journey"]["stage"] == "revise"

    before = read_sidecar(p)
    tk.stop(agent)
    shutil.rmtree(tk.data)
    tk.data.mkdir()
    tk.start(p, extra_env=fake.env())
    tk.wait_for(lambda: tk.json("documents", "--json")[0]["stage"] == "revise", what="journey re-imported")
    after = read_sidecar(p)
    assert after["suggestions"] == before["suggestions"] and after["journey"] == before["journey"]
    assert tk.json("documents", "--json")[0]["pending_suggestions"] == 1
