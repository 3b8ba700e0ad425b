#!/usr/bin/env python3
"""Retrieval benchmark: recall@5 keyword-only vs hybrid on a hand-written question set, the time
and peak memory of embedding the medium corpus through the local test server (wordllama), and
`ask --sources` latency on the large corpus.

    TK_AGENT_BIN=.build/release/tk-agent python3 bench/retrieval.py [--skip-large]

The questions were written by reading the passages: `lexical` ones use the passage's own words,
`paraphrased` ones avoid them. A question is answered when one of the 5 sources is in a file whose
path ends with the target and whose text contains the target phrase.
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
import functools

print = functools.partial(print, flush=True)  # noqa: A001

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
SHARED = ROOT.parent / "shared" / "corpora"
OUT = HERE / "out" / "real"
BIN = os.environ.get("TK_AGENT_BIN") or str(ROOT / ".build/release/tk-agent")

# (kind, question, path suffix, phrase in the passage)
MEDIUM = [
    ("lexical", "what does it mean that a variable is shadowed", "ch03-01-variables-and-mutability.md", "shadow"),
    ("lexical", "how does Rust prevent dangling references", "ch04-02-references-and-borrowing.md", "dangling"),
    ("lexical", "Rc<T> reference counting to enable multiple ownership", "ch15-04-rc.md", "reference count"),
    ("lexical", "RefCell and the interior mutability pattern", "ch15-05-interior-mutability.md", "interior mutability"),
    ("lexical", "cargo workspaces share one Cargo.lock and output directory", "ch14-03-cargo-workspaces.md", "workspace"),
    ("lexical", "release profiles and the opt-level setting", "ch14-01-release-profiles.md", "opt-level"),
    ("lexical", "panic unwinding the stack or aborting", "ch09-01-unrecoverable-errors-with-panic.md", "unwind"),
    ("lexical", "hash map entry API with or_insert", "ch08-03-hash-maps.md", "or_insert"),
    ("paraphrased", "declaring a new binding with the same name hides the earlier one", "ch03-01-variables-and-mutability.md", "shadow"),
    ("paraphrased", "a pointer to memory that was already freed", "ch04-02-references-and-borrowing.md", "dangling"),
    ("paraphrased", "several owners of one heap value, counted while the program runs", "ch15-04-rc.md", "Rc<T>"),
    ("paraphrased", "changing data behind a shared handle, checked at runtime instead of compile time", "ch15-05-interior-mutability.md", "RefCell"),
    ("paraphrased", "several related packages developed together in one repository", "ch14-03-cargo-workspaces.md", "workspace"),
    ("paraphrased", "how much the compiler optimises for development versus shipping builds", "ch14-01-release-profiles.md", "opt-level"),
    ("paraphrased", "the program crashes and walks back up cleaning up every function", "ch09-01-unrecoverable-errors-with-panic.md", "unwind"),
    ("paraphrased", "add a value for a key only when the key has none yet", "ch08-03-hash-maps.md", "or_insert"),
]
PROSE = [
    ("lexical", "Darcy says in vain he has struggled and his feelings will not be repressed", "scene-096.md", "In vain I have struggled"),
    ("lexical", "a truth universally acknowledged that a single man in possession of a good fortune", "scene-001.md", "universally acknowledged"),
    ("lexical", "Jane must go on horseback because it seems likely to rain", "scene-015.md", "horseback"),
    ("lexical", "Mr. Collins says his hand is not unworthy of her acceptance", "scene-056.md", "my hand is unworthy"),
    ("lexical", "Darcy says she is tolerable but not handsome enough to tempt me", "scene-005.md", "tolerable"),
    ("lexical", "Mr. Bennet's property was an estate of two thousand a year", "scene-013.md", "two thousand a year"),
    ("paraphrased", "the proud gentleman confesses his love despite himself and asks her to marry him", "scene-096.md", "In vain I have struggled"),
    ("paraphrased", "the famous opening claim about rich bachelors needing a bride", "scene-001.md", "universally acknowledged"),
    ("paraphrased", "the eldest sister rides to the neighbours in bad weather and falls ill", "scene-015.md", "horseback"),
    ("paraphrased", "the clergyman cousin refuses to believe she turned down his offer", "scene-056.md", "my hand is unworthy"),
    ("paraphrased", "at the first dance he insults her looks within her hearing", "scene-005.md", "tolerable"),
    ("paraphrased", "the family's income and land will pass to a distant male relative", "scene-013.md", "two thousand a year"),
]


def unpack(name):
    dest = OUT / name
    if (dest / ".complete").exists():
        return dest
    archive = SHARED / f"{name}.tar.zst"
    if not archive.exists():
        sys.exit(f"{archive} is missing (see ../shared/corpora/MANIFEST.md)")
    OUT.mkdir(parents=True, exist_ok=True)
    subprocess.run(f"zstd -dc '{archive}' | tar -x -C '{OUT}'", shell=True, check=True)
    (dest / ".complete").write_text("")
    return dest


class Env:
    def __init__(self, root, embed_url):
        self.root = pathlib.Path(root)
        self.env = {"PATH": os.environ.get("PATH", ""), "HOME": str(self.root), "LANG": "C.UTF-8",
                    "TK_DATA_DIR": str(self.root / "data"), "XDG_RUNTIME_DIR": str(self.root / "run"),
                    "NO_COLOR": "1"}
        (self.root / "run").mkdir(parents=True, exist_ok=True)
        os.chmod(self.root / "run", 0o700)
        for name, emb in (("hybrid", {"provider": "ollama", "base_url": embed_url}), ("keyword", {"provider": "none"})):
            cfg = self.root / name / "tk" / "config.json"
            cfg.parent.mkdir(parents=True, exist_ok=True)
            cfg.write_text(json.dumps({"embeddings": emb, "review": {"auto": False},
                                       "notifications": {"enabled": False}, "watch": {"settle_ms": 50}}))

    def run(self, mode, *args, check=True):
        e = dict(self.env, XDG_CONFIG_HOME=str(self.root / mode))
        r = subprocess.run([BIN, *map(str, args)], capture_output=True, text=True, env=e)
        if check and r.returncode:
            raise SystemExit(f"tk-agent {' '.join(map(str, args))}: {r.stderr}")
        return r

    def status(self):
        try:
            return json.loads(self.run("hybrid", "status", "--json", check=False).stdout)
        except json.JSONDecodeError:
            return {}

    def start(self, *projects):
        e = dict(self.env, XDG_CONFIG_HOME=str(self.root / "hybrid"))
        log = open(self.root / "agent.log", "ab")
        return subprocess.Popen([BIN, "run", *map(str, projects)], env=e, stdout=log, stderr=subprocess.STDOUT)


def embed_server(log):
    p = subprocess.Popen([sys.executable, str(ROOT / "Tests/e2e/embedserver.py"), "--log", str(log)],
                         stdout=subprocess.PIPE, text=True)
    port = int(p.stdout.readline().split()[1])
    return p, f"http://127.0.0.1:{port}"


def peak_kb(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def embed_corpus(env, projects, timeout=3600):
    """Runs the agent until every passage is embedded; returns (index s, embed s, peak MB, passages)."""
    t0 = time.time()
    agent = env.start(*projects)
    indexed = None
    peak = 0
    try:
        while time.time() - t0 < timeout:
            time.sleep(0.5)
            peak = max(peak, peak_kb(agent.pid))
            s = env.status()
            if not s.get("running"):
                continue
            if indexed is None and s.get("index", {}).get("pending", 1) == 0:
                indexed = time.time() - t0
            e = s.get("embeddings") or {}
            if indexed is not None and e.get("state") == "idle" and e.get("pending") == 0 and e.get("embedded", 0) > 0:
                return indexed, time.time() - t0, peak / 1024, e["embedded"]
        raise SystemExit("embedding did not finish in time")
    finally:
        agent.terminate()
        try:
            agent.wait(timeout=120)
        except subprocess.TimeoutExpired:
            agent.kill()
            agent.wait()


def recall(env, project, questions, mode):
    out = {}
    for kind, q, suffix, phrase in questions:
        r = json.loads(env.run(mode, "ask", q, "--project", project, "--sources", "--json", "--passages", "5").stdout)
        hit = any(s["path"].endswith(suffix) and phrase.lower() in s["text"].lower() for s in r["sources"])
        out.setdefault(kind, []).append(hit)
    return {k: (sum(v), len(v)) for k, v in out.items()}


def latency(env, project, mode, question, n=9):
    walls, own = [], []
    for _ in range(n):
        t = time.perf_counter()
        r = env.run(mode, "ask", question, "--project", project, "--sources", "--json", "--verbose")
        wall = (time.perf_counter() - t) * 1000
        emb = 0.0
        search = 0.0
        for line in r.stderr.splitlines():
            if line.startswith("retrieval:"):
                parts = line.split()
                search, emb = float(parts[1]), float(parts[4])
        walls.append(wall)
        own.append((wall - emb, search))
    return statistics.median(walls), statistics.median(o[0] for o in own), statistics.median(o[1] for o in own)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip-large", action="store_true")
    ap.add_argument("--quick", action="store_true", help="medium = rust-book/src only (the questions' targets)")
    a = ap.parse_args()
    medium, prose = unpack("medium"), unpack("prose") / "folder200"
    if a.quick:
        medium = medium / "rust-book" / "src"
    with tempfile.TemporaryDirectory() as tmp:
        server, url = embed_server(pathlib.Path(tmp) / "embed.jsonl")
        try:
            env = Env(tmp, url)
            idx_s, emb_s, peak_mb, n = embed_corpus(env, [medium, prose])
            requests = sum(1 for _ in open(pathlib.Path(tmp) / "embed.jsonl"))
            print(f"embedding medium + folder200: index {idx_s:.1f} s, all embedded after {emb_s:.1f} s, "
                  f"{n} passages, {requests} requests, agent peak {peak_mb:.0f} MB")
            rows = []
            for name, proj, qs in (("medium", medium, MEDIUM), ("folder200", prose, PROSE)):
                kw, hy = recall(env, proj, qs, "keyword"), recall(env, proj, qs, "hybrid")
                for kind in ("lexical", "paraphrased"):
                    rows.append((name, kind, kw[kind], hy[kind]))
            print("\n| corpus | questions | keyword-only recall@5 | hybrid recall@5 |\n|---|---|---|---|")
            tot = {"keyword": [0, 0], "hybrid": [0, 0]}
            for name, kind, kw, hy in rows:
                print(f"| {name} | {kind} ({kw[1]}) | {kw[0]}/{kw[1]} | {hy[0]}/{hy[1]} |")
            for kind in ("lexical", "paraphrased"):
                k = [sum(r[2][0] for r in rows if r[1] == kind), sum(r[2][1] for r in rows if r[1] == kind)]
                h = [sum(r[3][0] for r in rows if r[1] == kind), sum(r[3][1] for r in rows if r[1] == kind)]
                print(f"| all | {kind} ({k[1]}) | {k[0]}/{k[1]} ({k[0] / k[1]:.2f}) | {h[0]}/{h[1]} ({h[0] / h[1]:.2f}) |")
            wall, own, search = latency(env, medium, "hybrid", "how do closures capture their environment")
            print(f"\nask --sources on medium (hybrid): {wall:.0f} ms wall, {own:.0f} ms without the embedding call, "
                  f"{search:.1f} ms retrieval")

            if not a.skip_large:
                large = unpack("large")
                env2 = Env(pathlib.Path(tmp) / "large", url)
                idx_s, emb_s, peak_mb, n = embed_corpus(env2, [large])
                print(f"\nlarge: index {idx_s:.1f} s, all embedded after {emb_s:.1f} s, {n} passages, agent peak {peak_mb:.0f} MB")
                for mode in ("keyword", "hybrid"):
                    wall, own, search = latency(env2, large, mode, "how do I register a window class")
                    print(f"ask --sources on large ({mode}): {wall:.0f} ms wall, {own:.0f} ms without the embedding call, "
                          f"{search:.1f} ms retrieval")
                t = time.perf_counter()
                for _ in range(9):
                    env2.run("keyword", "search", "window", "class", "--json")
                print(f"baseline: plain `search window class` on large: {(time.perf_counter() - t) / 9 * 1000:.0f} ms wall")
        finally:
            server.terminate()


if __name__ == "__main__":
    main()
