#!/usr/bin/env python3
"""Idle memory of the agent with spelling on: does the Hunspell dictionary leave memory once unused?

Runs `tk-agent run` on a copy of the 200-file novel (corpora/prose/folder200), waits until every
document is indexed, then samples the agent's resident memory (VmRSS, RssAnon) 10 s after the scan
and again after the dictionary's idle release (Speller.idleRelease, 45 s, plus a margin). The same
run with `heuristics.spelling: false` is the baseline.

    python3 bench/spelling_memory.py [--bin .build/release/tk-agent] [--wait 55]
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent


def corpus_folder(tmp):
    unpacked = pathlib.Path("/tmp/corpora/prose/folder200")
    if unpacked.is_dir():
        return unpacked
    archive = ROOT.parent / "shared/corpora/prose.tar.zst"
    if archive.exists() and shutil.which("zstd"):
        subprocess.run(f"zstd -dc '{archive}' | tar -x -C '{tmp}' prose/folder200", shell=True, check=False)
        p = pathlib.Path(tmp) / "prose/folder200"
        if p.is_dir():
            return p
    sys.exit("corpora/prose/folder200 not found (see ../shared/corpora/MANIFEST.md)")


def memory(pid):
    out = {}
    for line in open(f"/proc/{pid}/status"):
        k, _, v = line.partition(":")
        if k in ("VmRSS", "RssAnon"):
            out[k] = int(v.split()[0]) / 1024
    return out


def run(binary, src, spelling, wait):
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="tk-spellmem-"))
    try:
        proj = tmp / "novel"
        shutil.copytree(src, proj, ignore=shutil.ignore_patterns(".*"))   # the documents only, no old .tk
        (proj / ".tk").mkdir()
        (proj / ".tk" / "config.json").write_text(json.dumps({"heuristics": {"spelling": spelling}}))
        files = sum(1 for _ in proj.glob("*.md"))
        env = dict(os.environ, TK_DATA_DIR=str(tmp / "data"), XDG_CONFIG_HOME=str(tmp / "cfg"),
                   XDG_RUNTIME_DIR=str(tmp / "run"), NO_COLOR="1")
        (tmp / "run").mkdir(mode=0o700)
        (tmp / "cfg" / "tk").mkdir(parents=True)
        (tmp / "cfg" / "tk" / "config.json").write_text(
            json.dumps({"review": {"auto": False}, "notifications": {"enabled": False}}))
        agent = subprocess.Popen([binary, "run", "--log-level", "error", str(proj)], env=env,
                                 stderr=subprocess.DEVNULL)
        try:
            t0 = time.time()
            deadline = t0 + 300
            while time.time() < deadline:
                s = json.loads(subprocess.run([binary, "status", "--json"], env=env, capture_output=True,
                                              text=True).stdout or "{}")
                if s.get("running") and s.get("index", {}).get("pending") == 0 and \
                        s.get("projects", [{}])[0].get("documents") == files:
                    break
                time.sleep(0.5)
            # Sidecars are written after indexing: wait until every document has one.
            while time.time() < deadline and sum(1 for _ in (proj / ".tk").rglob("*.review.json")) < files:
                time.sleep(0.5)
            scan = time.time() - t0
            time.sleep(10)
            early = memory(agent.pid)
            time.sleep(max(0, wait - 10))
            late = memory(agent.pid)
            return scan, early, late
        finally:
            agent.terminate()
            agent.wait()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=str(ROOT / ".build/release/tk-agent"))
    ap.add_argument("--wait", type=float, default=55, help="seconds after the scan for the second sample")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        src = corpus_folder(d)
        print(f"agent on a copy of {src} (200 files); RSS / private (RssAnon) in MB\n")
        print(f"| spelling | scan + sidecars | 10 s after | {a.wait:.0f} s after |")
        print("|---|---|---|---|")
        for spelling in (False, True):
            scan, early, late = run(a.bin, src, spelling, a.wait)
            print(f"| {'on' if spelling else 'off'} | {scan:.1f} s | {early['VmRSS']:.0f} / {early['RssAnon']:.0f} | "
                  f"{late['VmRSS']:.0f} / {late['RssAnon']:.0f} |")


if __name__ == "__main__":
    main()
