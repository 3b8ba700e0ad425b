"""Finds the benchmark corpora, or generates stand-ins of the same shape when they are missing.

The real corpora live in ../shared/corpora/ (3k and 17k markdown files, a 10k-word novel excerpt).
When they are absent, a deterministic synthetic corpus with a Zipf-distributed vocabulary, headings,
code blocks and front matter is generated under bench/out/ so that the numbers stay comparable
between runs (but not with the real corpora: say which was used).
"""
import os
import pathlib
import random
import shutil
import subprocess

HERE = pathlib.Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "corpora"
OUT = HERE / "out"

SYLLABLES = ["ka", "lo", "mi", "ran", "te", "so", "vel", "dor", "an", "is", "qu", "ber", "ton", "al", "en",
             "ri", "mo", "sa", "ne", "pha", "gar", "lin", "os", "tra", "cel", "um", "pe", "zu", "hi", "bor"]
COMMON = ("the of and to a in is it you that he was for on are with as his they be at one have this from or had by "
          "word but what some we can out other were all there when up use your how said an each she which do their time "
          "if will way about many then them write would like so these her long make thing see him two has look more day "
          "could go come did number sound no most people my over know water than call first who may down side been now "
          "find any new work part take get place made live where after back little only round man year came show every "
          "good me give our under name very through just form sentence great think say help low line differ turn cause "
          "much mean before move right boy old too same tell does set three want air well also play small end put home "
          "read hand port large spell add even land here must big high such follow act why ask men change went light "
          "kind off need house picture try us again animal point mother world near build self earth father function "
          "error handling configuration idempotent").split()


def _vocab(rng, n=20000):
    words = list(dict.fromkeys(COMMON))
    while len(words) < n:
        w = "".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))
        if w not in words:
            words.append(w)
    return words


def _paragraph(rng, vocab, weights):
    sentences = []
    for _ in range(rng.randint(2, 6)):
        n = rng.randint(6, 28)
        ws = rng.choices(vocab, weights=weights, k=n)
        ws[0] = ws[0].capitalize()
        sentences.append(" ".join(ws) + rng.choice([".", ".", ".", "?", "!"]))
    return " ".join(sentences)


def generate(name, files, target_bytes, seed=7):
    root = OUT / name
    marker = root / ".complete"
    if marker.exists():
        return root
    rng = random.Random(seed)
    vocab = _vocab(rng)
    weights = [1.0 / (i + 1) for i in range(len(vocab))]
    per_file = target_bytes // files
    for i in range(files):
        d = root / f"part{i % 40:02d}" / f"sec{(i // 40) % 12:02d}"
        d.mkdir(parents=True, exist_ok=True)
        parts = []
        if i % 3 == 0:
            parts.append(f"---\ntitle: Document {i} {rng.choice(vocab).capitalize()}\ntags: [{rng.choice(vocab)}, {rng.choice(vocab)}]\n---\n")
        parts.append(f"# {' '.join(rng.choices(vocab[:2000], k=4)).title()}\n")
        size = 0
        while size < per_file:
            r = rng.random()
            if r < 0.08:
                block = f"## {' '.join(rng.choices(vocab[:3000], k=3)).title()}\n"
            elif r < 0.12:
                block = "```python\ndef f(x):\n    return x * 2  # " + rng.choice(vocab) + "\n```\n"
            else:
                block = _paragraph(rng, vocab, weights) + "\n"
            if i % 997 == 0 and rng.random() < 0.05:
                block += "The zyxwvutsrare marker appears here.\n"
            parts.append(block)
            size += len(block) + 1
        (d / f"doc{i:05d}.md").write_text("\n".join(parts))
    marker.write_text("ok")
    return root


def unpacked(name):
    """A shared corpus as a folder: `../shared/corpora/<name>/`, else its archive
    `../shared/corpora/<name>.tar.zst` unpacked once under bench/out/corpora/ (needs zstd and tar)."""
    folder = SHARED / name
    if folder.is_dir():
        return folder
    archive = SHARED / f"{name}.tar.zst"
    dest = OUT / "corpora"
    marker = dest / f".{name}.complete"
    if marker.exists() and (dest / name).is_dir():
        return dest / name
    if not archive.is_file() or not shutil.which("zstd"):
        return None
    dest.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(dest / name, ignore_errors=True)
    zstd = subprocess.Popen(["zstd", "-dc", str(archive)], stdout=subprocess.PIPE)
    tar = subprocess.run(["tar", "-x", "-C", str(dest)], stdin=zstd.stdout)
    zstd.stdout.close()
    if zstd.wait() != 0 or tar.returncode != 0 or not (dest / name).is_dir():
        return None
    marker.write_text("ok")
    return dest / name


def large():
    real = unpacked("large")
    if real is not None:
        return real, "shared/corpora/large (real)"
    for cand in sorted(SHARED.glob("*")) if SHARED.is_dir() else []:
        if cand.is_dir() and sum(1 for _ in cand.rglob("*.md")) > 10000:
            return cand, f"shared/corpora/{cand.name} (real)"
    return generate("large-synthetic", 17037, 111_000_000), "synthetic stand-in: 17,037 files, ~111 MB (shared/corpora missing)"


def medium():
    real = unpacked("medium")
    if real is not None:
        return real, "shared/corpora/medium (real)"
    if SHARED.is_dir():
        for cand in sorted(SHARED.glob("*")):
            n = sum(1 for _ in cand.rglob("*.md")) if cand.is_dir() else 0
            if 2000 < n < 10000:
                return cand, f"shared/corpora/{cand.name} (real)"
    return generate("medium-synthetic", 2996, 12_800_000, seed=3), "synthetic stand-in: 2,996 files, ~12.8 MB"


def prose_10k():
    real = SHARED / "prose-10k-words.md"
    if real.is_file():
        return real, "shared/corpora/prose-10k-words.md (real)"
    prose = unpacked("prose")
    if prose is not None and (prose / "sample10k.md").is_file():
        return prose / "sample10k.md", "shared/corpora/prose sample10k.md (real)"
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "prose-10k-words.md"
    if not path.exists():
        rng = random.Random(11)
        vocab = _vocab(rng, 5000)
        weights = [1.0 / (i + 1) for i in range(len(vocab))]
        words = 0
        paras = ["# Chapter One\n"]
        while words < 10000:
            p = _paragraph(rng, vocab, weights)
            if rng.random() < 0.3:
                p = "\u201cIt was very, really late,\u201d she said quietly. " + p
            if rng.random() < 0.2:
                p += " The door was opened by the old man. It is important to note that the plan was basically sound."
            paras.append(p)
            words += len(p.split())
        path.write_text("\n\n".join(paras) + "\n")
    return path, "synthetic stand-in: 10k words (shared/corpora missing)"
