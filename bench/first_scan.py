#!/usr/bin/env python3
"""The agent's first scan and its stop, beside a baseline binary in the same run.

For each binary: the time from `tk-agent run` to every sidecar of the large corpus (the status
says idle and `.tk` holds one sidecar a document), the peak RSS (VmHWM) of that scan, the idle RSS
(VmRSS, RssAnon) 5 s and 50 s (past the dictionary's idle release) after the first scan of the medium corpus, and SIGTERM sent 3 s and 10 s into
the first scan of the large corpus: seconds to exit, exit code, and whether stderr shows a crash.

    python3 bench/first_scan.py --baseline /tmp/mainbin/tk-agent [--bin .build/release/tk-agent] [--runs 1]
                                [--work /mnt/tmpfs] [--scan-only]

--scan-only measures the first scan of the large corpus alone, the two binaries taking turns (A/B/A/B…),
with the CPU each used. --work puts the homes and project copies in another folder: on ext4 a run right
after the last one's 34,000 files were deleted pays for it in the kernel (`recently_deleted` while
allocating inodes: system time grew from 9 to 32 s over six runs here), so comparisons are steadier on a
tmpfs (`mount -t tmpfs -o size=4g tmpfs /mnt/tkb`; the corpus is copied there once).

Corpora: ../shared/corpora/{large,medium}.tar.zst unpacked into /tmp/corpora (done here if missing).
"""
import argparse
import json
import os
import pathlib
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]


CORPORA = pathlib.Path("/tmp/corpora")


def corpus(name):
    folder = CORPORA / name
    if not folder.is_dir():
        archive = ROOT.parent / "shared" / "corpora" / f"{name}.tar.zst"
        if not archive.exists():
            sys.exit(f"no corpus: {archive} is missing")
        folder.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(f"zstd -dc '{archive}' | tar -x -C '{folder.parent}'", shell=True, check=True)
    return folder


def proc_status(pid):
    out = {}
    try:
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            k, _, v = line.partition(":")
            if k in ("VmHWM", "VmRSS", "RssAnon"):
                out[k] = int(v.split()[0]) / 1024
    except OSError:
        pass
    return out


def sidecars(project):
    n = 0
    for _, _, files in os.walk(project / ".tk"):
        n += sum(1 for f in files if f.endswith(".review.json"))
    return n


class Home:
    def __init__(self, binary, work):
        self.binary = binary
        self.work = work
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        cfg = work / "config" / "tk" / "config.json"
        cfg.parent.mkdir(parents=True)
        cfg.write_text(json.dumps({"watch": {"settle_ms": 50}, "review": {"auto": False},
                                   "notifications": {"enabled": False}}))
        (work / "run").mkdir(mode=0o700)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(work), "LANG": "C.UTF-8",
                    "TK_DATA_DIR": str(work / "data"), "XDG_CONFIG_HOME": str(work / "config"),
                    "XDG_RUNTIME_DIR": str(work / "run"), "NO_COLOR": "1"}

    def project(self, name):
        """A fresh copy of the corpus (hard links: the agent only reads documents and writes `.tk`)."""
        dest = self.work / name
        shutil.rmtree(dest, ignore_errors=True)
        subprocess.run(["cp", "-al", str(corpus(name)), str(dest)], check=True)
        shutil.rmtree(dest / ".tk", ignore_errors=True)
        return dest

    def start(self, project):
        self.err = open(self.work / "agent.log", "wb")
        return subprocess.Popen([self.binary, "run", project], env=self.env, stdout=subprocess.DEVNULL, stderr=self.err)

    def status(self):
        r = subprocess.run([self.binary, "status", "--json"], env=self.env, capture_output=True, timeout=60)
        try:
            return json.loads(r.stdout)
        except json.JSONDecodeError:
            return {}

    def log(self):
        return (self.work / "agent.log").read_text(errors="replace")


def documents(project):
    n = 0
    for d, dirs, files in os.walk(project):
        dirs[:] = [x for x in dirs if not x.startswith(".")]
        n += sum(1 for f in files if f.endswith(".md") or f.endswith(".markdown"))
    return n


