"""The fault scenarios. Each takes (workdir, rng, size) and returns a Row: trials and losses.

A loss is anything the agent promised and did not keep: a document missing from the index or
indexed with the wrong digest, a missing, stale, truncated or orphaned sidecar, a damaged
database, a round queued and never finished (or finished twice), a suggestion lost or
duplicated, a provider call repeated for content that already had a finished round, a crash or a
hang, a problem the user is not told about, a recovery that needs a restart."""
import dataclasses
import hashlib
import json
import os
import pathlib
import shutil
import socket
import sqlite3
import subprocess
import tarfile
import time

from harness import (Failure, Home, all_sidecars, compare_index, disk_documents, read_sidecar, wait_for)
import generated_corpus  # noqa: E402 (Tests/e2e, put on the path by harness)


@dataclasses.dataclass
class Row:
    scenario: str
    trials: int = 0
    losses: int = 0
    notes: list = dataclasses.field(default_factory=list)
    skipped: str | None = None
    seconds: float = 0.0


# The full form (run.py --full --corpora DIR, which bench/faults runs) uses the medium corpus archive
# in DIR; the quick form (./scripts/test) a generated folder, so that a clone with nothing beside it passes.
FULL = False
CORPORA: pathlib.Path | None = None


def corpus(name, workdir):
    """The corpus folder: in the full form CORPORA/<name>.tar.zst unpacked (cached in /tmp/corpora;
    None when there is no such archive), else 600 generated notes in nested folders."""
    if not FULL:
        out = workdir / "generated-corpus"
        if not out.is_dir():
            generated_corpus.notes_tree(out, n=600, seed=name)
        return out
    cached = pathlib.Path("/tmp/corpora") / name
    if cached.is_dir():
        return cached
    if CORPORA is None:
        return None
    archive = CORPORA / f"{name}.tar.zst"
    if not archive.exists():
        return None
    cached.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(f"zstd -dc '{archive}' | tar -x -C /tmp/corpora", shell=True, check=True)
    return cached


def random_edits(root: pathlib.Path, rng, n):
    """Edits, renames, deletes and new files, as a writer does while the agent is down."""
    docs = sorted(disk_documents(root))
    for i in range(n):
        if not docs:
            break
        rel = rng.choice(docs)
        path = pathlib.Path(os.fsdecode(os.fsencode(root) + b"/" + rel))
        op = rng.choice(["edit", "edit", "rename", "delete", "new"])
        try:
            if op == "edit":
                with open(path, "a") as f:
                    f.write(f"\nAn edit made while the agent was down, number {rng.randrange(10**9)}.\n")
            elif op == "rename":
                new = path.with_name(f"renamed-{rng.randrange(10**9)}.md")
                path.rename(new)
                docs.remove(rel)
            elif op == "delete":
                path.unlink()
                docs.remove(rel)
            else:
                path.with_name(f"new-{rng.randrange(10**9)}.md").write_text(
                    f"# New\n\nA new note written while the agent was down ({rng.randrange(10**9)}).\n")
        except FileNotFoundError:
            pass


# -- kill -9 during a first index ----------------------------------------------------------------
def kill_during_index(workdir: pathlib.Path, rng, kills):
    row = Row(f"kill -9 during a first index ({'medium corpus' if FULL else '600 generated notes'})")
    src = corpus("medium", workdir)
    if src is None:
        row.skipped = f"no medium.tar.zst in --corpora {CORPORA} (the full form needs the corpora archives)"
        return row
    proj = workdir / "medium"
    home = Home(workdir / "home-index")
    per_cycle = 5
    done = 0
    while done < kills:
        # A fresh first index: no data folder, no sidecars.
        shutil.rmtree(proj, ignore_errors=True)
        shutil.copytree(src, proj, symlinks=True)
        shutil.rmtree(home.data, ignore_errors=True)
        for _ in range(min(per_cycle, kills - done)):
            home.start(proj)
            time.sleep(rng.uniform(0.2, 4.0))
            if not home.alive():
                row.notes.append(f"the agent exited by itself: {home.logs()[-500:]}")
                row.losses += 1
            home.kill9()
            random_edits(proj, rng, rng.randrange(1, 12))
            done += 1
            row.trials += 1
        home.start(proj)
        try:
            home.wait_idle(timeout=900)
        except Failure as e:
            row.losses += 1
            row.notes.append(str(e))
            home.kill9()
            continue
        home.stop()
        losses, notes = compare_index(home, proj)
        row.losses += losses
        row.notes += notes
    shutil.rmtree(proj, ignore_errors=True)
    return row


