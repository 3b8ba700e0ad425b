"""Helpers for the review end-to-end tests: config with the fake LLM server, sidecars, a real
notification server on a private session bus."""
import contextlib
import json
import os
import pathlib
import shutil
import signal
import subprocess
import time

HERE = pathlib.Path(__file__).resolve().parent


def merge(base, over):
    out = dict(base)
    for k, v in over.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def write_config(tk, fake, provider="anthropic", review=None, notifications=None, extra=None):
    """Writes the user config: fast watching, the fake server as provider, quick review settings."""
    cfg = {
        "watch": {"settle_ms": 50},
        "review": {"auto": False, "quiet_seconds": 0.3, "min_changed_words": 5, "stall_seconds": 1,
                   "max_retry_wait_seconds": 20, "request_timeout_seconds": 30},
        "notifications": {"enabled": False},
    }
    cfg = merge(cfg, fake.config(provider))
    if review:
        cfg = merge(cfg, {"review": review})
    if notifications:
        cfg = merge(cfg, {"notifications": notifications})
    if extra:
        cfg = merge(cfg, extra)
    path = tk.config_home / "tk" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cfg))
    return cfg


def sidecar(project, rel):
    p = project / ".tk" / (rel + ".review.json")
    try:
        return json.loads(p.read_text())
    except (OSError, json.JSONDecodeError):
        return None


def last_round(project, rel):
    s = sidecar(project, rel)
    return s["rounds"][-1] if s and s.get("rounds") else None


def provider_available(tk, env):
    """Whether the built binary has real providers (ProviderFactory is a stub until they merge)."""
    s = json.loads(tk.run("status", "--json", env=env).stdout)
    return bool(s.get("provider", {}).get("name"))


def suggestion(original, suggested, advisor="editor", type_="rephrase", priority=2):
    return {"advisor_id": advisor, "type": type_, "original_text": original, "suggested_text": suggested,
            "reasoning": "reads better", "priority": priority, "confidence": 0.8}


def dbus_python():
    """An interpreter that can import dbus and gi (python3-dbus, python3-gi), or None."""
    for cand in (os.environ.get("TK_DBUS_PYTHON"), "/usr/bin/python3", shutil.which("python3")):
        if not cand or not os.path.exists(cand):
            continue
        r = subprocess.run([cand, "-c", "import dbus, dbus.service, dbus.mainloop.glib; from gi.repository import GLib"],
                           capture_output=True, timeout=20)
        if r.returncode == 0:
            return cand
    return None


@contextlib.contextmanager
def notification_server(tmp):
    """A private session bus (`dbus-run-session`) with a server owning org.freedesktop.Notifications.
    Yields (bus address, path of the JSON-lines file of received notifications)."""
    py = dbus_python()
    if py is None or shutil.which("dbus-run-session") is None:
        import pytest
        pytest.skip("needs dbus-run-session, python3-dbus and python3-gi (scripts/deps installs them)")
    out = tmp / "notifications.jsonl"
    addr = tmp / "bus-address"
    proc = subprocess.Popen(["dbus-run-session", "--", py, str(HERE / "notify_server.py"), str(out), str(addr)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.time() + 15
        while not addr.exists():
            if proc.poll() is not None or time.time() > deadline:
                raise AssertionError("the notification server did not start")
            time.sleep(0.05)
        yield addr.read_text().strip(), out
    finally:
        # The whole process group: dbus-run-session does not take its child down with it.
        try:
            os.killpg(proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def read_notifications(path):
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def files_containing(root, needle: bytes):
    hits = []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            p = pathlib.Path(dirpath) / name
            try:
                if needle in p.read_bytes():
                    hits.append(str(p))
            except OSError:
                pass
    return hits
