"""Stopping: SIGTERM or SIGINT at any moment of a first scan ends the agent within a second or
two, with exit code 0 and no crash, and the next start finishes the work (every document indexed
and with its sidecar). While a scan runs, `status --json` counts documents done of total."""
import json
import os
import pathlib
import random
import signal
import subprocess
import time

from agent_helpers import BIN

WORDS = ("the quick brown fox jumps over a lazy dog while very many writers basically really "
         "ponder lengthy sentences that go on and on without end because it is what it is").split()


def make_corpus(root: pathlib.Path, n: int, seed: int = 7):
    """n generated markdown documents in nested folders (a few KB each)."""
    rng = random.Random(seed)
    for i in range(n):
        folder = root / f"part-{i % 17:02d}" / f"chapter-{i % 5}"
        folder.mkdir(parents=True, exist_ok=True)
        paras = []
        for _ in range(rng.randrange(4, 14)):
            paras.append(" ".join(rng.choice(WORDS) for _ in range(rng.randrange(20, 90))).capitalize() + ".")
        (folder / f"note-{i:05d}.md").write_text(f"# Note {i}\n\n" + "\n\n".join(paras) + "\n")


def sidecar_count(root: pathlib.Path):
    n = 0
    for _, _, files in os.walk(root / ".tk"):
        n += sum(1 for f in files if f.endswith(".review.json"))
    return n


def start_raw(tk, project):
    cfg = tk.config_home / "tk" / "config.json"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(json.dumps({"watch": {"settle_ms": 50}, "review": {"auto": False},
                               "notifications": {"enabled": False}}))
    log = open(tk.root / f"agent-{len(tk.agents)}.log", "wb")
    p = subprocess.Popen([BIN, "run", "--log-level", "info", str(project)], env=tk.env, stdout=log, stderr=subprocess.STDOUT)
    p.log_path = tk.root / f"agent-{len(tk.agents)}.log"
    tk.agents.append(p)
    return p


def assert_clean_exit(tk, p, sig, started, limit):
    took = time.time() - started
    log = tk.logs(p)
    assert p.returncode == 0, f"exit {p.returncode} after {sig}:\n{log}"
    assert "Fatal error" not in log, log
    assert took < limit, f"took {took:.2f}s to stop after {sig}"


def test_sigterm_during_first_scan_then_restart_finishes(tk):
    proj = tk.project()
    make_corpus(proj, 3000)
    for sig, after in ((signal.SIGTERM, 1.0), (signal.SIGINT, 0.3), (signal.SIGTERM, 2.5)):
        p = start_raw(tk, proj)
        # Once it runs (its status says so), some way into the scan.
        tk.wait_for(lambda: tk.status().get("running"), timeout=30, what="the agent to start", proc=p)
        time.sleep(after)
        assert p.poll() is None, tk.logs(p)
        t0 = time.time()
        p.send_signal(sig)
        p.wait(timeout=30)
        assert_clean_exit(tk, p, sig, t0, 2.0)
    # The next start finishes what was cut short: every document indexed, every sidecar written.
    p = start_raw(tk, proj)
    tk.wait_for(lambda: tk.idle(), timeout=180, what="the first scan to finish", proc=p)
    assert len(tk.indexed_paths()) == 3000
    assert sidecar_count(proj) == 3000
    t0 = time.time()
    p.send_signal(signal.SIGTERM)
    p.wait(timeout=30)
    assert_clean_exit(tk, p, signal.SIGTERM, t0, 2.0)
    # Nothing was done twice: each document's journey has one row, each sidecar is valid JSON.
    some = next((proj / ".tk").rglob("*.review.json"))
    json.loads(some.read_text())


def test_status_counts_documents_during_scan(tk):
    proj = tk.project()
    make_corpus(proj, 4000, seed=11)
    p = start_raw(tk, proj)
    seen = []

    def progressing():
        idx = tk.status().get("index", {})
        if idx.get("total"):
            seen.append((idx["documents"], idx["total"], idx["pending"]))
        return idx.get("total") and idx.get("pending") == 0 and idx.get("documents") == idx["total"]

    tk.wait_for(progressing, timeout=180, what="the scan to finish", proc=p, interval=0.1)
    assert seen, "status never showed a total"
    partial = [s for s in seen if 0 < s[0] < s[1]]
    assert partial, f"status never showed documents done of total mid-scan: {seen[:5]}…"
    for done, total, pending in partial:
        assert total == 4000 and pending >= total - done, (done, total, pending)
    # Counts only go up.
    counts = [s[0] for s in seen]
    assert counts == sorted(counts), counts
    assert seen[-1][:2] == (4000, 4000)
    tk.stop(p)
