"""End-to-end tests of the document owner: whatever indexed a document (`index`, `run`, a run killed
half way), every document ends with the sidecar its bytes and settings give, and the sidecar's quick
findings are those `tk-agent check` prints for the same file."""
import json
import signal
import subprocess

DOCS = {
    "a.md": "# Alpha\n\nThe report was written by the team and it is very clear that we should circle back.\n",
    "b.md": "---\ntk:\n  story_type: email_memo\n---\n# Beta\n\nBasically we want to leverage synergies going forward.\n",
    "notes/c.md": "# Gamma\n\nIt was decided that the plan is actually really quite good.\n",
}


def write_project(tk, docs=DOCS, name="proj"):
    p = tk.project(name)
    for rel, text in docs.items():
        f = p / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
    return p


def sidecar(project, rel):
    f = project / ".tk" / (rel + ".review.json")
    if not f.exists():
        return None
    try:
        return json.loads(f.read_text())
    except json.JSONDecodeError:
        return None


def check_findings(tk, path):
    out = tk.json("check", "--json", path)
    return [(x["rule"], x["line"], x["column"]) for x in out["files"][0]["findings"]]


def quick_of(sc):
    return [(x["rule"], x["line"], x["column"]) for x in sc["quick"]]


def all_sidecars_match(tk, project, docs):
    for rel, text in docs.items():
        sc = sidecar(project, rel)
        assert sc is not None, f"no sidecar for {rel}"
        import hashlib
        assert sc["sha256"] == hashlib.sha256(text.encode()).hexdigest(), f"sidecar of {rel} describes other bytes"
        assert quick_of(sc) == check_findings(tk, project / rel), f"sidecar of {rel} disagrees with check"
    return True


def test_index_then_run_writes_every_sidecar_agreeing_with_check(tk):
    p = write_project(tk)
    tk.run("index", p)
    proc = tk.start(p)
    tk.wait_for(lambda: all_sidecars_match(tk, p, DOCS), timeout=15, what="sidecars after index then run", proc=proc)
    # The advisors' tips count for check as for the agent (b.md's story type brings its advisors).
    assert any(f["rule"].startswith("tip.") for f in sidecar(p, "b.md")["quick"]) == \
        any(r.startswith("tip.") for r, _, _ in check_findings(tk, p / "b.md"))


