#!/usr/bin/env python3
"""Spelling on documents in other languages (issue 23): the German and French tldr pages of the medium
corpus, default settings, checked with `tk-agent check --format json DIR`. Prints spelling findings per
1,000 words (target ≤ 2 without a German or French dictionary) and how many `other_language` notes.

    python3 bench/languages.py [--bin .build/release/tk-agent] [--corpus /tmp/corpora/medium/tldr]

The corpus: `zstd -dc ../shared/corpora/medium.tar.zst | tar -x -C /tmp/corpora` (see its MANIFEST.md).
"""
import argparse
import json
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def words_of(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    text = re.sub(r"`[^`]*`", " ", text)
    return len(re.findall(r"\w+", text))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build/release/tk-agent"))
    ap.add_argument("--corpus", default="/tmp/corpora/medium/tldr")
    a = ap.parse_args()
    dics = [d for d in ("de_DE", "fr_FR") if os.path.exists(f"/usr/share/hunspell/{d}.dic")]
    print(f"dictionaries installed: {', '.join(dics) or 'none of de_DE, fr_FR'}")
    print("| pages | files | words | spelling findings | per 1,000 words | other_language notes | other findings |")
    print("|---|---|---|---|---|---|---|")
    for sub in ("pages.de", "pages.fr"):
        folder = os.path.join(a.corpus, sub)
        files = [os.path.join(d, f) for d, _, fs in os.walk(folder) for f in fs if f.endswith(".md")]
        words = sum(words_of(f) for f in files)
        r = subprocess.run([a.bin, "check", "--format", "json", folder], capture_output=True, text=True)
        data = json.loads(r.stdout)
        found = [x for fl in data["files"] for x in fl["findings"]]
        spelling = sum(1 for x in found if x["rule"] == "spelling")
        notes = sum(1 for x in found if x["rule"] == "other_language")
        other = len(found) - spelling - notes
        print(f"| {sub} | {len(files)} | {words} | {spelling} | {1000 * spelling / max(words, 1):.2f} | {notes} | {other} |")


if __name__ == "__main__":
    main()
