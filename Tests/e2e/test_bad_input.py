"""A custom notification command runs without a session bus; a binary `.md` is a problem, not a document."""
import json
import os

from review_helpers import sidecar
from test_journey import DOC, fake, seed, write_config  # noqa: F401 (fake is a fixture)


def test_custom_notification_command_runs_without_a_session_bus(tk, fake):
    proj = tk.project()
    doc = proj / "draft.md"
    doc.write_text(DOC)
    log = tk.root / "notified.jsonl"
    script = tk.root / "my-notify"
    script.write_text("#!/usr/bin/env python3\nimport json, os, sys\n"
                      f"open({str(log)!r}, 'a').write(json.dumps({{'args': sys.argv[1:], 'title': os.environ.get('TK_TITLE'),"
                      " 'body': os.environ.get('TK_BODY'), 'document': os.environ.get('TK_DOCUMENT'),"
                      " 'bus': os.environ.get('DBUS_SESSION_BUS_ADDRESS')}) + '\\n')\n")
    script.chmod(0o755)
    write_config(tk, fake, {"notifications": {"enabled": True, "command": str(script)}})
    env = {k: v for k, v in tk.env.items() if k != "DBUS_SESSION_BUS_ADDRESS"}
    assert "DBUS_SESSION_BUS_ADDRESS" not in env and not (tk.runtime / "bus").exists()
    tk.start(proj)
    tk.wait_for(lambda: sidecar(proj, "draft.md"), what="sidecar")
    # Seed suggestions and address them all: the "ready" notification goes to the script.
    ids = seed(tk, fake, doc)
    for i in ids[1:]:
        tk.run("skip", i)
    doc.write_text(doc.read_text().replace("The very big dog runs quickly", "The huge dog races"))
    tk.wait_for(lambda: log.exists() and "addressed" in log.read_text(), timeout=20, what="the script to run")
    # The round's own notification came first; the ready one ("… addressed") after it.
    got = next(g for g in map(json.loads, log.read_text().splitlines()) if "addressed" in (g["body"] or ""))
    assert got["bus"] is None
    assert got["title"] == "draft.md" and got["args"][0] == "draft.md"
    assert "addressed" in got["body"] and got["args"][1] == got["body"]
    assert got["document"] == str(doc)
    assert "-a" not in got["args"] and "tk-agent" not in got["args"]


def test_binary_md_is_a_problem_not_a_document(tk):
    proj = tk.project()
    (proj / "good.md").write_text("# Good\n\nPlain text here.\n")
    (proj / "image.md").write_bytes(bytes(range(256)) * 40)
    (proj / "latin1.md").write_bytes("# Caf\xe9\n\nMostly ASCII text with one Latin-1 byte in a long line of words.\n".encode("latin-1"))
    tk.start(proj)
    paths = tk.indexed_paths()
    assert paths == ["good.md", "latin1.md"]
    probs = tk.status()["projects"][0]["problems"]
    mine = [p for p in probs if "image.md" in p]
    assert len(mine) == 1 and "not a text file" in mine[0] and "NUL" in mine[0]
    assert not (proj / ".tk" / "image.md.review.json").exists()
    # It becomes text: indexed, and the problem goes.
    (proj / "image.md").write_text("# Now text\n\nWords.\n")
    tk.wait_for(lambda: "image.md" in tk.indexed_paths(), what="image.md indexed once it is text")
    # The index commits before the agent writes its status: the problem goes with the next one.
    tk.wait_for(lambda: not any("image.md" in p for p in tk.status()["projects"][0]["problems"]), timeout=5,
                what="image.md's problem gone")
    # And back to binary: dropped from the index again.
    (proj / "image.md").write_bytes(b"\x00\x01\x02" * 100)
    tk.wait_for(lambda: "image.md" not in tk.indexed_paths(), what="image.md dropped")