def test_run_kill_index_run_converges(tk):
    p = write_project(tk)
    proc = tk.start(p)
    tk.wait_for(lambda: all_sidecars_match(tk, p, DOCS), timeout=15, what="first sidecars", proc=proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    # Changed while nobody watched, then indexed by the CLI: the agent never sees these as changes.
    docs = dict(DOCS)
    docs["a.md"] = "# Alpha\n\nThe results were obviously reviewed by the committee in a timely manner.\n"
    docs["d.md"] = "# Delta\n\nWe will utilize the new tool very soon.\n"
    for rel in ("a.md", "d.md"):
        (p / rel).write_text(docs[rel])
    tk.run("index", p)
    proc = tk.start(p)
    tk.wait_for(lambda: all_sidecars_match(tk, p, docs), timeout=15, what="sidecars after kill, index, run", proc=proc)


def test_index_while_the_agent_runs_elsewhere_is_caught_up(tk):
    """A document indexed by `tk-agent index` while the agent is down gets its sidecar at the next start,
    even though its fingerprint is already current."""
    p = write_project(tk, {"only.md": DOCS["a.md"]})
    tk.run("index", p)
    tk.run("index", p)
    proc = tk.start(p)
    tk.wait_for(lambda: all_sidecars_match(tk, p, {"only.md": DOCS["a.md"]}), timeout=15, what="sidecar", proc=proc)
    tk.stop(proc)


def test_settings_changed_while_down_are_applied_at_start(tk):
    p = write_project(tk, {"long.md": "# Long\n\n" + " ".join(["word"] * 24) + ".\n"})
    proc = tk.start(p)
    tk.wait_for(lambda: sidecar(p, "long.md") is not None, timeout=15, what="sidecar", proc=proc)
    assert not any(f["rule"] == "long-sentence" for f in sidecar(p, "long.md")["quick"])
    tk.stop(proc)
    (p / ".tk" / "config.json").write_text(json.dumps({"heuristics": {"max_sentence_words": 10}}))
    proc = tk.start(p)
    tk.wait_for(lambda: all_sidecars_match(tk, p, {"long.md": (p / "long.md").read_text()}), timeout=15,
                what="sidecar with the new settings", proc=proc)


def test_journey_set_changes_the_quick_findings_like_check(tk):
    p = write_project(tk, {"memo.md": "# Memo\n\nWe should circle back on this and leverage the synergy.\n"})
    proc = tk.start(p)
    tk.wait_for(lambda: sidecar(p, "memo.md") is not None, timeout=15, what="sidecar", proc=proc)
    tk.run("journey", "set", p / "memo.md", "--story-type", "email_memo")
    sc = sidecar(p, "memo.md")
    assert sc["journey"]["story_type"] == "email_memo"
    assert quick_of(sc) == check_findings(tk, p / "memo.md")


def test_release_binaries_carry_no_test_machinery(tk):
    """The shipped binaries hold none of the test hooks' names (they live in the tests now), and the
    hidden `journey seed` command is gone (the e2e tests run real rounds against the fake server)."""
    import os
    import pathlib
    import shutil
    import pytest
    from agent_helpers import BIN
    if not shutil.which("strings"):
        pytest.skip("strings (binutils) is not installed")
    folder = pathlib.Path(BIN).resolve().parent
    for exe in ("tk-agent", "tk-agent-core"):
        path = folder / exe
        if not path.exists():
            continue
        out = subprocess.run(["strings", "-n", "8", str(path)], capture_output=True, text=True, check=True).stdout
        for name in ("TK_FAKE_PROVIDER_REPLIES", "TK_FAKE_PROVIDER_LOG", "ScriptedProvider", "HookProvider",
                     # `journey seed`: its help text and the mangled names of the command and JourneyActions.seed
                     "Add a finished round of suggestions", "A tk.suggestions/1 reply", "JourneyV4Seed",
                     "JourneyActionsV4seed"):
            assert name not in out, f"{exe} still contains {name}"
        # The environment switches tests once used (clock, retry backoff, /proc, spelling engine): tests
        # inject them now. Swift keeps a string of up to 15 bytes inline in the code, its first 8 bytes
        # as one immediate operand, so look for those bytes in the whole file, not only in `strings`.
        data = path.read_bytes()
        for name in ("TK_NOW", "TK_RETRY_BASE_MS", "TK_PROC_SYS", "TK_SPELL_TABLE"):
            raw = name.encode()
            needle = raw if len(raw) > 15 else raw[:8].ljust(8, b"\0")
            assert needle not in data, f"{exe} still reads {name}"
    assert os.path.exists(folder / "tk-agent")
    # Short names are not in a string table (Swift keeps them inline): ask the command itself.
    doc = tk.project() / "d.md"
    doc.write_text("Some words.\n")
    r = tk.run("journey", "seed", doc, check=False)
    assert r.returncode == 64 and "Usage: tk-agent journey <subcommand>" in r.stderr, r.stderr
    assert "seed" not in tk.run("journey", "--help").stdout


def test_a_sidecar_that_lags_the_database_is_rewritten_at_start(tk):
    """A batch commits its database state, then writes its sidecars: a kill in between leaves a sidecar
    that lags the database (here put back by hand, sealed and valid, one save behind). The next start
    rewrites it from the database, though the document and its derivation are current."""
    import time
    p = write_project(tk, {"a.md": DOCS["a.md"]})
    proc = tk.start(p)
    tk.wait_for(lambda: all_sidecars_match(tk, p, {"a.md": DOCS["a.md"]}), timeout=15, what="first sidecar", proc=proc)
    behind = (p / ".tk" / "a.md.review.json").read_bytes()
    time.sleep(1.1)   # sidecars are stamped in whole seconds
    edited = DOCS["a.md"] + "\nIt was agreed by everyone that the plan is very good.\n"
    (p / "a.md").write_text(edited)
    tk.wait_for(lambda: all_sidecars_match(tk, p, {"a.md": edited}), timeout=15, what="sidecar of the edit", proc=proc)
    committed = (p / ".tk" / "a.md.review.json").read_bytes()
    tk.stop(proc)
    (p / ".tk" / "a.md.review.json").write_bytes(behind)
    proc = tk.start(p)
    tk.wait_for(lambda: (p / ".tk" / "a.md.review.json").read_bytes() == committed, timeout=15,
                what="the lagging sidecar rewritten from the database", proc=proc)
    tk.stop(proc)