# -- kill -9 during review rounds ----------------------------------------------------------------
DOC = """# Note {n}

The cat sat on the mat and looked very happy about it.
It was a really nice day, and the sun was shining on everything.
Marker {marker} keeps this version apart from every other one.
"""


def kill_during_rounds(workdir: pathlib.Path, rng, kills):
    from fakellm import FakeLLM
    row = Row("kill -9 during review rounds (fake provider, latency, streaming)")
    fake = FakeLLM().start()
    try:
        proj = workdir / "rounds"
        proj.mkdir(parents=True, exist_ok=True)
        home = Home(workdir / "home-rounds", config={
            **fake.config("anthropic"),
            "review": {"auto": False, "max_concurrent": 2, "quiet_seconds": 0.2, "stall_seconds": 5,
                       "request_timeout_seconds": 60, "daily_budget_usd": 1000},
        })

        def reply():
            items = [{"advisor_id": "editor", "type": "rephrase", "original_text": "The cat sat on the mat",
                      "suggested_text": "The cat lounged on the mat", "reasoning": "livelier", "priority": 1,
                      "confidence": 0.8},
                     {"advisor_id": "editor", "type": "rephrase", "original_text": "really nice day",
                      "suggested_text": "bright day", "reasoning": "concrete", "priority": 2, "confidence": 0.7}]
            return fake.suggestions(items, delay=rng.uniform(0.1, 1.5), chunk=6, split_utf8=True)

        fake.default("anthropic", reply())
        env = fake.env()
        queued = {}      # rel -> marker
        finished_before = []   # (request index at restart, set of markers with a done round)
        n = 0
        for trial in range(kills):
            home.start(proj, env=env)
            home.wait_idle(timeout=120)
            batch = []
            for _ in range(rng.randrange(2, 5)):
                n += 1
                rel = f"note-{n}.md"
                marker = f"m{n}x{rng.randrange(10**6)}"
                (proj / rel).write_text(DOC.format(n=n, marker=marker))
                batch.append((rel, marker))
            for rel, _ in batch:
                wait_for(lambda: read_sidecar(proj, rel.encode()) is not None, timeout=60, what=f"sidecar of {rel}",
                         check=home.check_alive)
            for rel, marker in batch:
                fake.default("anthropic", reply())
                r = home.run("review", proj / rel, "--now", env=env, timeout=60)
                if r.returncode == 0:
                    queued[rel] = marker
                else:
                    row.notes.append(f"review {rel} refused: {r.stderr.decode(errors='replace').strip()}")
            time.sleep(rng.uniform(0.0, 2.5))
            home.kill9()
            row.trials += 1
            # While it is down: which contents already have a finished round.
            done_markers = {m for rel, m in queued.items()
                            if any(x.get("status") == "done" for x in (read_sidecar(proj, rel.encode()) or {}).get("rounds", []))}
            finished_before.append((len(fake.requests_for("anthropic")), done_markers))
        home.start(proj, env=env)
        home.wait_idle(timeout=120)

        def all_done():
            home.check_alive()
            q = home.status().get("queue", {})
            return q.get("queued", 1) == 0 and q.get("running", 1) == 0 and q.get("waiting", 1) == 0
        try:
            wait_for(all_done, timeout=300, what="every queued round to finish")
        except Failure as e:
            row.losses += 1
            row.notes.append(str(e))
        home.stop()
        requests = fake.requests_for("anthropic")
        for rel, marker in queued.items():
            s = read_sidecar(proj, rel.encode()) or {}
            rounds = s.get("rounds", [])
            done = [x for x in rounds if x.get("status") == "done"]
            if len(done) != 1 or len(rounds) != 1:
                row.losses += 1
                row.notes.append(f"{rel}: rounds {[(x.get('id'), x.get('status'), x.get('error')) for x in rounds]}")
                continue
            sugg = [x for x in s.get("suggestions", []) if x.get("round") == done[0]["id"]]
            texts = sorted(x.get("original_text") for x in sugg)
            if texts != ["The cat sat on the mat", "really nice day"]:
                row.losses += 1
                row.notes.append(f"{rel}: suggestions {texts}")
        for start, markers in finished_before:
            for req in requests[start:]:
                body = json.dumps(req.get("json"))
                repeated = [m for m in markers if m in body]
                if repeated:
                    row.losses += 1
                    row.notes.append(f"a call repeated for content with a finished round: {repeated}")
        row.notes.append(f"{len(queued)} rounds queued, {len(requests)} provider calls")
        losses, notes = compare_index(home, proj)
        row.losses += losses
        row.notes += notes
    finally:
        fake.stop()
    return row


