"""End-to-end tests of the watcher: save patterns, trees, symlinks, queue overflow and the watch limit.

Complements test_foundation.py; every scenario checks the end state of the index against the disk.
"""
import json
import os
import pathlib
import shutil
import signal
import subprocess
import time

import pytest

from agent_helpers import BIN


def disk_documents(root: pathlib.Path):
    """The documents on disk by the contract's rules (regular *.md/*.markdown, not hidden, no node_modules)."""
    out = []
    for dirpath, dirnames, filenames in os.walk(os.fsencode(root)):
        dirnames[:] = [d for d in dirnames if not d.startswith(b".") and d != b"node_modules"
                       and not os.path.islink(os.path.join(dirpath, d))]
        for f in filenames:
            if f.startswith(b".") or not (f.lower().endswith(b".md") or f.lower().endswith(b".markdown")):
                continue
            full = os.path.join(dirpath, f)
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            out.append(os.fsdecode(os.path.relpath(full, os.fsencode(root))))
    return sorted(out)


def assert_index_matches(tk, project, agent, timeout=10):
    def same():
        indexed = tk.indexed_paths(project)
        on_disk = disk_documents(project)
        assert indexed == on_disk, f"index {indexed[:12]} != disk {on_disk[:12]}"
        return True
    tk.wait_for(same, timeout=timeout, what="index to match the disk", proc=agent)