def first_scan(binary, work, name, idle_wait=0.0):
    """Seconds to idle with every sidecar, VmHWM; with idle_wait, the RSS that long after."""
    home = Home(binary, work)
    project = home.project(name)
    want = documents(project)
    t0 = time.time()
    p = home.start(project)
    hwm, seen_progress = 0.0, False
    try:
        while True:
            time.sleep(0.25)
            if p.poll() is not None:
                # A crash is a result (main's binary of 2026-11-25 crashed on the large corpus): say so.
                crash = next((l for l in home.log().splitlines() if "Fatal error" in l or "crashed" in l), "")
                print(f"{binary} exited with {p.returncode} during the scan: {crash}", file=sys.stderr, flush=True)
                return {"seconds": float("nan"), "hwm": hwm, "sidecars": sidecars(project), "documents": want,
                        "progress": seen_progress, "exit": p.returncode}
            hwm = max(hwm, proc_status(p.pid).get("VmHWM", 0))
            s = home.status()
            idx = s.get("index", {})
            if idx.get("total") and 0 < idx.get("documents", 0) < idx["total"]:
                seen_progress = True
            if s.get("running") and idx.get("pending", 1) == 0:
                break
        elapsed = time.time() - t0
        hwm = max(hwm, proc_status(p.pid).get("VmHWM", 0))
        cpu = cpu_seconds(p.pid)
        n = sidecars(project)
        idle = {}
        if idle_wait:
            time.sleep(idle_wait)
            idle = proc_status(p.pid)
    finally:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
    return {"seconds": elapsed, "hwm": hwm, "sidecars": n, "documents": want, "progress": seen_progress, "cpu": cpu, **idle}


def cpu_seconds(pid):
    """(user, system) CPU seconds of a running process."""
    try:
        fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        tick = os.sysconf("SC_CLK_TCK")
        return int(fields[11]) / tick, int(fields[12]) / tick
    except (OSError, IndexError, ValueError):
        return float("nan"), float("nan")


def scan_only(plan, work, runs):
    """The large corpus's first scan alone, the binaries taking turns; a line per run, then medians."""
    seconds = {label: [] for label, _ in plan}
    for i in range(runs):
        for label, binary in plan:
            r = first_scan(binary, work / label, "large")
            seconds[label].append(r["seconds"])
            user, system = r["cpu"]
            print(f"run {i + 1} {label}: {r['seconds']:.1f} s, {r['sidecars']}/{r['documents']} sidecars, "
                  f"CPU {user:.1f} s user + {system:.1f} s system, peak {r['hwm']:.0f} MiB", flush=True)
    print()
    print("| binary | first scan of the large corpus, median (s) | runs (s) |")
    print("|---|---:|---|")
    for label, binary in plan:
        print(f"| {label} ({binary}) | {statistics.median(seconds[label]):.1f} | "
              + ", ".join(f"{x:.1f}" for x in seconds[label]) + " |")