# -- full disks ------------------------------------------------------------------------------------
def mount_tmpfs(path: pathlib.Path, size: str):
    path.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path)],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return r.stderr.strip() or f"mount exited {r.returncode}"
    return None


def umount(path):
    subprocess.run(["umount", "-l", str(path)], capture_output=True)


def fill(path: pathlib.Path):
    """Fills the file system of `path` to the last byte with one file (returns it)."""
    filler = path / ".filler"
    # Unbuffered: a buffered file would raise ENOSPC again when it is closed.
    with open(filler, "wb", buffering=0) as f:
        for block in (b"\xff" * 65536, b"\xff"):
            try:
                while f.write(block):
                    pass
            except OSError:
                pass
    return filler


def can_mount():
    if os.geteuid() != 0:
        return "not root: cannot mount tmpfs"
    return None


def project_problems(status, root):
    out = list(status.get("problems", []))
    for p in status.get("projects", []):
        out += p.get("problems", [])
    return out


def valid_sidecars(root):
    """Sidecars that are not complete JSON (truncated or half-written)."""
    bad = []
    for rel, raw in all_sidecars(root).items():
        try:
            json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            bad.append(rel)
    return bad


def full_disk(workdir: pathlib.Path, rng, trials):
    row = Row("full disk: index, sidecar write, round (tmpfs)")
    reason = can_mount()
    if reason:
        row.skipped = reason
        return row
    from fakellm import FakeLLM
    datamnt, projmnt = workdir / "datadisk", workdir / "projdisk"
    for m in (datamnt, projmnt):
        err = mount_tmpfs(m, "24m")
        if err:
            row.skipped = f"cannot mount tmpfs: {err}"
            umount(datamnt)
            return row
    fake = FakeLLM().start()
    try:
        proj = projmnt / "proj"
        proj.mkdir()
        for i in range(20):
            (proj / f"doc{i}.md").write_text(DOC.format(n=i, marker=f"base{i}"))
        home = Home(workdir / "home-full", data=datamnt,
                    config={**fake.config("anthropic"),
                            "review": {"auto": False, "stall_seconds": 5, "daily_budget_usd": 1000}})
        env = fake.env()
        home.start(proj, env=env)
        home.wait_idle()
        for trial in range(trials):
            # 1. The data disk fills while new documents arrive.
            row.trials += 1
            filler = fill(datamnt)
            for i in range(15):
                (proj / f"t{trial}-new{i}.md").write_text(DOC.format(n=i, marker=f"full{trial}-{i}") * 20)
            try:
                st = wait_for(lambda: any("no space left" in p for p in project_problems(home.status(), proj))
                              and home.status(), timeout=60, what="a 'no space left' problem in status",
                              check=home.check_alive)
                probs = [p for p in project_problems(st, proj) if "space" in p]
                if len(probs) != 1:
                    row.notes.append(f"expected one problem, got {probs[:4]}")
                    row.losses += 1
            except Failure as e:
                row.losses += 1
                row.notes.append(f"index on a full disk: {e}; status problems {project_problems(home.status(), proj)[:3]}")
            if home.integrity() != ["ok"]:
                row.losses += 1
                row.notes.append("database damaged while the disk was full")
            filler.unlink()
            try:
                wait_for(lambda: not any("space" in p for p in project_problems(home.status(), proj))
                         and home.status().get("index", {}).get("pending", 1) == 0, timeout=60,
                         what="catch-up after space returned", check=home.check_alive)
                losses, notes = compare_index(home, proj)
                row.losses += losses
                row.notes += notes
            except Failure as e:
                row.losses += 1
                row.notes.append(f"no catch-up without a restart: {e}")

            # 2. The project disk fills while documents are edited (sidecar writes).
            row.trials += 1
            filler = fill(projmnt)
            docs = sorted(p for p in proj.glob("*.md"))
            for p in docs[:10]:
                try:
                    with open(p, "a") as f:
                        f.write("x")
                except OSError:
                    pass
            time.sleep(1.5)
            home.check_alive()
            bad = valid_sidecars(proj)
            if bad:
                row.losses += len(bad)
                row.notes.append(f"truncated sidecars on a full disk: {bad[:3]}")
            probs = [p for p in project_problems(home.status(), proj) if "space" in p or "sidecar" in p]
            if not probs:
                row.notes.append("no problem shown while sidecars could not be written")
                row.losses += 1
            filler.unlink()
            try:
                wait_for(lambda: compare_index(home, proj)[0] == 0, timeout=60, what="sidecars to catch up",
                         check=home.check_alive)
            except Failure as e:
                row.losses += 1
                row.notes.append(f"sidecars did not catch up without a restart: {compare_index(home, proj)[1]}")

            # 3. The data disk fills while a round runs.
            row.trials += 1
            target = proj / f"round{trial}.md"
            target.write_text(DOC.format(n=trial, marker=f"round{trial}"))
            wait_for(lambda: read_sidecar(proj, target.name.encode()) is not None, timeout=60, what="sidecar",
                     check=home.check_alive)
            fake.enqueue("anthropic", fake.suggestions([
                {"advisor_id": "editor", "type": "rephrase", "original_text": "The cat sat on the mat",
                 "suggested_text": "The cat lounged", "reasoning": "x", "priority": 1, "confidence": 0.8}], delay=1.5))
            fake.default("anthropic", fake.suggestions([
                {"advisor_id": "editor", "type": "rephrase", "original_text": "The cat sat on the mat",
                 "suggested_text": "The cat lounged", "reasoning": "x", "priority": 1, "confidence": 0.8}]))
            home.run("review", target, "--now", env=env, timeout=60)
            time.sleep(0.5)
            filler = fill(datamnt)
            time.sleep(3)
            home.check_alive()
            if home.integrity() != ["ok"]:
                row.losses += 1
                row.notes.append("database damaged by a round on a full disk")
            filler.unlink()
            try:
                wait_for(lambda: any(x.get("status") == "done"
                                     for x in (read_sidecar(proj, target.name.encode()) or {}).get("rounds", [])),
                         timeout=90, what="the round to finish after space returned", check=home.check_alive)
                s = read_sidecar(proj, target.name.encode())
                if len([x for x in s["rounds"] if x["status"] == "done"]) != 1 or not s["suggestions"]:
                    row.losses += 1
                    row.notes.append(f"round after a full disk: {s['rounds']}, {len(s['suggestions'])} suggestions")
            except Failure as e:
                row.losses += 1
                row.notes.append(f"{e}: rounds {(read_sidecar(proj, target.name.encode()) or {}).get('rounds')}")
        home.stop()
    finally:
        if "home" in locals():
            home.kill9()
        fake.stop()
        umount(datamnt)
        umount(projmnt)
    return row


