#!/usr/bin/env python3
"""Does the compiled word table answer like Hunspell? (issue 15, speed)

For each dictionary (en_US, en_GB) and each corpus (corpora/prose, corpora/medium), runs the hidden
`tk-agent spelling-agreement` command, which collects every distinct word the spelling pass would ask
the dictionary about (the engine's tokenizer and SpellCollector, no allow-list) and compares the word
table's verdict with `Hunspell_spell`'s. Prints agreement counts and every disagreement, then the word
table's cost: building it (a process with an empty cache folder) and reading it (the next process).

    python3 bench/spelling_agreement.py [--bin .build/release/tk-agent] [--corpora DIR]

Corpora: DIR, else /tmp/corpora (MANIFEST.md's unpack place), else ../shared/corpora/*.tar.zst unpacked
into a temporary folder.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def corpora(arg, tmp):
    for base in [arg, "/tmp/corpora"]:
        if base and all(os.path.isdir(os.path.join(base, c)) for c in ("prose", "medium")):
            return base
    shared = os.path.join(os.path.dirname(ROOT), "shared", "corpora")
    for c in ("prose", "medium"):
        archive = os.path.join(shared, c + ".tar.zst")
        if not os.path.exists(archive) or not shutil.which("zstd"):
            sys.exit(f"no corpora: unpack {archive} (see MANIFEST.md) or pass --corpora")
        subprocess.run(f"zstd -dc '{archive}' | tar -x -C '{tmp}'", shell=True, check=True)
    return tmp


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=None)
    ap.add_argument("--corpora", default=None)
    ap.add_argument("--langs", default="en_US,en_GB")
    a = ap.parse_args()
    binary = a.bin or next((p for p in (os.path.join(ROOT, ".build/release/tk-agent"),
                                        os.path.join(ROOT, ".build/debug/tk-agent")) if os.path.exists(p)), None)
    if not binary:
        sys.exit("build tk-agent first (swift build -c release --static-swift-stdlib)")
    with tempfile.TemporaryDirectory() as tmp:
        base = corpora(a.corpora, tmp)
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
        env.pop("TK_DATA_DIR", None)
        env.pop("TK_SPELL_TABLE", None)
        print(f"tk-agent: {binary}; corpora: {base}; load average %.2f %.2f %.2f\n" % os.getloadavg())
        print("| dictionary | corpus | files | distinct words | agree | table only | Hunspell only |")
        print("|---|---|---|---|---|---|---|")
        disagreements = []
        for lang in a.langs.split(","):
            for corpus in ("prose", "medium"):
                r = subprocess.run([binary, "spelling-agreement", "--lang", lang, os.path.join(base, corpus)],
                                   capture_output=True, text=True, env=env)
                if r.returncode != 0:
                    print(f"| {lang} | {corpus} | failed: {r.stderr.strip()} |")
                    continue
                d = json.loads(r.stdout)
                if not d["table_serves"]:
                    print(f"| {lang} | {corpus} | the word table does not serve this dictionary (Hunspell answers) |")
                    continue
                print(f"| {lang} | {corpus} | {d['files']} | {d['words']} | {d['agree']} | "
                      f"{len(d['table_only'])} | {len(d['hunspell_only'])} |")
                for w in d["table_only"]:
                    disagreements.append((lang, corpus, w, "table accepts, Hunspell rejects"))
                for w in d["hunspell_only"]:
                    disagreements.append((lang, corpus, w, "Hunspell accepts, table rejects"))
        # A harder list than the collector's: every raw token of the corpora's markdown (ALL CAPS, digits,
        # hyphens, trailing dots and apostrophes included), as Hunspell's own `spell` would be asked.
        tokens = set()
        for corpus in ("prose", "medium"):
            for dp, _, fn in os.walk(os.path.join(base, corpus)):
                for f in fn:
                    if f.endswith(".md"):
                        with open(os.path.join(dp, f), errors="replace") as fh:
                            for w in re.findall(r"[\w’'.-]+", fh.read()):
                                if len(w) < 40:
                                    tokens.add(w)
                                    tokens.add(w.strip("'’"))
        tokens.discard("")
        wl = os.path.join(tmp, "tokens.txt")
        with open(wl, "w") as f:
            f.write("\n".join(sorted(tokens)))
        for lang in a.langs.split(","):
            r = subprocess.run([binary, "spelling-agreement", "--lang", lang, "--words", wl], capture_output=True,
                               text=True, env=env)
            if r.returncode != 0:
                print(f"| {lang} | all raw tokens | failed: {r.stderr.strip()} |")
                continue
            d = json.loads(r.stdout)
            print(f"| {lang} | all raw tokens (prose + medium) | | {d['words']} | {d['agree']} | "
                  f"{len(d['table_only'])} | {len(d['hunspell_only'])} |")
            for w in d["table_only"]:
                disagreements.append((lang, "raw tokens", w, "table accepts, Hunspell rejects"))
            for w in d["hunspell_only"]:
                disagreements.append((lang, "raw tokens", w, "Hunspell accepts, table rejects"))
        print()
        if disagreements:
            print("Disagreements:")
            for lang, corpus, w, what in disagreements:
                print(f"- {lang} {corpus}: {w!r}: {what}")
        else:
            print("Disagreements: none.")

        # The word table's cost in a whole `check` process: built (empty cache folder), then read.
        doc = os.path.join(tmp, "one.md")
        with open(doc, "w") as f:
            f.write("# One\n\nShe wrote a leter to the mayor before dawn.\n")
        print("\n| dictionary | process, cache built (min of 5) | process, cache read (min of 5) | cache file |")
        print("|---|---|---|---|")
        for lang in a.langs.split(","):
            proj = os.path.join(tmp, "proj-" + lang)
            os.makedirs(os.path.join(proj, ".tk"), exist_ok=True)
            with open(os.path.join(proj, ".tk", "config.json"), "w") as f:
                f.write(json.dumps({"heuristics": {"lang": lang}}))
            shutil.copy(doc, os.path.join(proj, "one.md"))
            cold, warm = [], []
            for k in range(5):
                cache = tempfile.mkdtemp(dir=tmp)
                e = dict(env, XDG_CACHE_HOME=cache)
                t = time.perf_counter()
                subprocess.run([binary, "check", "--format", "json", os.path.join(proj, "one.md")], capture_output=True, env=e)
                cold.append(time.perf_counter() - t)
                t = time.perf_counter()
                subprocess.run([binary, "check", "--format", "json", os.path.join(proj, "one.md")], capture_output=True, env=e)
                warm.append(time.perf_counter() - t)
            folder = os.path.join(cache, "tk-agent", "spelling")
            size = sum(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder)) if os.path.isdir(folder) else 0
            print(f"| {lang} | {min(cold) * 1000:.1f} ms | {min(warm) * 1000:.1f} ms | {size / 1e6:.1f} MB |")
        print("\nload average after: %.2f %.2f %.2f" % os.getloadavg())


if __name__ == "__main__":
    main()
