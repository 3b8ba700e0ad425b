#!/usr/bin/env python3
"""Speed of a team's Vale pack in `check`: whole-process time on a 10,000-word chapter.

Usage: bench/vale_speed.py --styles /tmp/vp/Microsoft --style Microsoft [--file ../shared/corpora → prose/sample10k.md]
       [--bin .build/release/tk-agent] [--before OTHER/tk-agent] [--runs 7]

Rows (median of --runs whole-process runs, same machine, same run, the commands taking turns; wall
and CPU time):
  tk-agent check (no .vale.ini), tk-agent check with the style, the same with --before (an older
  build, when given), proselint check (the baseline). The target: check with the style at least
  5x faster than proselint.
"""
import argparse, os, shutil, statistics, subprocess, tempfile, time

def once(cmd, cwd):
    """Wall seconds and CPU seconds (user + system of the child) of one whole-process run."""
    before = os.times()
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = os.times()
    return wall, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def alternating(jobs, runs):
    """Each (cmd, cwd, runs) job run in turn, round after round, so that a machine whose speed drifts
    (this VM's does, by ±30% within minutes) weighs on every row alike. Medians of wall and CPU."""
    walls = [[] for _ in jobs]
    cpus = [[] for _ in jobs]
    for r in range(max(j[2] for j in jobs)):
        for i, (cmd, cwd, n) in enumerate(jobs):
            if r < n:
                w, c = once(cmd, cwd)
                walls[i].append(w)
                cpus[i].append(c)
    return [(statistics.median(w), statistics.median(c)) for w, c in zip(walls, cpus)]

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--styles", required=True, help="folder holding the style folder (StylesPath)")
    ap.add_argument("--style", default="Microsoft")
    ap.add_argument("--file", default="/tmp/corpora/prose/sample10k.md")
    ap.add_argument("--bin", default=".build/release/tk-agent")
    ap.add_argument("--before", help="an older tk-agent to compare with, in the same run")
    ap.add_argument("--runs", type=int, default=7)
    a = ap.parse_args()
    binary = os.path.abspath(a.bin)
    with tempfile.TemporaryDirectory() as d:
        plain = os.path.join(d, "plain"); vale = os.path.join(d, "vale")
        for f in (plain, vale):
            os.makedirs(f)
            shutil.copy(a.file, os.path.join(f, "chapter.md"))
        with open(os.path.join(vale, ".vale.ini"), "w") as fh:
            fh.write(f"StylesPath = {os.path.abspath(a.styles)}\nMinAlertLevel = suggestion\n\n[*.md]\nBasedOnStyles = {a.style}\n")
        words = len(open(a.file, encoding="utf-8").read().split())
        r = subprocess.run([binary, "check", "--format", "json", "chapter.md"], cwd=vale, capture_output=True, text=True)
        import json
        n = sum(1 for f in json.loads(r.stdout)["files"] for x in f["findings"] if x["category"] == "vale")
        check = [binary, "check", "--format", "json", "chapter.md"]
        jobs = [(f"tk-agent check (no .vale.ini)", check, plain, a.runs),
                (f"tk-agent check + {a.style} ({n} Vale findings)", check, vale, a.runs)]
        if a.before:
            jobs.append((f"tk-agent check + {a.style}, before ({os.path.abspath(a.before)})",
                         [os.path.abspath(a.before), "check", "--format", "json", "chapter.md"], vale, a.runs))
        pl = shutil.which("proselint")
        if pl:
            jobs.append(("proselint check", [pl, "check", "chapter.md"], plain, max(3, a.runs // 2)))
        timings = alternating([(cmd, cwd, runs) for _, cmd, cwd, runs in jobs], a.runs)
        rows = [(name, t) for (name, _, _, _), t in zip(jobs, timings)]
        print(f"{words} words, median of {a.runs} runs, the commands taking turns\n")
        print("| command | wall seconds | CPU seconds (user + system) | vs proselint (wall) |")
        print("|---|---|---|---|")
        base = rows[-1][1][0] if pl else None
        for name, (w, c) in rows:
            print(f"| {name} | {w:.3f} | {c:.3f} | {base / w:.1f}x |" if base else f"| {name} | {w:.3f} | {c:.3f} | - |")
        if base:
            ratio = base / rows[1][1][0]
            print(f"\ntarget: check + {a.style} at least 5x faster than proselint: {ratio:.1f}x, {'ok' if ratio >= 5 else 'MISS'}")

if __name__ == "__main__":
    main()