# -- read-only and vanishing places ------------------------------------------------------------------
NOBODY = 65534


def vanishing(workdir: pathlib.Path, rng, trials):
    row = Row("read-only .tk and data folder, project deleted and recreated, runtime dir removed")
    if os.geteuid() != 0:
        row.skipped = "not root: cannot run the agent as another user (root ignores file modes)"
        return row
    proj = workdir / "vanish"
    proj.mkdir(parents=True, exist_ok=True)
    for i in range(10):
        (proj / f"doc{i}.md").write_text(DOC.format(n=i, marker=f"v{i}"))
    home = Home(workdir / "home-vanish", uid=NOBODY)
    os.chmod(workdir, 0o755)
    subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(proj)], check=True)

    def as_user(*cmd):
        subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "--", *cmd], check=True)

    def write_doc(name, marker):
        as_user("sh", "-c", f"printf '%s' \"$0\" > '{proj / name}'", DOC.format(n=0, marker=marker))

    home.start(proj)
    home.wait_idle()
    for trial in range(trials):
        # The sidecar folder and the data folder read-only (a sync tool, a mistaken chmod).
        row.trials += 1
        os.chmod(proj / ".tk", 0o555)
        os.chmod(home.data, 0o555)
        for i in range(5):
            write_doc(f"ro{trial}-{i}.md", f"ro{trial}{i}")
        try:
            wait_for(lambda: any("cannot write" in p or "ermission" in p for p in project_problems(home.status(), proj)),
                     timeout=60, what="a permission problem in status", check=home.check_alive)
        except Failure as e:
            row.losses += 1
            row.notes.append(f"{e}: {project_problems(home.status(), proj)[:3]}")
        os.chmod(proj / ".tk", 0o755)
        os.chmod(home.data, 0o700)
        try:
            wait_for(lambda: compare_index(home, proj)[0] == 0 and not any(
                "cannot write" in p or "ermission" in p for p in project_problems(home.status(), proj)),
                     timeout=60, what="recovery once writable again", check=home.check_alive)
        except Failure as e:
            row.losses += 1
            row.notes.append(f"{e}: {compare_index(home, proj)[1]} {project_problems(home.status(), proj)[:3]}")

        # The project deleted, then recreated with other content.
        row.trials += 1
        shutil.rmtree(proj)
        try:
            wait_for(lambda: any("missing" in p for p in project_problems(home.status(), proj)), timeout=60,
                     what="a 'folder missing' problem", check=home.check_alive)
        except Failure as e:
            row.losses += 1
            row.notes.append(str(e))
        proj.mkdir()
        os.chown(proj, NOBODY, NOBODY)
        for i in range(6):
            write_doc(f"back{trial}-{i}.md", f"back{trial}{i}")
        try:
            wait_for(lambda: compare_index(home, proj)[0] == 0 and not any(
                "missing" in p for p in project_problems(home.status(), proj)), timeout=90,
                what="the recreated project to be indexed", check=home.check_alive)
        except Failure as e:
            row.losses += 1
            row.notes.append(f"{e}: {compare_index(home, proj)[1]}")

        # The runtime folder removed (a tmp cleaner, a logout).
        row.trials += 1
        shutil.rmtree(home.runtime / "tk-agent", ignore_errors=True)
        write_doc(f"rt{trial}.md", f"rt{trial}")
        try:
            wait_for(lambda: home.status().get("running") and compare_index(home, proj)[0] == 0, timeout=60,
                     what="status and indexing after the runtime folder was removed", check=home.check_alive)
        except Failure as e:
            row.losses += 1
            row.notes.append(f"{e}: status {home.status().get('running')}")
    home.stop()
    return row


