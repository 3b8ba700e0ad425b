"""`tk-agent doctor`: one line per check with the fix, `--json`, exit 1 when something is wrong."""
import json
import os

from fakellm import FakeLLM


def write_config(tk, cfg):
    p = tk.config_home / "tk" / "config.json"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(json.dumps(cfg))


def checks(tk, env):
    r = tk.run("doctor", "--json", check=False, env=env)
    assert r.returncode in (0, 1), r.stderr
    report = json.loads(r.stdout)
    return r.returncode, report


def test_reads_the_real_inotify_limits(tk):
    """The limits come from the kernel (/proc/sys); a stand-in is tested in DoctorInotifyTests."""
    watches = int(open("/proc/sys/fs/inotify/max_user_watches").read())
    code, report = checks(tk, {})
    ino = [c for c in report["checks"] if c["area"] == "inotify"]
    assert any(c["message"].startswith(f"max_user_watches is {watches} ") for c in ino), ino


def test_healthy_setup_with_the_fake_provider_exits_0_and_never_prints_the_key(tk):
    fake = FakeLLM().start()
    try:
        proj = tk.project()
        (proj / "a.md").write_text("# A\n\nText.\n")
        script = tk.root / "notify.sh"
        script.write_text("#!/bin/sh\nexit 0\n")
        script.chmod(0o755)
        cfg = {**fake.config("openai", model="fake-model"), "projects": [str(proj)],
               "notifications": {"enabled": True, "command": str(script)}}
        write_config(tk, cfg)
        unit = tk.config_home / "systemd" / "user"
        (unit / "default.target.wants").mkdir(parents=True)
        (unit / "tk-agent.service").write_text("[Unit]\n")
        os.symlink(unit / "tk-agent.service", unit / "default.target.wants" / "tk-agent.service")
        tk.run("index", proj)
        env = fake.env()
        tk.start(proj, extra_env=env)
        code, report = checks(tk, env)
        by = {}
        for c in report["checks"]:
            by.setdefault(c["area"], []).append(c)
        assert code == 0, report
        assert all(c["status"] == "ok" for c in by["provider"]), by["provider"]
        assert any("knows model fake-model" in c["message"] for c in by["provider"])
        assert any("API key present" in c["message"] for c in by["provider"])
        assert any("integrity ok" in c["message"] for c in by["data"])
        assert by["project"][0]["status"] == "ok" and "is watched" in by["project"][0]["message"]
        assert by["systemd"][0]["status"] == "ok"
        assert any("runs without a session bus" in c["message"] for c in by["notifications"])
        r = tk.run("doctor", check=False, env=env)
        for key in fake.env().values():
            assert key not in r.stdout and key not in r.stderr
    finally:
        fake.stop()


def test_unknown_model_missing_project_and_damaged_database_fail(tk):
    fake = FakeLLM().start()
    try:
        gone = tk.root / "gone"
        write_config(tk, {**fake.config("openai", model="no-such-model"), "projects": [str(gone)]})
        tk.data.mkdir(exist_ok=True)
        (tk.data / "index.sqlite").write_bytes(b"SQLite format 3\0" + b"\x07" * 4000)
        code, report = checks(tk, fake.env())
        assert code == 1
        fails = {c["area"]: c for c in report["checks"] if c["status"] == "fail"}
        assert "does not know model no-such-model" in fails["provider"]["message"]
        assert "does not exist" in fails["project"]["message"] and "watch remove" in fails["project"]["fix"]
        assert fails["data"]["fix"].startswith("stop the agent and delete")
    finally:
        fake.stop()


def test_notify_send_without_a_bus_is_a_warning(tk):
    write_config(tk, {"notifications": {"enabled": True, "command": "notify-send"}})
    _, report = checks(tk, {})
    n = [c for c in report["checks"] if c["area"] == "notifications"]
    assert any(c["status"] == "warn" and "no session bus" in c["message"] for c in n), n


def test_unreachable_provider_fails(tk):
    write_config(tk, {"provider": "openai", "providers": {"openai": {"base_url": "http://127.0.0.1:9/v1", "model": "m"}}})
    code, report = checks(tk, {"OPENAI_API_KEY": "sk-test-secret-123456"})
    assert code == 1
    p = [c for c in report["checks"] if c["area"] == "provider" and c["status"] == "fail"]
    assert p and "not reachable" in p[0]["message"]
    assert "sk-test-secret-123456" not in json.dumps(report)
