#!/usr/bin/env python3
"""Changed-scope review rounds: input tokens of a round after one changed paragraph, against the
document's first (full) round as the baseline, measured from the fake provider's request log.

Runs `tk-agent review --now --wait` twice on ../shared/corpora's sample10k.md (9,997 words) with
the fake Anthropic server: a full first round, then one paragraph changed and an automatic-scope
round (`--scope changed`), and a full round again for comparison. Target (issue 14): the
changed-scope round sends at most a quarter of the first round's input tokens.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "Tests" / "e2e"))
from fakellm import FakeLLM  # noqa: E402
from progress_helpers import prose_sample, request_chars  # noqa: E402

BIN = os.environ.get("TK_AGENT_BIN", str(ROOT / ".build/release/tk-agent"))


def main():
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="tk-bench-scope-"))
    fake = FakeLLM().start()
    try:
        sample = prose_sample(tmp / "corpora")
        proj = tmp / "proj"
        proj.mkdir()
        shutil.copy(sample, proj / "book.md")
        cfg_home = tmp / "config"
        (cfg_home / "tk").mkdir(parents=True)
        cfg = {"review": {"auto": False, "quiet_seconds": 0}, "notifications": {"enabled": False}, **fake.config("anthropic")}
        (cfg_home / "tk" / "config.json").write_text(json.dumps(cfg))
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp), "LANG": "C.UTF-8",
               "TK_DATA_DIR": str(tmp / "data"), "XDG_CONFIG_HOME": str(cfg_home), "XDG_RUNTIME_DIR": str(tmp / "run"),
               "NO_COLOR": "1", **fake.env()}
        (tmp / "run").mkdir(mode=0o700)
        fake.default("anthropic", fake.suggestions([]))

        def review(*args):
            r = subprocess.run([BIN, "review", str(proj / "book.md"), "--now", "--wait", *args], env=env,
                               capture_output=True, text=True, timeout=300)
            if r.returncode != 0:
                raise SystemExit(f"review failed: {r.stderr}")
            return fake.requests[-1]

        first = review()
        text = (proj / "book.md").read_text()
        paras = [p for p in text.split("\n\n") if p.strip()]
        target = paras[len(paras) // 2]
        (proj / "book.md").write_text(text.replace(target, target.rstrip(".") + ", and then the rain began."))
        changed = review("--scope", "changed")
        full = review("--scope", "full")
        rows = [("first round (full, baseline)", first), ("after one changed paragraph, --scope changed", changed),
                ("after one changed paragraph, --scope full", full)]
        base = request_chars(first)
        print(f"{'round on sample10k.md (9,997 words)':48} {'prompt chars':>12} {'≈ tokens':>9} {'vs first':>9}")
        for name, req in rows:
            n = request_chars(req)
            print(f"{name:48} {n:12,} {n // 4 + 1:9,} {n / base:9.1%}")
        ok = request_chars(changed) <= base / 4
        print(f"target: changed-scope round ≤ 25% of the first round's input: {'met' if ok else 'NOT met'}")
        return 0 if ok else 1
    finally:
        fake.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