def stop_at(binary, work, name, after):
    home = Home(binary, work)
    project = home.project(name)
    p = home.start(project)
    time.sleep(after)
    t0 = time.time()
    p.send_signal(signal.SIGTERM)
    try:
        p.wait(timeout=120)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    took = time.time() - t0
    log = home.log()
    crashed = p.returncode < 0 or "Fatal error" in log or "Illegal instruction" in log
    return {"seconds": took, "code": p.returncode, "crashed": crashed}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=str(ROOT / ".build/release/tk-agent"))
    ap.add_argument("--baseline", help="the binary to compare with (main's release build); without it, this binary alone")
    ap.add_argument("--runs", type=int, default=1, help="runs of each measure (the median is shown)")
    ap.add_argument("--work", help="the folder for the homes and project copies (a tmpfs: see above)")
    ap.add_argument("--scan-only", action="store_true", help="the large corpus's first scan alone, binaries taking turns")
    args = ap.parse_args()
    global CORPORA
    if args.work:
        base = pathlib.Path(args.work)
        base.mkdir(parents=True, exist_ok=True)
        # Project copies are hard links: the corpus must be on the same file system as the work.
        if os.stat(base).st_dev != os.stat(CORPORA.parent if CORPORA.exists() else "/tmp").st_dev:
            for name in ("large", "medium"):
                if (CORPORA / name).is_dir() and not (base / "corpora" / name).is_dir():
                    shutil.copytree(CORPORA / name, base / "corpora" / name, symlinks=True)
            CORPORA = base / "corpora"
        work = pathlib.Path(tempfile.mkdtemp(prefix="tk-first-scan-", dir=base))
    else:
        work = pathlib.Path(tempfile.mkdtemp(prefix="tk-first-scan-"))
    rows = {}
    plan = ([("baseline", args.baseline)] if args.baseline else []) + [("this", args.bin)]
    if args.scan_only:
        try:
            scan_only(plan, work, args.runs)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return
    try:
        for label, binary in plan:
            r = {}
            scans = [first_scan(binary, work / label, "large") for _ in range(args.runs)]
            r["scan_s"] = statistics.median(x["seconds"] for x in scans)
            r["hwm"] = statistics.median(x["hwm"] for x in scans)
            r["sidecars"] = f"{scans[-1]['sidecars']}/{scans[-1]['documents']}" + (
                f" (crashed, exit {scans[-1]['exit']})" if "exit" in scans[-1] else "")
            r["progress"] = "yes" if any(x["progress"] for x in scans) else "no"
            idle = [first_scan(binary, work / label, "medium", idle_wait=5.0) for _ in range(args.runs)]
            r["idle_rss"] = statistics.median(x.get("VmRSS", 0) for x in idle)
            r["idle_anon"] = statistics.median(x.get("RssAnon", 0) for x in idle)
            # Settled: past the dictionary's release after 45 s without a save (`Speller.idleRelease`).
            settled = [first_scan(binary, work / label, "medium", idle_wait=50.0) for _ in range(args.runs)]
            r["settled_rss"] = statistics.median(x.get("VmRSS", 0) for x in settled)
            r["settled_anon"] = statistics.median(x.get("RssAnon", 0) for x in settled)
            for after in (3, 10):
                stops = [stop_at(binary, work / label, "large", after) for _ in range(args.runs)]
                r[f"stop{after}"] = statistics.median(x["seconds"] for x in stops)
                r[f"stop{after}_codes"] = ",".join(str(x["code"]) for x in stops)
                r[f"stop{after}_crash"] = sum(x["crashed"] for x in stops)
            rows[label] = r
            print(f"{label}: {r}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print()
    print(f"| measure (large corpus unless said) | {args.baseline} | {args.bin} |")
    print("|---|---:|---:|")
    t = rows["this"]
    b = rows.get("baseline") or {k: float("nan") if isinstance(v, float) else "n/a" for k, v in t.items()}
    print(f"| first scan to every sidecar (s) | {b['scan_s']:.1f} | {t['scan_s']:.1f} |")
    print(f"| sidecars / documents | {b['sidecars']} | {t['sidecars']} |")
    print(f"| status counted documents during the scan | {b['progress']} | {t['progress']} |")
    print(f"| peak RSS, VmHWM (MiB) | {b['hwm']:.0f} | {t['hwm']:.0f} |")
    print(f"| idle RSS after the medium corpus, VmRSS (MiB) | {b['idle_rss']:.0f} | {t['idle_rss']:.0f} |")
    print(f"| idle private RSS, RssAnon (MiB) | {b['idle_anon']:.0f} | {t['idle_anon']:.0f} |")
    print(f"| idle RSS 50 s after the medium corpus (dictionary released), VmRSS (MiB) | {b['settled_rss']:.0f} | {t['settled_rss']:.0f} |")
    print(f"| … private, RssAnon (MiB) | {b['settled_anon']:.0f} | {t['settled_anon']:.0f} |")
    for after in (3, 10):
        print(f"| SIGTERM {after} s into the scan: exit after (s) | {b[f'stop{after}']:.2f} | {t[f'stop{after}']:.2f} |")
        print(f"| … exit codes; crashes | {b[f'stop{after}_codes']}; {b[f'stop{after}_crash']} "
              f"| {t[f'stop{after}_codes']}; {t[f'stop{after}_crash']} |")


if __name__ == "__main__":
    main()
