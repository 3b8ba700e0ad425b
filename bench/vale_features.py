#!/usr/bin/env python3
"""Runs Vale packs' Cucumber scenarios (Markdown fixtures) through tk-agent and compares lines.

Usage: bench/vale_features.py PACK_DIR [PACK_DIR...] [--bin .build/release/tk-agent] [-v] [--all-steps]

--all-steps also runs the testdata's scenarios named by scope, style and vocabulary (`When I test
scope`, `apply style`, `use Vocab`) and its single Markdown files of fixtures/formats (`When I lint`).

A pack folder holds features/*.feature (steps: `When I test "X"` runs Vale in fixtures/X) and
fixtures/X/ with a .vale.ini. Each Markdown file of the fixture is checked with
`tk-agent check --format json` in that folder; Vale rule findings become Vale's `--output=line`
lines (file:line:col:Style.Rule:message) and are compared with the scenario's expected lines
for Markdown files. Prints expected lines reproduced exactly and scenarios without an extra line.
"""
import json, os, re, subprocess, sys

def scenarios(pack):
    feat_dir = os.path.join(pack, "features")
    for fn in sorted(os.listdir(feat_dir)):
        if not fn.endswith(".feature"):
            continue
        text = open(os.path.join(feat_dir, fn), encoding="utf-8").read()
        for block in re.split(r"\n\s*Scenario:", text)[1:]:
            name = block.split("\n", 1)[0].strip()
            q = re.search(r'"""\n(.*?)\n\s*"""', block, re.S)
            lines = [l.strip() for l in q.group(1).split("\n") if l.strip()] if q else []
            if "should contain exactly" not in block and "output should be empty" not in block:
                continue
            m = re.search(r'When I test "([^"]+)"', block)
            if m:
                yield fn, name, m.group(1), None, lines
                continue
            m = re.search(r'When I test comments for "([^"]+)"', block)
            if m and m.group(1) in (".md", ".markdown"):
                yield fn, name, "comments", ["test" + m.group(1)], lines
                continue
            m = re.search(r'When I test patterns for "([^"]+\.md)"', block)
            if m:
                yield fn, name, "patterns", [m.group(1)], lines
                continue
            if not ALL_STEPS:
                continue
            # Vale's testdata also names fixtures by scope, style and vocabulary, and lints single
            # files of fixtures/formats (the Markdown ones count here).
            for step, folder in (("test scope", "scopes/"), ("apply style", "styles/"), ("use Vocab", "vocab/")):
                m = re.search(r'When I ' + step + r' "([^"]+)"', block)
                if m:
                    yield fn, name, folder + m.group(1), None, lines
                    break
            else:
                m = re.search(r'When I lint "([^"]+\.(?:md|markdown))"$', block, re.M)
                if m:
                    yield fn, name, "formats", [m.group(1)], lines

def run(binary, folder, only=None):
    files = []
    for root, _, names in os.walk(folder):
        for n in names:
            if n.endswith(".md") or n.endswith(".markdown"):
                files.append(os.path.relpath(os.path.join(root, n), folder))
    if only is not None:
        files = [f for f in files if f in only]
    if not files:
        return None, ""
    targets = sorted(files) if len(files) < 200 else ["."]
    try:
        p = subprocess.run([binary, "check", "--format", "json"] + targets, cwd=folder,
                           capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return [], "timed out after 60 s"
    try:
        report = json.loads(p.stdout)
    except Exception:
        return [], p.stderr
    out = []
    for f in report.get("files", []):
        for x in f.get("findings", []):
            if x.get("category") == "vale":
                path = f["path"][2:] if f["path"].startswith("./") else f["path"]
                if only is not None and path not in only:
                    continue
                out.append(f"{path}:{x['line']}:{x['column']}:{x['rule']}:{x['message']}")
    return out, p.stderr

ALL_STEPS = False

def main():
    global ALL_STEPS
    args = sys.argv[1:]
    if "--all-steps" in args:
        ALL_STEPS = True
        args.remove("--all-steps")
    binary = ".build/release/tk-agent"
    verbose = "-v" in args
    if "--bin" in args:
        i = args.index("--bin"); binary = args[i + 1]; del args[i:i + 2]
    binary = os.path.abspath(binary)
    packs = [a for a in args if a != "-v"]
    print(f"{'pack':<28} {'scenarios':>9} {'expected':>8} {'exact':>6} {'share':>7} {'no extra':>9}")
    for pack in packs:
        n_sc = n_exp = n_hit = n_clean = 0
        for fn, name, fixture, only, expected in scenarios(pack):
            if ".." in fixture:
                continue
            folder = os.path.join(pack, "fixtures", fixture)
            if not os.path.isdir(folder):
                continue
            if verbose: print("..", fixture, flush=True)
            got, err = run(binary, folder, only)
            if got is None:
                continue
            exp = [l for l in expected if re.match(r"[^:]+\.(md|markdown):", l)]
            n_sc += 1
            n_exp += len(exp)
            gs = list(got)
            hit = 0
            missing = []
            for l in exp:
                if l in gs:
                    gs.remove(l); hit += 1
                else:
                    missing.append(l)
            n_hit += hit
            if not gs:
                n_clean += 1
            if verbose and (missing or gs):
                print(f"-- {fn}: {name} ({fixture})")
                for l in missing: print("   missing:", l)
                for l in gs: print("   extra:  ", l)
                if err.strip(): print("   stderr:", err.strip()[:300])
        share = 100.0 * n_hit / n_exp if n_exp else 100.0
        clean = 100.0 * n_clean / n_sc if n_sc else 100.0
        print(f"{os.path.basename(os.path.normpath(pack)):<28} {n_sc:>9} {n_exp:>8} {n_hit:>6} {share:>6.1f}% {clean:>8.1f}%")

if __name__ == "__main__":
    main()
