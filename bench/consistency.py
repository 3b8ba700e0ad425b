#!/usr/bin/env python3
"""Do the surfaces agree? On a real corpus: `tk-agent index`, then `tk-agent run` until idle; then for
every document compare the sidecar's quick findings with `tk-agent check --format json` (and, for a
sample, the language server's diagnostics on the saved text), as (rule, start, end).

Usage: bench/consistency.py [--corpus medium] [--bin .build/release/tk-agent] [--lsp-sample 200]
The corpus is unpacked from ../shared/corpora/<name>.tar.zst into /tmp/corpora when missing; the
project is a copy in a temporary folder (sidecars are written there, not in the corpus).
Prints a table: documents, documents that differ (sidecar vs check, LSP vs check), times.
"""
import argparse
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "Tests/e2e"))


def unpack(name):
    dest = pathlib.Path("/tmp/corpora") / name
    if not dest.exists():
        dest.parent.mkdir(parents=True, exist_ok=True)
        archive = HERE.parent.parent / "shared/corpora" / f"{name}.tar.zst"
        if not archive.exists():
            archive = HERE.parent / "../shared/corpora" / f"{name}.tar.zst"
        subprocess.run(f"zstd -dc {archive} | tar -x -C {dest.parent}", shell=True, check=True)
    return dest


def triples(findings):
    return sorted((f["rule"], f["start"], f["end"]) for f in findings)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="medium")
    ap.add_argument("--bin", default=str(HERE.parent / ".build/release/tk-agent"))
    ap.add_argument("--lsp-sample", type=int, default=200)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    os.environ["TK_AGENT_BIN"] = a.bin
    from agent_helpers import TK  # noqa: E402 (reads TK_AGENT_BIN)
    from lsp_helpers import LSPClient  # noqa: E402

    class SlowTK(TK):
        """A corpus takes longer than a test's folder: every wait is ten times longer."""
        def wait_for(self, cond, timeout=10, **kw):
            return super().wait_for(cond, timeout=timeout * 20, **kw)

    tmp = pathlib.Path(tempfile.mkdtemp(prefix="tk-consistency-"))
    tk = SlowTK(tmp)
    proj = tmp / a.corpus
    shutil.copytree(unpack(a.corpus), proj, symlinks=True)
    t0 = time.time()
    tk.run("index", proj, timeout=3600)
    t_index = time.time() - t0
    def sidecar_mtimes():
        return {p: p.stat().st_mtime_ns for p in (proj / ".tk").rglob("*.review.json")}
    after_index = sidecar_mtimes()
    t0 = time.time()
    try:
        agent = tk.start(proj)
        t_run = time.time() - t0
        tk.stop(agent, timeout=60)
    finally:
        tk.stop_all()   # an agent left by a failed wait does not outlive the benchmark
    after_run = sidecar_mtimes()
    rewritten = sum(1 for p, m in after_run.items() if after_index.get(p) != m)

    t0 = time.time()
    report = json.loads(tk.run("check", "--format", "json", proj, check=False, timeout=3600).stdout)
    t_check = time.time() - t0
    checked = {f["path"]: triples(f["findings"]) for f in report["files"] if f.get("skipped") is None}
    total = differ = missing = 0
    examples = []
    for path, want in sorted(checked.items()):
        rel = os.path.relpath(path, proj)
        total += 1
        side = proj / ".tk" / (rel + ".review.json")
        try:
            s = json.loads(side.read_text())
        except (OSError, json.JSONDecodeError):
            missing += 1
            differ += 1
            continue
        stale = s["sha256"] != hashlib.sha256((proj / rel).read_bytes()).hexdigest()
        if stale or triples(s["quick"]) != want:
            differ += 1
            if len(examples) < 5:
                examples.append(rel)

    lsp_total = lsp_differ = 0
    if a.lsp_sample:
        client = LSPClient(tk.env)
        client.initialize({"general": {"positionEncodings": ["utf-8"]}}, root=proj)
        paths = sorted(checked)
        step = max(1, len(paths) // a.lsp_sample)
        for path in paths[::step][:a.lsp_sample]:
            data = pathlib.Path(path).read_bytes()
            uri = client.open(pathlib.Path(path), data.decode(errors="replace"))
            diags = client.diagnostics(uri, timeout=60)
            starts = [0] + [i + 1 for i, b in enumerate(data) if b == 10]
            got = sorted((d["code"], starts[d["range"]["start"]["line"]] + d["range"]["start"]["character"],
                          starts[d["range"]["end"]["line"]] + d["range"]["end"]["character"])
                         for d in diags if d.get("data", {}).get("kind") == "finding")
            client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
            lsp_total += 1
            if got != checked[path]:
                lsp_differ += 1
        client.close()

    print("| corpus | documents | sidecar ≠ check | missing sidecars | LSP ≠ check (sample) | sidecars the start rewrote | index | run until idle | check |")
    print("|---|---|---|---|---|---|---|---|---|")
    print(f"| {a.corpus} | {total} | {differ} | {missing} | {lsp_differ} of {lsp_total} | {rewritten} of {len(after_run)} "
          f"| {t_index:.1f} s | {t_run:.1f} s | {t_check:.1f} s |")
    if examples:
        print("examples:", ", ".join(examples))
    if not a.keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if differ or lsp_differ else 0


if __name__ == "__main__":
    sys.exit(main())
