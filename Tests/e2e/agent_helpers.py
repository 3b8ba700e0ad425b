"""Helpers to run the built tk-agent binary in an isolated environment."""
import json
import os
import pathlib
import signal
import subprocess
import time

# The binary under test: TK_AGENT_BIN, else the release build users run (./scripts/test builds it).
BIN = os.environ.get("TK_AGENT_BIN") or str(pathlib.Path(__file__).resolve().parents[2] / ".build/release/tk-agent")


def fake_clock(when: str) -> list:
    """The command prefix that starts the process's wall clock at `when` (RFC 3339, UTC, e.g.
    2026-11-23T10:00:00Z) with Debian's `faketime` (libfaketime; scripts/deps installs it): the binaries
    have no clock switch of their own. Use the wrapper, not LD_PRELOAD alone: the library then edits the
    environment at load, which loses a Swift program's arguments (found by walking back from environ)."""
    import shutil
    assert shutil.which("faketime"), "faketime is missing: install the faketime package (scripts/deps does)"
    return ["faketime", "-f", "@" + when.rstrip("Z").replace("T", " ")]


class TK:
    def __init__(self, root: pathlib.Path):
        self.root = root
        self.home = root / "home"
        self.data = root / "data"
        self.config_home = self.home / ".config"
        self.runtime = root / "run"
        for d in (self.home, self.data, self.config_home, self.runtime):
            d.mkdir(parents=True, exist_ok=True)
        os.chmod(self.runtime, 0o700)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.home),
            "LANG": "C.UTF-8",
            "TK_DATA_DIR": str(self.data),
            "XDG_CONFIG_HOME": str(self.config_home),
            "XDG_DATA_HOME": str(self.home / ".local/share"),
            "XDG_RUNTIME_DIR": str(self.runtime),
            "NO_COLOR": "1",
        }
        self.agents = []

    def project(self, name="proj"):
        p = self.root / name
        p.mkdir(parents=True, exist_ok=True)
        return p

    def run(self, *args, input=None, check=True, env=None, timeout=60, clock=None):
        """Runs the binary; `clock` (RFC 3339, UTC) fixes its wall clock's start (see fake_clock)."""
        e = dict(self.env)
        if env:
            e.update(env)
        prefix = []
        if clock:
            prefix = fake_clock(clock)
            e.update({"TZ": "UTC", "FAKETIME_DONT_FAKE_MONOTONIC": "1"})
        r = subprocess.run([*prefix, BIN, *map(str, args)], input=input, capture_output=True, env=e, timeout=timeout,
                           text=not isinstance(input, bytes))
        if check and r.returncode != 0:
            raise AssertionError(f"tk-agent {' '.join(map(str, args))} exited {r.returncode}\nstdout: {r.stdout}\nstderr: {r.stderr}")
        return r

    def json(self, *args, **kw):
        r = self.run(*args, **kw)
        return json.loads(r.stdout)

    def start(self, *projects, extra_env=None, settle_ms=50, log_level="debug"):
        """Starts `tk-agent run` on the projects; returns the process once its status file exists."""
        cfg = self.config_home / "tk" / "config.json"
        cfg.parent.mkdir(parents=True, exist_ok=True)
        if not cfg.exists():
            cfg.write_text(json.dumps({"watch": {"settle_ms": settle_ms}, "review": {"auto": False},
                                       "notifications": {"enabled": False}}))
        e = dict(self.env)
        if extra_env:
            e.update(extra_env)
        log = open(self.root / f"agent-{len(self.agents)}.log", "wb")
        p = subprocess.Popen([BIN, "run", "--log-level", log_level, *map(str, projects)], env=e,
                             stdout=log, stderr=subprocess.STDOUT)
        p.log_path = self.root / f"agent-{len(self.agents)}.log"
        self.agents.append(p)
        self.wait_for(lambda: self.status().get("running") and self.idle(), timeout=30,
                      what="agent to start and finish its first scan", proc=p)
        return p

    def status(self):
        r = self.run("status", "--json", check=False)
        try:
            return json.loads(r.stdout)
        except json.JSONDecodeError:
            return {}

    def idle(self):
        s = self.status()
        return s.get("running") and s.get("index", {}).get("pending", 1) == 0

    def wait_for(self, cond, timeout=10, what="condition", proc=None, interval=0.05):
        deadline = time.time() + timeout
        last_exc = None
        while time.time() < deadline:
            try:
                v = cond()
                if v:
                    return v
            except AssertionError as exc:  # noqa: PERF203
                last_exc = exc
            if proc is not None and proc.poll() is not None:
                raise AssertionError(f"agent exited with {proc.returncode} while waiting for {what}:\n{self.logs(proc)}")
            time.sleep(interval)
        msg = f"timed out after {timeout}s waiting for {what}"
        if last_exc:
            msg += f": {last_exc}"
        if proc is not None:
            msg += "\n" + self.logs(proc)
        raise AssertionError(msg)

    def logs(self, proc):
        try:
            return pathlib.Path(proc.log_path).read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def stop(self, proc, sig=signal.SIGTERM, timeout=5):
        if proc.poll() is None:
            proc.send_signal(sig)
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                raise AssertionError(f"agent did not exit within {timeout}s of {sig}")
        return proc.returncode

    def stop_all(self):
        for p in self.agents:
            if p.poll() is None:
                p.kill()
                p.wait()

    def indexed_paths(self, project=None):
        args = ["documents", "--json"] + (["--project", str(project)] if project else [])
        return sorted(d["path"] for d in self.json(*args))

    def search_paths(self, *terms):
        return sorted(r["path"] for r in self.json("search", *terms, "--json", "--limit", "100000")["results"])