# -- odd files ---------------------------------------------------------------------------------------
def odd_files(workdir: pathlib.Path, rng, big_folder):
    row = Row("odd files: binary, empty, 50 MB, FIFO, socket, bad names, loops, 10k in a folder, 200 deep")
    proj = workdir / "odd"
    shutil.rmtree(proj, ignore_errors=True)
    proj.mkdir(parents=True)
    (proj / "empty.md").write_bytes(b"")
    (proj / "binary.md").write_bytes(bytes(rng.randrange(256) for _ in range(8192)))
    (proj / "nul.md").write_bytes(b"# Title\n\nText\0with a NUL byte.\n")
    with open(proj / "huge.md", "wb") as f:
        f.write(b"# Huge\n\n" + (b"A long line of prose that goes on. " * 30000 + b"\n") * 50)  # ~52 MB
    os.mkfifo(proj / "fifo.md")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(proj / "socket.md"))
    (proj / "new\nline.md").write_text("# Newline\n\nA name with a newline.\n")
    with open(os.fsencode(proj) + b"/bad-\xff\xfe.md", "wb") as f:
        f.write(b"# Bad name\n\nA name that is not UTF-8.\n")
    (proj / "nfc-\u00e9.md").write_text("# NFC\n\nComposed.\n")
    (proj / "nfd-e\u0301.md").write_text("# NFD\n\nDecomposed.\n")
    (proj / "loop").mkdir()
    os.symlink("..", proj / "loop" / "up")
    os.symlink("a.md", proj / "b.md")
    os.symlink("b.md", proj / "a.md")
    os.symlink("selfloop", proj / "selfloop")
    big = proj / "big"
    big.mkdir()
    for i in range(big_folder):
        (big / f"n{i:05d}.md").write_text(f"# Note {i}\n\nShort note number {i}.\n")
    deep = proj
    for i in range(200):
        deep = deep / "d"
    deep.mkdir(parents=True)
    (deep / "bottom.md").write_text("# Bottom\n\nTwo hundred folders down.\n")
    row.trials = 1
    home = Home(workdir / "home-odd")
    try:
        home.start(proj)
        home.wait_idle(timeout=900)
        losses, notes = compare_index(home, proj)
        row.losses += losses
        row.notes += notes
        probs = project_problems(home.status(), proj)
        for name in ("binary.md", "nul.md"):
            if not any(name in p and "not a text file" in p for p in probs):
                row.losses += 1
                row.notes.append(f"{name}: no 'not a text file' problem ({probs[:4]})")
        if not any("huge.md" in p for p in probs):
            row.losses += 1
            row.notes.append("huge.md: no 'too large' problem")
        # Still alive and still watching after all that.
        (proj / "after.md").write_text("# After\n\nStill watching.\n")
        wait_for(lambda: compare_index(home, proj, check_sidecars=False)[0] == 0, timeout=60,
                 what="a new document after the odd files", check=home.check_alive)
        home.stop()
    except Failure as e:
        row.losses += 1
        row.notes.append(str(e))
        home.kill9()
    finally:
        sock.close()
        shutil.rmtree(proj, ignore_errors=True)
    return row


