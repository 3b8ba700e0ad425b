#!/usr/bin/env python3
"""CPU spent while waiting for a model: the fake LLM server (Tests/e2e/fakellm.py) answers a review
request after --seconds (default 10); the table gives the wall time and the CPU time (user + sys) of

  - `tk-agent review FILE --now --wait` (the whole process, from wait4's rusage), and
  - the running agent over one review round it runs (utime + stime from /proc/PID/stat),

for this build and, in the same run, for a baseline binary (e.g. main's release build), with `curl`
sending the same request body to the same server as the floor. Each figure is the median of --runs.

    python3 bench/idle_cpu.py --baseline /tmp/baseline/.build/release/tk-agent
"""
import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "Tests" / "e2e"))

import agent_helpers  # noqa: E402
from agent_helpers import TK  # noqa: E402
from fakellm import FakeLLM  # noqa: E402
from review_helpers import suggestion, write_config  # noqa: E402

DOC = "# Chapter\n\nThe keeper lit the lamp at dusk and waited for the boat that never came.\n"
TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid):
    """utime + stime of a live process, in seconds."""
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def cli_round(binary, seconds, root):
    """(wall, cpu) of `review --now --wait` while the server takes `seconds` to answer."""
    agent_helpers.BIN = binary
    tk = TK(root)
    fake = FakeLLM().start()
    try:
        write_config(tk, fake, review={"request_timeout_seconds": seconds + 30})
        doc = tk.project() / "ch1.md"
        doc.write_text(DOC)
        fake.enqueue("anthropic", fake.suggestions([suggestion("lit the lamp", "lit the lantern")], delay=seconds))
        env = {**tk.env, **fake.env()}
        t0 = time.monotonic()
        p = subprocess.Popen([binary, "review", str(doc), "--now", "--wait", "--json"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{binary} review failed: {p.stderr.read().decode()[-500:]}")
        return wall, usage.ru_utime + usage.ru_stime
    finally:
        fake.stop()


def agent_round(binary, seconds, root):
    """(wall, cpu) of the running agent over one round while the server takes `seconds` to answer."""
    agent_helpers.BIN = binary
    tk = TK(root)
    fake = FakeLLM().start()
    try:
        write_config(tk, fake, review={"request_timeout_seconds": seconds + 30})
        proj = tk.project()
        doc = proj / "ch1.md"
        doc.write_text(DOC)
        proc = tk.start(proj, extra_env=fake.env())
        time.sleep(1)  # let the first scan's work settle
        fake.enqueue("anthropic", fake.suggestions([suggestion("lit the lamp", "lit the lantern")], delay=seconds))
        before = cpu_of(proc.pid)
        t0 = time.monotonic()
        tk.run("review", doc, "--now", env=fake.env())
        sidecar = proj / ".tk" / "ch1.md.review.json"

        def done():
            try:
                rounds = json.loads(sidecar.read_text()).get("rounds", [])
            except (OSError, ValueError):
                return False
            if any(r.get("status") == "failed" for r in rounds):
                raise SystemExit(f"{binary}: the round failed: {rounds[-1].get('error')}")
            return any(r.get("status") == "done" for r in rounds)
        tk.wait_for(done, timeout=seconds + 60, what="the round", proc=proc, interval=0.2)
        wall = time.monotonic() - t0
        cpu = cpu_of(proc.pid) - before
        tk.stop(proc)
        return wall, cpu
    finally:
        tk.stop_all()
        fake.stop()


def curl_round(seconds, root):
    """(wall, cpu) of curl posting the same kind of request to the same server."""
    fake = FakeLLM().start()
    try:
        fake.enqueue("anthropic", fake.suggestions([suggestion("lit the lamp", "lit the lantern")], delay=seconds))
        body = json.dumps({"model": "claude-sonnet-4-6", "max_tokens": 4096,
                           "messages": [{"role": "user", "content": DOC}]})
        t0 = time.monotonic()
        p = subprocess.Popen(["curl", "-s", "-o", "/dev/null", "-X", "POST", "-H", "content-type: application/json",
                              "-H", "x-api-key: dummy", "-H", "anthropic-version: 2023-06-01", "--data-binary", body,
                              fake.base_url("anthropic") + "/v1/messages"])
        _, _, usage = os.wait4(p.pid, 0)
        return time.monotonic() - t0, usage.ru_utime + usage.ru_stime
    finally:
        fake.stop()


def median(f, runs):
    results = [f() for _ in range(runs)]
    return statistics.median(r[0] for r in results), statistics.median(r[1] for r in results)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=str(REPO / ".build/release/tk-agent"))
    ap.add_argument("--baseline", help="the binary to compare with (e.g. main's release build)")
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-agent", action="store_true", help="only the CLI rows")
    a = ap.parse_args()
    builds = [("this build", a.binary)] + ([("baseline", a.baseline)] if a.baseline else [])
    print(f"## CPU while the model takes {a.seconds:g} s to answer (median of {a.runs}); "
          "load average at start %.2f %.2f %.2f\n" % os.getloadavg())
    print("| process | binary | wall s | CPU s (user+sys) |")
    print("|---|---|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        n = 0

        def fresh():
            nonlocal n
            n += 1
            return pathlib.Path(tmp) / f"r{n}"
        for label, binary in builds:
            wall, cpu = median(lambda: cli_round(binary, a.seconds, fresh()), a.runs)
            print(f"| `review --now --wait` | {label} | {wall:.1f} | {cpu:.2f} |", flush=True)
        if not a.no_agent:
            for label, binary in builds:
                wall, cpu = median(lambda: agent_round(binary, a.seconds, fresh()), a.runs)
                print(f"| agent, one round | {label} | {wall:.1f} | {cpu:.2f} |", flush=True)
        wall, cpu = median(lambda: curl_round(a.seconds, fresh()), a.runs)
        print(f"| `curl`, same server | — | {wall:.1f} | {cpu:.2f} |", flush=True)


if __name__ == "__main__":
    main()
