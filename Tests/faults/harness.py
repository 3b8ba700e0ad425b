"""The fault suite's harness: runs the tk-agent binary (TK_AGENT_BIN, the release build) in an
isolated home, and checks its results from the outside only: the SQLite index, the sidecars,
`status --json`. Nothing here knows the agent's internals, so the suite survives refactoring."""
import hashlib
import json
import os
import pathlib
import signal
import sqlite3
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "Tests" / "e2e"))

BIN = os.environ.get("TK_AGENT_BIN") or str(REPO / ".build/release/tk-agent")
MAX_FILE_BYTES = 10 * 1024 * 1024


class Home:
    """An isolated tk-agent environment. `data_home` puts the data folder under XDG_DATA_HOME (so the
    runtime folder stays in XDG_RUNTIME_DIR, apart from a data disk that may be full)."""

    def __init__(self, root: pathlib.Path, data: pathlib.Path | None = None, config=None, uid=None):
        self.root = root
        # Run the binary as this user (root ignores file modes, so read-only tests need another user).
        self.prefix = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"] if uid is not None else []
        self.home = root / "home"
        self.config_home = self.home / ".config"
        self.runtime = root / "run"
        self.data_home = data or (root / "datahome")
        for d in (self.home, self.config_home, self.runtime, self.data_home):
            d.mkdir(parents=True, exist_ok=True)
        os.chmod(self.runtime, 0o700)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "XDG_CONFIG_HOME": str(self.config_home),
            "XDG_DATA_HOME": str(self.data_home),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "NO_COLOR": "1",
        }
        self.agent = None
        self.log_n = 0
        self.write_config(config or {})
        if uid is not None:
            for d in (self.root, self.data_home):
                subprocess.run(["chown", "-R", f"{uid}:{uid}", str(d)], check=True)

    @property
    def data(self):
        return self.data_home / "tk-agent"

    @property
    def db(self):
        return self.data / "index.sqlite"

    def write_config(self, extra):
        cfg = {"watch": {"settle_ms": 50}, "review": {"auto": False}, "notifications": {"enabled": False}}
        for k, v in extra.items():
            cfg[k] = {**cfg.get(k, {}), **v} if isinstance(v, dict) and isinstance(cfg.get(k), dict) else v
        p = self.config_home / "tk" / "config.json"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(cfg))

    # -- the binary ----------------------------------------------------------------------------
    def run(self, *args, env=None, timeout=120, check=False):
        e = {**self.env, **(env or {})}
        r = subprocess.run([*self.prefix, BIN, *map(str, args)], capture_output=True, env=e, timeout=timeout)
        if check and r.returncode != 0:
            raise RuntimeError(f"tk-agent {' '.join(map(str, args))} exited {r.returncode}: {r.stderr.decode(errors='replace')}")
        return r

    def status(self):
        try:
            r = self.run("status", "--json", timeout=60)
            return json.loads(r.stdout)
        except (json.JSONDecodeError, subprocess.TimeoutExpired):
            return {}

    def start(self, *projects, env=None):
        self.log_n += 1
        log = open(self.root / f"agent-{self.log_n}.log", "wb")
        self.agent = subprocess.Popen([*self.prefix, BIN, "run", "--log-level", "info", *map(str, projects)],
                                      env={**self.env, **(env or {})}, stdout=log, stderr=subprocess.STDOUT)
        self.agent.log_path = log.name
        return self.agent

    def alive(self):
        return self.agent is not None and self.agent.poll() is None

    def kill9(self):
        if self.alive():
            self.agent.send_signal(signal.SIGKILL)
            self.agent.wait(timeout=30)

    def stop(self):
        if self.alive():
            self.agent.send_signal(signal.SIGTERM)
            try:
                self.agent.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.agent.kill()
                self.agent.wait()

    def logs(self):
        try:
            return pathlib.Path(self.agent.log_path).read_text(errors="replace")[-3000:]
        except (OSError, AttributeError):
            return ""

    def wait_idle(self, timeout=300):
        return wait_for(lambda: self.alive() and (s := self.status()).get("running")
                        and s.get("index", {}).get("pending", 1) == 0 and s, timeout=timeout,
                        what="the agent to be idle", check=self.check_alive)

    def check_alive(self):
        if self.agent is not None and self.agent.poll() is not None:
            raise Failure(f"the agent exited with {self.agent.returncode}:\n{self.logs()}")

    # -- the index -----------------------------------------------------------------------------
    def indexed(self):
        """{(project path bytes, document path bytes): sha256} from the database (read-only)."""
        con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=30)
        try:
            # A deleted document's row stays, out of the index (in_index = 0), for its history.
            rows = con.execute("SELECT p.path, d.path, d.sha256 FROM document d JOIN project p ON p.id = d.project_id "
                               "WHERE d.in_index = 1").fetchall()
        finally:
            con.close()
        return {(bytes(p), bytes(d)): sha for p, d, sha in rows}

    def integrity(self):
        con = sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=30)
        try:
            return [r[0] for r in con.execute("PRAGMA integrity_check").fetchall()]
        finally:
            con.close()


