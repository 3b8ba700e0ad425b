"""End-to-end tests of the foundation: index, search, the agent and every save pattern."""
import json
import os
import pathlib
import shutil
import signal
import subprocess
import time
import unicodedata

import pytest


def disk_documents(root: pathlib.Path):
    """The documents on disk by the contract's rules (regular *.md/*.markdown, not hidden, no node_modules)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(os.fsencode(root)):
        dirnames[:] = [d for d in dirnames if not d.startswith(b".") and d != b"node_modules"]
        for f in filenames:
            if f.startswith(b"."):
                continue
            if not (f.lower().endswith(b".md") or f.lower().endswith(b".markdown")):
                continue
            full = os.path.join(dirpath, f)
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            out.append(os.fsdecode(os.path.relpath(full, os.fsencode(root))))
    return sorted(out)


def assert_index_matches(tk, project, timeout=10):
    def same():
        indexed = tk.indexed_paths(project)
        on_disk = [unicodedata.normalize("NFC", p) if False else p for p in disk_documents(project)]
        assert indexed == on_disk, f"index {indexed[:10]}… != disk {on_disk[:10]}…"
        return True
    tk.wait_for(same, timeout=timeout, what="index to match the disk")


def write(path: pathlib.Path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# ---------------------------------------------------------------- index and search


def test_index_and_search(tk):
    p = tk.project()
    write(p / "alpha.md", "---\ntitle: Alpha Plan\ntags: [plans]\n---\n\n# Heading One\n\nThe zebra crossed the road.\n\nIdempotent functions are nice.\n")
    write(p / "notes/beta.md", "# Beta\n\nError handling is where C++ programs don't shine.\nCafé au lait.\n")
    write(p / ".hidden/secret.md", "# Hidden zebra\n")
    write(p / "node_modules/pkg/readme.md", "# zebra module\n")
    write(p / "gamma.txt", "zebra in a text file\n")
    r = tk.run("index", p)
    assert tk.indexed_paths() == ["alpha.md", "notes/beta.md"]

    res = tk.json("search", "zebra", "--json")
    assert [x["path"] for x in res["results"]] == ["alpha.md"]
    hit = res["results"][0]
    assert hit["title"] == "Alpha Plan"
    assert hit["line"] == 8  # line numbers are file lines (front matter counted)
    assert "zebra" in hit["snippet"]
    assert hit["project"] == str(p)
    assert isinstance(res["took_ms"], (int, float))

    assert tk.search_paths('"error handling"') == ["notes/beta.md"]
    assert tk.search_paths("idemp*") == ["alpha.md"]
    assert tk.search_paths("function") == ["alpha.md"]  # stemming: functions
    assert tk.search_paths("cafe") == ["notes/beta.md"]  # diacritics folded
    assert tk.search_paths("absentword") == []
    assert tk.search_paths("plan") == ["alpha.md"]  # title
    # Anything typed is safe.
    for q in ["C++", "don't", "AND", "NOT x", "title: plan", '"unbalanced', "*", "(plan", "a@b.com", "#tag", "[[Wiki Link]]", "3.14", "error-handling", "plan:"]:
        r = tk.run("search", "--json", "--", q, check=False)
        assert r.returncode == 0, (q, r.stderr)
        json.loads(r.stdout)
    assert tk.search_paths("--project", p, "zebra") == ["alpha.md"]
    assert tk.search_paths("--path", "notes/*", "shine") == ["notes/beta.md"]
    assert tk.search_paths("--path", "notes/*", "zebra") == []
    # Usage errors exit 64.
    assert tk.run("search", check=False).returncode == 64


def _search_json(binary, tk, *args):
    r = subprocess.run([binary, "search", "--json", *map(str, args)], capture_output=True, text=True, env=tk.env, timeout=60)
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    out.pop("took_ms")
    return out


def test_search_answers_without_the_full_cli(tk, tmp_path):
    """`tk-agent search` runs in the small front executable: it works with tk-agent-core absent,
    while every other command needs the core and says so."""
    from agent_helpers import BIN
    p = tk.project()
    write(p / "a.md", "# Fox notes\n\nThe quick brown fox.\n")
    tk.run("index", p)
    alone = tmp_path / "bin" / "tk-agent"
    alone.parent.mkdir()
    shutil.copy(BIN, alone)
    res = _search_json(str(alone), tk, "fox")
    assert [x["path"] for x in res["results"]] == ["a.md"]
    r = subprocess.run([str(alone), "status"], capture_output=True, text=True, env=tk.env, timeout=30)
    assert r.returncode == 1
    assert "tk-agent-core" in r.stderr and "install" in r.stderr
    # Help, usage errors and a missing index are the full CLI's to answer.
    r = subprocess.run([str(alone), "search", "--help"], capture_output=True, text=True, env=tk.env, timeout=30)
    assert r.returncode == 1 and "tk-agent-core" in r.stderr


def test_commands_start_without_libcurl_or_the_shared_swift_runtime(tk):
    """Every command pays for what the process loads at start: libcurl (two dozen libraries with
    it) is loaded on the first request, not at start, and the release build links the Swift
    runtime and Foundation statically (`--static-swift-stdlib`). A provider call still works
    (test_providers.py)."""
    p = tk.project()
    write(p / "a.md", "# Note\n\nA short note.\n")
    env = dict(tk.env, LD_DEBUG="libs")
    r = subprocess.run([BIN_CORE(), "check", str(p / "a.md")], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    loaded = [l for l in r.stderr.splitlines() if "find library=" in l]
    assert loaded, "LD_DEBUG gave no library lines"
    names = " ".join(loaded)
    assert "libcurl" not in names, names
    assert "libFoundation" not in names and "libswiftCore" not in names, \
        "tk-agent-core links the Swift runtime dynamically: build it with `swift build -c release --static-swift-stdlib`"


def BIN_CORE():
    from agent_helpers import BIN
    return str(pathlib.Path(BIN).resolve().parent / "tk-agent-core")


def test_quick_search_and_full_cli_agree(tk):
    """The front and tk-agent-core print the same results (ranking, lines, snippets, highlights)."""
    from agent_helpers import BIN
    core = str(pathlib.Path(BIN).with_name("tk-agent-core"))
    p = tk.project()
    q = tk.project("other")
    write(p / "a.md", "---\ntitle: Plans\n---\n\n# River\n\nThe river and the stone.\nA river, a river!\n")
    write(p / "notes/b.md", "# Stones\n\nError handling near the river bank; café stones.\n")
    write(q / "c.md", "# Other river\n\nconfiguration of the river\n")
    for d in (p, q):
        tk.run("index", d)
    for args in (["river"], ["stone*"], ['"error handling"'], ["cafe"], ["river", "--limit", "1"],
                 ["river", "--project", p], ["river", "--path", "notes/*"], ["plans"], ["nothingmatches"]):
        quick = _search_json(BIN, tk, *args)
        full = _search_json(core, tk, *args)
        assert quick == full, args
    hits = _search_json(BIN, tk, "river")["results"]
    assert len(hits) == 3 and all(h["score"] > 0 for h in hits)
    b = next(h for h in hits if h["path"] == "notes/b.md")
    assert b["line"] == 3
    start, end = b["highlights"][0]
    assert b["snippet"][start:end].lower() == "river"


def test_search_before_any_index_and_usage_errors(tk):
    r = tk.run("search", "anything", check=False)
    assert r.returncode == 0 and "no matches" in r.stderr
    assert (tk.data / "index.sqlite").exists()
    r = tk.run("search", "--help", check=False)
    assert r.returncode == 0 and "--limit" in r.stdout
    for bad in (["x", "--limit", "0"], ["x", "--bogus"], ["x", "--limit"]):
        r = tk.run("search", *bad, check=False)
        assert r.returncode == 64, (bad, r.stderr)
        assert r.stderr.strip()


def _on_a_terminal(args, env, stream):
    """Runs tk-agent with `stream` ("stdout" or "stderr") on a pseudo-terminal; returns (rc, what it got)."""
    import pty
    from agent_helpers import BIN
    master, slave = pty.openpty()
    kw = {"stdout": slave, "stderr": subprocess.DEVNULL} if stream == "stdout" else {"stdout": subprocess.DEVNULL, "stderr": slave}
    p = subprocess.Popen([BIN, *map(str, args)], stdin=subprocess.DEVNULL, env=env, **kw)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    p.wait(timeout=60)
    os.close(master)
    return p.returncode, out


def test_terminal_output_progress_and_colour(tk):
    """`index` draws a progress bar on a terminal; `search` colours titles and matches there
    (unless NO_COLOR), and prints neither to a pipe."""
    p = tk.project()
    for i in range(30):
        write(p / f"d{i}.md", f"# Doc {i}\n\nthe fox number {i}\n")
    env = {k: v for k, v in tk.env.items() if k != "NO_COLOR"}
    rc, err = _on_a_terminal(["index", p], env, "stderr")
    assert rc == 0
    assert "█".encode() in err and b"30/30" in err
    rc, out = _on_a_terminal(["search", "fox", "--limit", "3"], env, "stdout")
    assert rc == 0
    assert b"\x1b[1;33mfox\x1b[0m" in out
    rc, out = _on_a_terminal(["search", "fox", "--limit", "3"], dict(env, NO_COLOR="1"), "stdout")
    assert rc == 0 and b"\x1b[" not in out and b"fox" in out
    piped = tk.run("search", "fox", env={k: "" for k in ["NO_COLOR"]})
    assert "\x1b[" not in piped.stdout and "\x1b[" not in tk.run("index", p).stderr


def test_index_is_incremental_and_removes_deleted(tk):
    p = tk.project()
    for i in range(30):
        write(p / f"d{i}.md", f"# Doc {i}\n\nword{i} common\n")
    tk.run("index", p)
    r = tk.json("index", p, "--json")
    assert r[0]["updated"] == 0 and r[0]["unchanged"] == 30
    (p / "d3.md").unlink()
    write(p / "d4.md", "# Doc 4\n\nchanged text\n")
    r = tk.json("index", p, "--json")
    assert r[0]["updated"] == 1 and r[0]["deleted"] == 1
    assert tk.search_paths("word4") == []
    assert tk.search_paths("changed") == ["d4.md"]


def test_documents_json_shape(tk):
    p = tk.project()
    write(p / "a.md", "# A title\n\nsome words here\n")
    tk.run("index", p)
    docs = tk.json("documents", "--json")
    assert len(docs) == 1
    d = docs[0]
    for k in ["project", "path", "sha256", "words", "title", "stage", "pending_suggestions", "indexed_at"]:
        assert k in d
    assert d["project"] == str(p) and d["path"] == "a.md" and d["title"] == "A title"
    import hashlib
    assert d["sha256"] == hashlib.sha256((p / "a.md").read_bytes()).hexdigest()


def test_status_offline(tk):
    p = tk.project()
    write(p / "a.md", "# A\n")
    tk.run("index", p)
    s = tk.json("status", "--json")
    assert s["running"] is False
    assert s["index"]["documents"] == 1
    for k in ["pid", "version", "uptime_s", "projects", "queue", "provider", "usage"]:
        assert k in s


# ---------------------------------------------------------------- the agent


def test_agent_single_instance_and_graceful_stop(tk):
    p = tk.project()
    write(p / "a.md", "# A\n\nhello\n")
    agent = tk.start(p)
    s = tk.status()
    assert s["running"] and s["pid"] == agent.pid
    assert s["projects"][0]["path"] == str(p) and s["projects"][0]["watching"]
    second = tk.run("run", p, check=False, timeout=10)
    assert second.returncode == 1
    assert "already running" in second.stderr
    t = time.time()
    assert tk.stop(agent, signal.SIGTERM) == 0
    assert time.time() - t < 2.5
    assert tk.status()["running"] is False


def test_save_patterns_keep_index_exact(tk):
    p = tk.project()
    write(p / "note.md", "# Note\n\nfirst version\n")
    write(p / "other.md", "# Other\n\nother text\n")
    agent = tk.start(p)
    assert_index_matches(tk, p)

    # In-place write.
    (p / "note.md").write_text("# Note\n\ninplace version\n")
    tk.wait_for(lambda: tk.search_paths("inplace") == ["note.md"], what="in-place save", proc=agent)

    # sed -i (temp file + rename, no DELETE).
    subprocess.run(["sed", "-i", "s/inplace/sedited/", str(p / "note.md")], check=True)
    tk.wait_for(lambda: tk.search_paths("sedited") == ["note.md"], what="sed -i", proc=agent)

    # gedit/JetBrains: temp + rename over.
    write(p / ".goutputstream-ABC123", "# Note\n\ngedit version\n")
    os.rename(p / ".goutputstream-ABC123", p / "note.md")
    tk.wait_for(lambda: tk.search_paths("gedit") == ["note.md"], what="rename over", proc=agent)

    # vim's backup dance: rename to note.md~, write new, delete backup; probe file 4913.
    write(p / "4913", "")
    (p / "4913").unlink()
    os.rename(p / "note.md", p / "note.md~")
    write(p / "note.md", "# Note\n\nvimmed version\n")
    (p / "note.md~").unlink()
    write(p / ".note.md.swp", "swap")
    tk.wait_for(lambda: tk.search_paths("vimmed") == ["note.md"], what="vim save", proc=agent)

    # emacs: dangling lock symlink and auto-save file.
    os.symlink("user@host.1234:1", p / ".#note.md")
    write(p / "#note.md#", "autosave")
    (p / "note.md").write_text("# Note\n\nemacs version\n")
    tk.wait_for(lambda: tk.search_paths("emacs") == ["note.md"], what="emacs save", proc=agent)

    # mkdir -p then immediate writes (the new-directory race).
    deep = p / "a" / "b" / "c"
    deep.mkdir(parents=True)
    for i in range(20):
        (deep / f"n{i}.md").write_text(f"# Deep {i}\n\ndeepword{i}\n")
    assert_index_matches(tk, p)

    # A tree copied in, then moved out, a directory rename, delete, .md <-> .txt renames.
    src = tk.root / "outside"
    for i in range(10):
        write(src / "sub" / f"t{i}.md", f"# T{i}\n\ntreeword{i}\n")
    shutil.copytree(src, p / "copied")
    assert_index_matches(tk, p)
    os.rename(p / "copied", p / "renamed")
    assert_index_matches(tk, p)
    shutil.move(str(p / "renamed"), str(tk.root / "gone"))
    assert_index_matches(tk, p)
    os.rename(p / "other.md", p / "other.txt")
    assert_index_matches(tk, p)
    os.rename(p / "other.txt", p / "back.md")
    assert_index_matches(tk, p)
    (p / "back.md").unlink()
    assert_index_matches(tk, p)

    # Rename over an existing file: bare MOVED_TO, no DELETE for the replaced one.
    write(p / "x.md", "# X\n\nxold\n")
    write(tk.root / "incoming.md", "# X\n\nxnew\n")
    assert_index_matches(tk, p)
    os.rename(tk.root / "incoming.md", p / "x.md")
    tk.wait_for(lambda: tk.search_paths("xnew") == ["x.md"] and tk.search_paths("xold") == [], what="rename over", proc=agent)

    # Zero-byte file, a file written slowly over a second.
    (p / "empty.md").write_bytes(b"")
    with open(p / "slow.md", "w") as f:
        for i in range(5):
            f.write(f"slowword{i} ")
            f.flush()
            time.sleep(0.2)
    assert_index_matches(tk, p)
    tk.wait_for(lambda: tk.search_paths("slowword4") == ["slow.md"], what="slow write", proc=agent)
    assert tk.stop(agent) == 0


def test_git_checkout_and_burst(tk):
    if not shutil.which("git"):
        pytest.skip("git not installed")
    p = tk.project()
    g = ["git", "-C", str(p), "-c", "user.email=t@t", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q", str(p)], check=True)
    for i in range(50):
        write(p / f"ch{i}.md", f"# Chapter {i}\n\nversionone\n")
    subprocess.run(g + ["add", "-A"], check=True)
    subprocess.run(g + ["commit", "-qm", "one"], check=True)
    subprocess.run(g + ["checkout", "-qb", "two"], check=True)
    for i in range(50):
        write(p / f"ch{i}.md", f"# Chapter {i}\n\nversiontwo\n")
    subprocess.run(g + ["commit", "-qam", "two"], check=True)
    agent = tk.start(p)
    assert len(tk.search_paths("versiontwo")) == 50
    subprocess.run(g + ["checkout", "-q", "master" if subprocess.run(g + ["rev-parse", "--verify", "-q", "master"], capture_output=True).returncode == 0 else "main"], check=True)
    tk.wait_for(lambda: len(tk.search_paths("versionone")) == 50 and tk.search_paths("versiontwo") == [], what="git checkout", proc=agent, timeout=15)
    # A burst of 2,000 files.
    burst = p / "burst"
    burst.mkdir()
    for i in range(2000):
        (burst / f"b{i}.md").write_text(f"# B{i}\n\nburstword\n")
    tk.wait_for(lambda: len(tk.search_paths("burstword")) == 2000, what="burst of 2000 files", proc=agent, timeout=30)
    assert_index_matches(tk, p)


def test_unicode_names_and_bad_bytes(tk):
    p = tk.project()
    agent = tk.start(p)
    nfc = unicodedata.normalize("NFC", "café.md")
    nfd = unicodedata.normalize("NFD", "café.md")
    assert nfc != nfd
    (p / nfc).write_text("# NFC\n\nnfcword\n")
    (p / nfd).write_text("# NFD\n\nnfdword\n")
    bad = os.path.join(os.fsencode(p), b"bad\xff\xfename.md")
    with open(bad, "wb") as f:
        f.write(b"# Bad bytes \xff\xfe\n\nbadword here\n")
    (p / "latin1.md").write_bytes("# Latin\n\nna\xefve caf\xe9 latinword\n".encode("latin-1"))
    tk.wait_for(lambda: len(tk.indexed_paths(p)) == 4, what="four documents", proc=agent)
    docs = tk.json("documents", "--json")
    assert len({d["path"] for d in docs}) == 4  # NFC and NFD are two documents
    assert tk.search_paths("nfcword") and tk.search_paths("nfdword")
    assert tk.search_paths("latinword") == ["latin1.md"]
    assert agent.poll() is None


def test_watch_add_remove_picked_up_live(tk):
    a = tk.project("a")
    b = tk.project("b")
    write(a / "a.md", "# A\n\nalphaword\n")
    write(b / "b.md", "# B\n\nbetaword\n")
    tk.run("watch", "add", a)
    assert [x["path"] for x in tk.json("watch", "list", "--json")] == [str(a)]
    agent = tk.start()
    assert tk.search_paths("alphaword") == ["a.md"]
    tk.run("watch", "add", b)
    tk.wait_for(lambda: tk.search_paths("betaword") == ["b.md"], what="new project picked up", proc=agent)
    tk.run("watch", "remove", b)
    tk.wait_for(lambda: [x["path"] for x in tk.status()["projects"]] == [str(a)], what="project removed", proc=agent)
    r = tk.run("watch", "add", tk.root / "missing", check=False)
    assert r.returncode == 1 and "not a folder" in r.stderr


def test_status_live_within_a_second(tk):
    p = tk.project()
    agent = tk.start(p)
    before = tk.status()["projects"][0]["documents"]
    write(p / "new.md", "# New\n\nfresh\n")
    t = time.time()
    tk.wait_for(lambda: tk.status()["projects"][0]["documents"] == before + 1, timeout=3, proc=agent)
    assert time.time() - t < 1.5


def test_changes_while_down_are_reconciled(tk):
    p = tk.project()
    write(p / "keep.md", "# Keep\n\nkeepword\n")
    write(p / "drop.md", "# Drop\n\ndropword\n")
    agent = tk.start(p)
    assert tk.stop(agent) == 0
    (p / "drop.md").unlink()
    write(p / "added.md", "# Added\n\naddedword\n")
    # Same size, mtime set into the past (rsync/touch -r): must still be noticed through the hash.
    (p / "keep.md").write_text("# Keep\n\nkeepWORD\n")
    os.utime(p / "keep.md", (1_000_000, 1_000_000))
    agent = tk.start(p)
    assert_index_matches(tk, p)
    assert tk.search_paths("addedword") == ["added.md"]


def test_oversized_file_reported(tk):
    p = tk.project()
    cfg = tk.config_home / "tk" / "config.json"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(json.dumps({"watch": {"settle_ms": 50, "max_file_bytes": 1000}, "review": {"auto": False}}))
    write(p / "big.md", "# Big\n\n" + "word " * 1000)
    write(p / "small.md", "# Small\n")
    agent = tk.start(p)
    assert tk.indexed_paths() == ["small.md"]
    problems = tk.status()["projects"][0]["problems"]
    assert any("big.md" in x and "max_file_bytes" in x for x in problems), problems
