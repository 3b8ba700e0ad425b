#!/usr/bin/env python3
"""The fault suite: drives the tk-agent release binary through crashes, full disks, vanishing
folders and odd files, and prints a table of trials and losses.

    python3 Tests/faults/run.py --quick          # what ./scripts/test runs (a few minutes)
    python3 Tests/faults/run.py --full           # what bench/faults runs (50 kills, …)
    python3 Tests/faults/run.py --only kill-index         # one scenario (quick sizes; with --full, full sizes)

TK_AGENT_BIN names the binary (default .build/release/tk-agent). Exits 1 when any row has a loss.
Full-disk and read-only rows need root (tmpfs mounts); they are skipped with the reason otherwise."""
import argparse
import pathlib
import random
import shutil
import sys
import tempfile
import time
import traceback

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import harness  # noqa: E402
import scenarios  # noqa: E402

SEED = 20261123


def main():
    ap = argparse.ArgumentParser()
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="the short form (default)")
    mode.add_argument("--full", action="store_true", help="the long form: 50 kills, more rounds and disks")
    ap.add_argument("--only", action="append", help="run only these scenarios (kill-index, kill-rounds, full-disk, vanishing, odd-files, signal-soak)")
    ap.add_argument("--corpora", type=pathlib.Path, help="folder of the corpora archives (medium.tar.zst) for --full")
    ap.add_argument("--seed", type=int, default=SEED)
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    args = ap.parse_args()
    full = args.full
    scenarios.FULL = full
    scenarios.CORPORA = args.corpora
    plan = [
        ("kill-index", scenarios.kill_during_index, 50 if full else 5),
        ("kill-rounds", scenarios.kill_during_rounds, 30 if full else 4),
        ("full-disk", scenarios.full_disk, 3 if full else 1),
        ("vanishing", scenarios.vanishing, 3 if full else 1),
        ("odd-files", scenarios.odd_files, 10000 if full else 10000),
        ("signal-soak", scenarios.signal_soak, 30 if full else 5),
    ]
    if args.only:
        plan = [p for p in plan if p[0] in args.only]
    if not pathlib.Path(harness.BIN).exists():
        print(f"no binary at {harness.BIN}: run `swift build -c release --static-swift-stdlib` or set TK_AGENT_BIN", file=sys.stderr)
        return 1
    print(f"fault suite ({'full' if full else 'quick'}), binary {harness.BIN}, seed {args.seed}", flush=True)
    work = pathlib.Path(tempfile.mkdtemp(prefix="tk-faults-"))
    work.chmod(0o755)  # the read-only row runs the agent as another user
    rows = []
    try:
        for name, fn, size in plan:
            rng = random.Random(f"{args.seed}-{name}")
            t0 = time.time()
            try:
                row = fn(work / name, rng, size)
            except Exception as e:  # a harness failure is a loss too, with the trace
                row = scenarios.Row(name, trials=1, losses=1, notes=[f"{type(e).__name__}: {e}",
                                                                      traceback.format_exc()[-1500:]])
            row.seconds = time.time() - t0
            rows.append(row)
            status = f"skipped: {row.skipped}" if row.skipped else f"{row.trials} trials, {row.losses} losses"
            print(f"  {name}: {status} ({row.seconds:.0f} s)", flush=True)
            for n in row.notes:
                print(f"      {n}", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print(f"work folder kept: {work}")
    print()
    print(f"| {'scenario':<92} | trials | losses | time |")
    print(f"|{'-' * 94}|-------:|-------:|-----:|")
    for r in rows:
        if r.skipped:
            print(f"| {r.scenario:<92} | skipped: {r.skipped} |")
        else:
            print(f"| {r.scenario:<92} | {r.trials:>6} | {r.losses:>6} | {r.seconds:>3.0f} s |")
    return 1 if any(r.losses for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