# -- SIGTERM and SIGKILL at random moments -----------------------------------------------------------
SOAK_WORDS = ("the keeper climbed slowly up the stairs of the lighthouse while rain very basically fell on "
              "every window and a really quiet sea waited below for morning light to come at last").split()


def soak_corpus(root: pathlib.Path, rng, n):
    """n generated documents (a few KB each) in nested folders: data made here, not read from a corpus."""
    for i in range(n):
        folder = root / f"book-{i % 7}" / f"part-{i % 11:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        paras = [" ".join(rng.choice(SOAK_WORDS) for _ in range(rng.randrange(25, 80))).capitalize() + "."
                 for _ in range(rng.randrange(3, 12))]
        (folder / f"scene-{i:05d}.md").write_text(f"# Scene {i}\n\n" + "\n\n".join(paras) + "\n")


class HashEmbeddings:
    """A stand-in embedding model for embedserver.py's handler: a vector from the text's digest (no
    weights to install); what the soak checks is that every passage gets one, once."""
    name = "wordllama-embed"

    def embed(self, texts):
        out = []
        for t in texts:
            d = hashlib.sha256(t.encode()).digest()
            out.append([(b - 127.5) / 127.5 for b in d * 2])
        return out


def start_embed_server(log):
    import threading
    from http.server import ThreadingHTTPServer
    import embedserver
    state = embedserver.State(str(log), 0, HashEmbeddings())
    srv = ThreadingHTTPServer(("127.0.0.1", 0), embedserver.make_handler(state))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def crashed(home, proc, sent):
    """A crash: an exit by a signal other than the one sent, or a fatal error in the log."""
    log = home.logs()
    rc = proc.returncode
    if rc is not None and rc < 0 and -rc != sent:
        return f"exited by signal {-rc}"
    for mark in ("Fatal error", "Illegal instruction", "Segmentation fault", "core dumped"):
        if mark in log:
            return f"{mark!r} in the log: {log[-600:]}"
    return None