def write(path: pathlib.Path, text: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def search_is(tk, agent, term, expected, what=None):
    tk.wait_for(lambda: tk.search_paths(term) == sorted(expected), what=what or f"search {term} == {expected}",
                proc=agent)


def sh(script: str, cwd: pathlib.Path):
    subprocess.run(["sh", "-c", script], cwd=cwd, check=True, timeout=30)


# ---------------------------------------------------------------- editors' save dances


def test_editor_save_dances(tk):
    p = tk.project()
    write(p / "x.md", "# X\n\noriginal words\n")
    write(p / "y.md", "# Y\n\nyoriginal\n")
    write(p / "z.md", "# Z\n\nzoriginal\n")
    agent = tk.start(p)
    assert tk.indexed_paths() == ["x.md", "y.md", "z.md"]

    # vim with backupcopy=no: probe 4913, x.md -> x.md~, write a new x.md, delete x.md~; swap file beside.
    write(p / ".x.md.swp", "swap")
    write(p / "4913", "")
    (p / "4913").unlink()
    os.rename(p / "x.md", p / "x.md~")
    write(p / "x.md", "# X\n\nvimsaved words\n")
    os.chmod(p / "x.md", 0o644)
    (p / "x.md~").unlink()
    (p / ".x.md.swp").unlink()
    search_is(tk, agent, "vimsaved", ["x.md"])
    assert tk.search_paths("original") == []
    assert_index_matches(tk, p, agent)

    # Emacs: a dangling lock symlink .#y.md, an auto-save #y.md#, first save renames to y.md~ (kept).
    os.symlink("root@host.4242:1700000000", p / ".#y.md")
    write(p / "#y.md#", "# Y\n\nautosaved\n")
    os.rename(p / "y.md", p / "y.md~")
    write(p / "y.md", "# Y\n\nemacssaved\n")
    (p / "#y.md#").unlink()
    search_is(tk, agent, "emacssaved", ["y.md"])
    assert tk.search_paths("autosaved") == [] and tk.search_paths("yoriginal") == []
    (p / ".#y.md").unlink()
    assert_index_matches(tk, p, agent)

    # JetBrains safe write: tmp written, z.md -> z.md___jb_old___, tmp -> z.md, old deleted.
    write(p / "z.md___jb_tmp___", "# Z\n\njetbrainssaved\n")
    os.rename(p / "z.md", p / "z.md___jb_old___")
    os.rename(p / "z.md___jb_tmp___", p / "z.md")
    (p / "z.md___jb_old___").unlink()
    search_is(tk, agent, "jetbrainssaved", ["z.md"])
    assert tk.search_paths("zoriginal") == []

    # rsync: a hidden temp with the source's (older) mtime renamed over; same size as before.
    before = (p / "z.md").read_text()
    write(p / ".z.md.Ab12Cd", before.replace("jetbrainssaved", "rsyncsavedxxxx"))
    os.utime(p / ".z.md.Ab12Cd", (1_000_000, 1_000_000))
    os.rename(p / ".z.md.Ab12Cd", p / "z.md")
    search_is(tk, agent, "rsyncsavedxxxx", ["z.md"])

    # Rename over an existing file inside the project: no DELETE for the replaced one.
    os.rename(p / "x.md", p / "y.md")
    search_is(tk, agent, "vimsaved", ["y.md"])
    assert tk.search_paths("emacssaved") == []
    assert_index_matches(tk, p, agent)

    # .md <-> .txt renames.
    os.rename(p / "y.md", p / "y.txt")
    search_is(tk, agent, "vimsaved", [])
    os.rename(p / "y.txt", p / "y.markdown")
    search_is(tk, agent, "vimsaved", ["y.markdown"])
    assert_index_matches(tk, p, agent)
    assert agent.poll() is None


# ---------------------------------------------------------------- folders


def test_new_directories_trees_in_and_out(tk):
    p = tk.project()
    outside = tk.root / "outside"
    agent = tk.start(p)

    # mkdir -p several levels, files written at every level at once (the new-directory race).
    for n in range(5):
        sh(f"mkdir -p r{n}/a/b/c/d && for d in r{n} r{n}/a r{n}/a/b r{n}/a/b/c r{n}/a/b/c/d; do "
           f"printf '# L\\n\\nraceword{n}\\n' > $d/f.md; done", p)
    tk.wait_for(lambda: len(tk.search_paths("raceword4")) == 5, what="deep files", proc=agent)
    assert_index_matches(tk, p, agent)
    assert len(tk.indexed_paths()) == 25

    # A tree copied in with cp -r.
    for i in range(6):
        write(outside / "src" / f"s{i % 3}" / f"c{i}.md", f"# C{i}\n\ncopiedword\n")
    sh(f"cp -r '{outside / 'src'}' copied", p)
    tk.wait_for(lambda: len(tk.search_paths("copiedword")) == 6, what="copied tree", proc=agent)

    # A tree moved in from outside the project (one MOVED_TO, nothing for its contents).
    for i in range(6):
        write(outside / "inbox" / f"m{i % 2}" / f"m{i}.md", f"# M{i}\n\nmovedinword\n")
    os.rename(outside / "inbox", p / "inbox")
    tk.wait_for(lambda: len(tk.search_paths("movedinword")) == 6, what="moved-in tree", proc=agent)
    # New files inside the moved-in tree are watched.
    write(p / "inbox" / "m0" / "later.md", "# Later\n\nlaterword\n")
    search_is(tk, agent, "laterword", ["inbox/m0/later.md"])

    # Directory rename inside the project; the renamed folder stays watched.
    os.rename(p / "inbox", p / "archive")
    tk.wait_for(lambda: len(tk.search_paths("movedinword")) == 6
                and all(x.startswith("archive/") for x in tk.search_paths("movedinword")), what="renamed dir",
                proc=agent)
    write(p / "archive" / "m1" / "after.md", "# After\n\nafterrename\n")
    search_is(tk, agent, "afterrename", ["archive/m1/after.md"])
    assert_index_matches(tk, p, agent)

    # The tree moved out: gone from the index; later edits out there are not reported.
    os.rename(p / "archive", outside / "archive")
    search_is(tk, agent, "movedinword", [])
    write(outside / "archive" / "m1" / "stale.md", "# Stale\n\nstaleword\n")
    (outside / "archive" / "m1" / "after.md").write_text("# After\n\nafterrename changed outside\n")
    time.sleep(0.5)
    tk.wait_for(tk.idle, proc=agent, what="idle")
    assert tk.search_paths("staleword") == [] and tk.search_paths("afterrename") == []
    assert_index_matches(tk, p, agent)

    # Deleted and recreated with the same name: the new folder is not deaf.
    shutil.rmtree(p / "copied")
    search_is(tk, agent, "copiedword", [])
    (p / "copied").mkdir()
    write(p / "copied" / "again.md", "# Again\n\nrecreatedword\n")
    search_is(tk, agent, "recreatedword", ["copied/again.md"])
    assert_index_matches(tk, p, agent)
    assert agent.poll() is None


def test_directory_shuffles(tk):
    """Renames in chains, through hidden names, swaps, over empty folders, files that become folders."""
    p = tk.project()
    write(p / "d1" / "a.md", "# A\n\nalpha\n")
    write(p / "d1" / "sub" / "b.md", "# B\n\nbeta\n")
    agent = tk.start(p)
    # rename chain before settle
    os.rename(p / "d1", p / "d2")
    os.rename(p / "d2", p / "d3")
    (p / "d3" / "sub" / "b.md").write_text("# B\n\nbetachanged\n")
    write(p / "d3" / "sub" / "c.md", "# C\n\ngamma\n")
    assert_index_matches(tk, p, agent)
    search_is(tk, agent, "betachanged", ["d3/sub/b.md"])
    # into hidden and back
    os.rename(p / "d3", p / ".trash")
    assert_index_matches(tk, p, agent)
    (p / ".trash" / "a.md").write_text("# A\n\nalphahidden\n")
    os.rename(p / ".trash", p / "back")
    assert_index_matches(tk, p, agent)
    search_is(tk, agent, "alphahidden", ["back/a.md"])
    write(p / "back" / "sub" / "new.md", "# N\n\nnewword\n")
    search_is(tk, agent, "newword", ["back/sub/new.md"])
    # swap two directories via a temp name
    write(p / "x" / "f.md", "# X\n\nxword\n")
    write(p / "y" / "f.md", "# Y\n\nyword\n")
    assert_index_matches(tk, p, agent)
    os.rename(p / "x", p / "tmpdir")
    os.rename(p / "y", p / "x")
    os.rename(p / "tmpdir", p / "y")
    search_is(tk, agent, "xword", ["y/f.md"])
    search_is(tk, agent, "yword", ["x/f.md"])
    write(p / "y" / "g.md", "# G\n\ngword\n")
    search_is(tk, agent, "gword", ["y/g.md"])
    # dir renamed over an empty dir
    (p / "empty").mkdir()
    os.rename(p / "y", p / "empty")
    assert_index_matches(tk, p, agent)
    write(p / "empty" / "h.md", "# H\n\nhword\n")
    search_is(tk, agent, "hword", ["empty/h.md"])
    # nested moved-out dir then moved back in
    os.rename(p / "back", tk.root / "out")
    assert_index_matches(tk, p, agent)
    os.rename(tk.root / "out", p / "in")
    assert_index_matches(tk, p, agent)
    write(p / "in" / "sub" / "z.md", "# Z\n\nzword\n")
    search_is(tk, agent, "zword", ["in/sub/z.md"])
    # node_modules renamed to a normal name
    write(p / "node_modules" / "k.md", "# K\n\nkword\n")
    time.sleep(0.3)
    assert tk.search_paths("kword") == []
    os.rename(p / "node_modules", p / "nm")
    search_is(tk, agent, "kword", ["nm/k.md"])
    os.rename(p / "nm", p / "node_modules")
    search_is(tk, agent, "kword", [])
    assert_index_matches(tk, p, agent)
    # a file becomes a directory with the same name
    write(p / "fd.md", "# F\n\nfileword\n")
    search_is(tk, agent, "fileword", ["fd.md"])
    (p / "fd.md").unlink()
    (p / "fd.md").mkdir()
    write(p / "fd.md" / "in.md", "# I\n\ninword\n")
    search_is(tk, agent, "inword", ["fd.md/in.md"])
    assert_index_matches(tk, p, agent)
    # ... and back: the folder replaced by a file of the same name.
    shutil.rmtree(p / "fd.md")
    write(p / "fd.md", "# F\n\nfileagain\n")
    search_is(tk, agent, "fileagain", ["fd.md"])
    assert_index_matches(tk, p, agent)
    assert agent.poll() is None


def test_burst_of_2000_files_in_a_new_folder(tk):
    p = tk.project()
    agent = tk.start(p)
    sh("mkdir -p burst/inner && i=0; while [ $i -lt 1000 ]; do printf '# B\\n\\nburstword\\n' > burst/b$i.md; "
       "printf '# B\\n\\nburstword\\n' > burst/inner/b$i.md; i=$((i+1)); done", p)
    # Generous limits (a loaded CI machine): they catch a lost event or a hang, not a slow index
    # (bench/search.py measures speed).
    tk.wait_for(lambda: len(tk.search_paths("burstword")) == 2000, what="2000 files", proc=agent, timeout=60)
    assert_index_matches(tk, p, agent)
    # And all deleted at once.
    shutil.rmtree(p / "burst")
    tk.wait_for(lambda: tk.indexed_paths() == [], what="burst removed", proc=agent, timeout=60)


# ---------------------------------------------------------------- files


def test_slow_writes_zero_bytes_and_symlinks(tk):
    p = tk.project()
    outside = tk.root / "elsewhere"
    write(outside / "out.md", "# Out\n\noutsideword\n")
    write(p / "real.md", "# Real\n\nrealword\n")
    os.symlink(p / "real.md", p / "link.md")  # a link to a document is not a document
    os.symlink(outside, p / "linkdir")  # links to folders are not followed
    os.symlink(outside / "out.md", p / "out-link.md")
    os.symlink(".", p / "loop")  # a loop must not hang the walk
    os.symlink("missing-target.md", p / "dangling.md")
    agent = tk.start(p)
    assert tk.indexed_paths() == ["real.md"]
    assert tk.search_paths("outsideword") == []
    (outside / "out.md").write_text("# Out\n\noutsideword changed\n")
    write(outside / "new.md", "# New\n\nnewoutside\n")
    os.symlink(p / "real.md", p / "late-link.md")

    # A file written slowly over ~2 s, several appends: ends indexed with the final content.
    with open(p / "slow.md", "w") as f:
        for i in range(6):
            f.write(f"slowpart{i} ")
            f.flush()
            time.sleep(0.35)
    search_is(tk, agent, "slowpart5", ["slow.md"])
    assert tk.search_paths("slowpart0") == ["slow.md"]

    # A zero-byte file is a document (title from its name), and so is one emptied later.
    (p / "empty.md").write_bytes(b"")
    tk.wait_for(lambda: "empty.md" in tk.indexed_paths(), what="zero-byte file", proc=agent)
    docs = {d["path"]: d for d in tk.json("documents", "--json")}
    assert docs["empty.md"]["words"] == 0 and docs["empty.md"]["title"] == "empty"
    (p / "real.md").write_bytes(b"")
    search_is(tk, agent, "realword", [])
    assert tk.search_paths("outsideword") == [] and tk.search_paths("newoutside") == []
    assert tk.indexed_paths() == ["empty.md", "real.md", "slow.md"]

    # A document replaced by a symlink stops being a document.
    (p / "slow.md").unlink()
    os.symlink(p / "empty.md", p / "slow.md")
    tk.wait_for(lambda: tk.indexed_paths() == ["empty.md", "real.md"], what="symlink replaces file", proc=agent)
    assert agent.poll() is None


# ---------------------------------------------------------------- the kernel's limits


def test_queue_overflow_triggers_a_rescan(tk):
    try:
        limit = int(pathlib.Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    except (OSError, ValueError):
        pytest.skip("cannot read fs.inotify.max_queued_events")
    if limit > 100_000:
        pytest.skip(f"max_queued_events is {limit}; too large to overflow quickly")
    p = tk.project()
    for i in range(20):
        write(p / f"early{i}.md", f"# E{i}\n\nearlyword\n")
    agent = tk.start(p)
    assert len(tk.search_paths("earlyword")) == 20
    os.kill(agent.pid, signal.SIGSTOP)
    try:
        # Each rename queues MOVED_FROM + MOVED_TO with a fresh cookie (never merged): overflow the queue.
        spin = p / "spin"
        spin.mkdir()
        write(spin / "a.txt", "x")
        for _ in range(limit // 2 + 500):
            os.rename(spin / "a.txt", spin / "b.txt")
            os.rename(spin / "b.txt", spin / "a.txt")
        # Changes after the overflow: their events are lost, only a rescan can find them.
        for i in range(10):
            (p / f"early{i}.md").unlink()
        write(p / "late" / "late.md", "# Late\n\nlateword\n")
        (p / "early15.md").write_text("# E15\n\nrewrittenword\n")
    finally:
        os.kill(agent.pid, signal.SIGCONT)
    search_is(tk, agent, "lateword", ["late/late.md"], what="rescan after overflow")
    assert_index_matches(tk, p, agent)
    assert tk.search_paths("rewrittenword") == ["early15.md"]
    assert "overflow" in pathlib.Path(agent.log_path).read_text(errors="replace")
    # Watching still works afterwards.
    write(p / "late" / "after.md", "# After\n\nafteroverflow\n")
    search_is(tk, agent, "afteroverflow", ["late/after.md"])


def start_with_watch_limit(tk, project, max_watches):
    """Starts the agent in its own user namespace whose inotify watch limit is `max_watches`.

    `user.max_inotify_watches` is per user namespace, so this never lowers the limit for other
    processes on the machine (fs.inotify.max_user_watches is left alone).
    """
    if not shutil.which("unshare"):
        pytest.skip("unshare not installed")
    probe = subprocess.run(["unshare", "-U", "-r", "sh", "-c", "echo 5 > /proc/sys/user/max_inotify_watches"],
                           capture_output=True, timeout=10)
    if probe.returncode != 0:
        pytest.skip(f"cannot set a per-namespace inotify limit: {probe.stderr.decode(errors='replace').strip()}")
    log_path = tk.root / f"agent-{len(tk.agents)}.log"
    log = open(log_path, "wb")
    script = f'echo {max_watches} > /proc/sys/user/max_inotify_watches && exec "$0" "$@"'
    proc = subprocess.Popen(["unshare", "-U", "-r", "sh", "-c", script, BIN, "run", "--log-level", "debug", str(project)],
                            env=tk.env, stdout=log, stderr=subprocess.STDOUT)
    proc.log_path = log_path
    tk.agents.append(proc)
    tk.wait_for(lambda: tk.status().get("running") and tk.idle(), timeout=30, what="agent to start", proc=proc)
    return proc


def test_watch_limit_is_reported_and_rescans_keep_the_index(tk):
    cfg = tk.config_home / "tk" / "config.json"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(json.dumps({"watch": {"settle_ms": 50, "rescan_minutes": 0.02}, "review": {"auto": False},
                               "notifications": {"enabled": False}}))
    p = tk.project()
    for d in ["a", "b", "c/d", "c/e", "f/g/h"]:
        write(p / d / "doc.md", f"# {d}\n\nstartword\n")
    agent = start_with_watch_limit(tk, p, 3)  # the project has 9 folders
    assert_index_matches(tk, p, agent)

    def reported():
        proj = tk.status()["projects"][0]
        probs = " ".join(proj["problems"])
        return "sysctl fs.inotify.max_user_watches" in probs and proj["watching"] is False
    tk.wait_for(reported, what="watch-limit problem in status", proc=agent)
    probs = tk.status()["projects"][0]["problems"]
    assert any("max_user_watches=3)" in x for x in probs), probs  # the limit that applies, not the host's

    # Changes anywhere, watched or not, reach the index through the periodic rescans.
    write(p / "f" / "g" / "h" / "deep.md", "# Deep\n\ndeepword\n")
    write(p / "c" / "e" / "new" / "n.md", "# N\n\nnewdirword\n")
    (p / "a" / "doc.md").unlink()
    search_is(tk, agent, "deepword", ["f/g/h/deep.md"], what="unwatched change found by a rescan")
    search_is(tk, agent, "newdirword", ["c/e/new/n.md"])
    assert_index_matches(tk, p, agent)
    assert agent.poll() is None


def test_project_root_named_through_a_symlink(tk):
    real = tk.project("realroot")
    write(real / "a.md", "# A\n\nThe alpha was written by me.\n")
    link = tk.root / "linkroot"
    os.symlink(real, link)
    # `index` and `run` accept the link; the project keeps the name the user gave.
    tk.run("index", link)
    assert tk.indexed_paths(link) == ["a.md"]
    tk.run("watch", "add", link)
    assert [x["path"] for x in tk.json("watch", "list", "--json")] == [str(link)]
    agent = tk.start(str(link) + "/")
    assert tk.status()["projects"][0]["path"] == str(link)
    write(real / "d" / "b.md", "# B\n\nbetaword\n")
    search_is(tk, agent, "betaword", ["d/b.md"])
    tk.wait_for(lambda: (real / ".tk" / "d" / "b.md.review.json").exists(), proc=agent, what="sidecar via the link")
    assert tk.status()["projects"][0]["problems"] == []
    # Links below the root are still not followed.
    os.symlink(real / "d", real / "dlink")
    write(real / "d" / "c.md", "# C\n\ncword\n")
    search_is(tk, agent, "cword", ["d/c.md"])


def test_project_watch_ignore_edited_while_running(tk):
    p = tk.project()
    write(p / "pub" / "a.md", "# A\n\npublicword\n")
    write(p / "secret" / "b.md", "# B\n\nsecretword\n")
    agent = tk.start(p)
    assert tk.indexed_paths() == ["pub/a.md", "secret/b.md"]
    (p / ".tk").mkdir(exist_ok=True)
    (p / ".tk" / "config.json").write_text(json.dumps({"watch": {"ignore": ["secret/"]}}))
    search_is(tk, agent, "secretword", [], what="ignored folder dropped without a restart")
    assert tk.indexed_paths() == ["pub/a.md"]
    # New files there stay out; elsewhere they still come in.
    write(p / "secret" / "c.md", "# C\n\nsecretword too\n")
    write(p / "pub" / "d.md", "# D\n\npublicword too\n")
    search_is(tk, agent, "publicword", ["pub/a.md", "pub/d.md"])
    assert tk.search_paths("secretword") == []
    # The ignore removed again: the folder comes back.
    (p / ".tk" / "config.json").write_text(json.dumps({"watch": {"ignore": []}}))
    search_is(tk, agent, "secretword", ["secret/b.md", "secret/c.md"])
    write(p / "secret" / "e.md", "# E\n\nsecretword again\n")
    search_is(tk, agent, "secretword", ["secret/b.md", "secret/c.md", "secret/e.md"])


def test_idle_agent_uses_no_cpu(tk):
    p = tk.project()
    for i in range(50):
        write(p / f"d{i % 5}" / f"f{i}.md", f"# F{i}\n\nword{i}\n")
    agent = tk.start(p)
    time.sleep(0.5)  # let the first scan's tail (status writes) finish

    def cpu_ticks():
        fields = pathlib.Path(f"/proc/{agent.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime
    before = cpu_ticks()
    time.sleep(3)
    used = cpu_ticks() - before
    assert used <= 3, f"idle agent used {used} clock ticks in 3 s (polling?)"
    rss_kb = int(next(line.split()[1] for line in pathlib.Path(f"/proc/{agent.pid}/status").read_text().splitlines()
                      if line.startswith("VmRSS:")))
    assert rss_kb < 100_000, rss_kb  # 60 MB is the release target; debug builds are larger


def test_project_folder_deleted_and_recreated(tk):
    cfg = tk.config_home / "tk" / "config.json"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(json.dumps({"watch": {"settle_ms": 50, "rescan_minutes": 0.02}, "review": {"auto": False},
                               "notifications": {"enabled": False}}))
    p = tk.project()
    write(p / "a.md", "# A\n\nfirstlife\n")
    agent = tk.start(p)
    assert tk.search_paths("firstlife") == ["a.md"]
    shutil.rmtree(p)
    tk.wait_for(lambda: tk.indexed_paths() == [], what="documents of a deleted project gone", proc=agent)
    tk.wait_for(lambda: any("missing" in x for x in tk.status()["projects"][0]["problems"]), proc=agent,
                what="missing folder reported")
    assert tk.status()["projects"][0]["watching"] is False
    # Recreated (a restore from backup, a fresh clone): watched again without a restart.
    write(p / "b.md", "# B\n\nsecondlife\n")
    search_is(tk, agent, "secondlife", ["b.md"], what="recreated project indexed")
    tk.wait_for(lambda: not any("missing" in x for x in tk.status()["projects"][0]["problems"]), proc=agent,
                what="problem cleared")
    assert tk.status()["projects"][0]["watching"] is True
    write(p / "sub" / "c.md", "# C\n\nthirdword\n")
    search_is(tk, agent, "thirdword", ["sub/c.md"])