class Failure(Exception):
    pass


def wait_for(cond, timeout=60, what="condition", interval=0.2, check=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = cond()
        if v:
            return v
        if check:
            check()
        time.sleep(interval)
    raise Failure(f"timed out after {timeout}s waiting for {what}")


# -- what the disk says ----------------------------------------------------------------------------
def is_document_name(rel: bytes) -> bool:
    parts = rel.split(b"/")
    if any(p.startswith(b".") or p == b"node_modules" for p in parts):
        return False
    name = parts[-1].lower()
    return name.endswith(b".md") or name.endswith(b".markdown")


def is_text(data: bytes) -> bool:
    if b"\0" in data:
        return False
    bad = len(data) - len(data.decode("utf-8", errors="ignore").encode("utf-8"))
    return not data or bad / len(data) <= 0.02


def disk_documents(root: pathlib.Path):
    """{relative path bytes: sha256} of what should be indexed: regular, text, not too large."""
    out = {}
    rootb = os.fsencode(root)
    for dirpath, dirnames, filenames in os.walk(rootb, followlinks=False):
        rel_dir = os.path.relpath(dirpath, rootb)
        dirnames[:] = [d for d in dirnames if not d.startswith(b".") and d != b"node_modules"]
        for f in filenames:
            rel = f if rel_dir == b"." else rel_dir + b"/" + f
            if not is_document_name(rel):
                continue
            full = os.path.join(dirpath, f)
            st = os.lstat(full)
            import stat as st_mod
            if not st_mod.S_ISREG(st.st_mode) or st.st_size > MAX_FILE_BYTES:
                continue
            data = open(full, "rb").read()
            if not is_text(data):
                continue
            out[rel] = hashlib.sha256(data).hexdigest()
    return out


def sidecar_path(root: pathlib.Path, rel: bytes) -> bytes:
    return os.fsencode(root) + b"/.tk/" + rel + b".review.json"


def read_sidecar(root, rel):
    try:
        with open(sidecar_path(root, rel), "rb") as f:
            return json.loads(f.read())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return None


def all_sidecars(root: pathlib.Path):
    """{relative document path bytes: raw sidecar bytes} for every sidecar under .tk/."""
    tk = os.fsencode(root) + b"/.tk"
    out = {}
    for dirpath, _, filenames in os.walk(tk):
        for f in filenames:
            if f.endswith(b".review.json"):
                full = os.path.join(dirpath, f)
                rel = os.path.relpath(full, tk)[: -len(b".review.json")]
                out[rel] = open(full, "rb").read()
    return out


def compare_index(home: Home, root: pathlib.Path, check_sidecars=True):
    """Losses: documents whose index entry or sidecar is missing, wrong or extra. Returns (losses, notes)."""
    want = disk_documents(root)
    rootb = os.fsencode(root.resolve())
    have = {d: sha for (p, d), sha in home.indexed().items() if p == rootb}
    notes = []
    missing = [d for d in want if d not in have]
    wrong = [d for d in want if d in have and have[d] != want[d]]
    extra = [d for d in have if d not in want]
    for name, items in (("missing from the index", missing), ("wrong digest", wrong), ("indexed but not on disk", extra)):
        if items:
            notes.append(f"{len(items)} {name}: {items[:3]}")
    losses = len(missing) + len(wrong) + len(extra)
    if check_sidecars:
        sidecars = all_sidecars(root)
        bad = []
        for d, sha in want.items():
            raw = sidecars.get(d)
            try:
                s = json.loads(raw) if raw is not None else None
            except (json.JSONDecodeError, UnicodeDecodeError):
                s = None
            if not s or s.get("schema") != "tk.review/1" or s.get("sha256") != sha:
                bad.append(d)
        orphans = [d for d in sidecars if d not in want and os.path.lexists(os.fsencode(root) + b"/" + d) is False]
        if bad:
            notes.append(f"{len(bad)} missing or stale sidecars: {bad[:3]}")
        if orphans:
            notes.append(f"{len(orphans)} sidecars of deleted documents: {orphans[:3]}")
        losses += len(bad) + len(orphans)
    integ = home.integrity()
    if integ != ["ok"]:
        notes.append(f"integrity_check: {integ[:3]}")
        losses += 1
    return losses, notes