def signal_soak(workdir: pathlib.Path, rng, trials):
    """SIGTERM (must exit 0 within 2 s) and SIGKILL at random moments of first scans, rescans after
    edits, review rounds and embedding batches; at the end, nothing lost and nothing done twice."""
    from fakellm import FakeLLM
    import signal as sig
    row = Row("SIGTERM and SIGKILL at random moments (scans, rounds, embedding batches)")
    fake = FakeLLM().start()
    embeds = start_embed_server(workdir / "embed.jsonl")
    try:
        proj = workdir / "soak"
        proj.mkdir(parents=True, exist_ok=True)
        home = Home(workdir / "home-soak", config={
            **fake.config("anthropic"),
            "review": {"auto": False, "max_concurrent": 2, "quiet_seconds": 0.2, "stall_seconds": 5,
                       "request_timeout_seconds": 60, "daily_budget_usd": 1000},
            "embeddings": {"provider": "ollama", "base_url": f"http://127.0.0.1:{embeds.server_address[1]}"},
        })

        def reply():
            items = [{"advisor_id": "editor", "type": "rephrase", "original_text": "The cat sat on the mat",
                      "suggested_text": "The cat lounged on the mat", "reasoning": "livelier", "priority": 1,
                      "confidence": 0.8}]
            return fake.suggestions(items, delay=rng.uniform(0.1, 1.0), chunk=6)

        fake.default("anthropic", reply())
        env = fake.env()
        n_docs = 1500 if trials <= 6 else 3000
        soak_corpus(proj, rng, n_docs)
        queued = {}
        for trial in range(trials):
            if trial % 3 == 0 and trial:
                # A new first scan: the data folder and the sidecars go.
                shutil.rmtree(home.data, ignore_errors=True)
                shutil.rmtree(proj / ".tk", ignore_errors=True)
                queued.clear()
            proc = home.start(proj, env=env)
            # Sometimes a round to interrupt (once the agent has settled the note's sidecar).
            if rng.random() < 0.4:
                try:
                    home.wait_idle(timeout=300)
                    rel = f"note-{trial}.md"
                    (proj / rel).write_text(DOC.format(n=trial, marker=f"s{trial}x{rng.randrange(10**6)}"))
                    wait_for(lambda: read_sidecar(proj, rel.encode()) is not None, timeout=60,
                             what=f"sidecar of {rel}", check=home.check_alive)
                    if home.run("review", proj / rel, "--now", env=env, timeout=60).returncode == 0:
                        queued[rel] = True
                except Failure as e:
                    row.losses += 1
                    row.notes.append(f"trial {trial}: {e}")
            # From the moment it runs (a signal while the process image loads, before any code of
            # ours, ends it by the default action: nothing has started then).
            try:
                wait_for(lambda: home.status().get("running"), timeout=60, what="the agent to start", interval=0.05,
                         check=home.check_alive)
            except Failure as e:
                row.losses += 1
                row.notes.append(f"trial {trial}: {e}")
            time.sleep(rng.uniform(0.0, 3.0))
            if not home.alive():
                row.losses += 1
                row.notes.append(f"trial {trial}: the agent exited by itself: {home.logs()[-500:]}")
                continue
            which = rng.choice([sig.SIGTERM, sig.SIGTERM, sig.SIGINT, sig.SIGKILL])
            t0 = time.time()
            proc.send_signal(which)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            took = time.time() - t0
            row.trials += 1
            why = crashed(home, proc, which)
            if why:
                row.losses += 1
                row.notes.append(f"trial {trial} ({which.name}): crash: {why}")
            elif which != sig.SIGKILL and (proc.returncode != 0 or took > 2.0):
                row.losses += 1
                row.notes.append(f"trial {trial} ({which.name}): exit {proc.returncode} after {took:.2f} s")
            random_edits(proj, rng, rng.randrange(0, 8))
        # The last start finishes everything: index, sidecars, rounds, embeddings.
        home.start(proj, env=env)

        def settled():
            home.check_alive()
            s = home.status()
            q, e = s.get("queue", {}), s.get("embeddings") or {}
            return (s.get("running") and s.get("index", {}).get("pending", 1) == 0
                    and q.get("queued", 1) == 0 and q.get("running", 1) == 0 and q.get("waiting", 1) == 0
                    and e.get("state") == "idle" and e.get("pending", 1) == 0)
        try:
            wait_for(settled, timeout=600, what="the index, the rounds and the embeddings to settle")
        except Failure as e:
            row.losses += 1
            row.notes.append(str(e))
        t0 = time.time()
        home.stop()
        if home.agent.returncode != 0 or time.time() - t0 > 2.0:
            row.losses += 1
            row.notes.append(f"final stop: exit {home.agent.returncode} after {time.time() - t0:.2f} s")
        for rel in queued:
            s = read_sidecar(proj, rel.encode()) or {}
            done = [x for x in s.get("rounds", []) if x.get("status") == "done"]
            if os.path.exists(proj / rel) and len(done) != 1:
                row.losses += 1
                row.notes.append(f"{rel}: rounds {[(x.get('id'), x.get('status')) for x in s.get('rounds', [])]}")
        # Every document has its retrieval passages for its indexed content (the embeddings of
        # those passages are what `settled` waited for: none pending).
        con = sqlite3.connect(f"file:{home.db}?mode=ro", uri=True, timeout=30)
        try:
            missing = con.execute("SELECT count(*) FROM document c LEFT JOIN document_retrieval r ON r.document_id = c.id "
                                  "WHERE c.in_index = 1 AND (r.document_id IS NULL OR r.sha256 != c.sha256)").fetchone()[0]
        finally:
            con.close()
        if missing:
            row.losses += missing
            row.notes.append(f"{missing} documents without their passages")
        losses, notes = compare_index(home, proj)
        row.losses += losses
        row.notes += notes
        row.notes.append(f"{len(queued)} rounds queued, {n_docs} generated documents")
    finally:
        fake.stop()
        embeds.shutdown()
    return row
