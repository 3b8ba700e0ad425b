"""Test data made on the spot, the same bytes on every run: novel-like prose (chapters, narration,
dialogue in curly quotes) and projects of many scenes or notes. The tests and the quick fault suite use
these instead of the benchmark corpora (which only bench/ reads, and the full fault suite when it is
given them), so that a clone with nothing beside it passes ./scripts/test.

    python3 Tests/e2e/generated_corpus.py prose 10000 > sample.md    # look at it
"""
import pathlib
import random
import sys

NAMES = ["Elizabeth", "Darcy", "Wickham", "Jane", "Bingley", "Lydia", "Charlotte", "Collins", "Mary", "Kitty"]
FAMILY = ["Mr. Bennet", "Mrs. Bennet", "Lady Catherine", "Miss Bingley", "Colonel Fitzwilliam"]
PLACES = ["Longbourn", "Netherfield", "Pemberley", "Meryton", "Rosings", "the parsonage", "the village", "London"]
THINGS = ["letter", "sister", "carriage", "ball", "garden", "fortune", "estate", "visit", "dinner", "walk",
          "regiment", "library", "staircase", "window", "rain", "lamp", "evening", "morning", "road", "hedge"]
ADJ = ["quiet", "sudden", "civil", "proud", "uneasy", "cheerful", "grave", "tedious", "agreeable", "silent",
       "wet", "narrow", "distant", "handsome", "foolish", "earnest", "cold", "warm", "long", "small"]
VERBS = ["considered", "remembered", "observed", "doubted", "admired", "avoided", "answered", "mentioned",
         "described", "questioned", "forgot", "noticed", "praised", "imagined", "resented", "expected"]
ADV = ["slowly", "at last", "once more", "without a word", "with some warmth", "in silence", "at once",
       "after dinner", "before the rain", "for a moment"]
SAY = ["said", "cried", "replied", "whispered", "observed", "returned", "answered"]

NARRATION = [
    "{a} {v} the {adj} {t} {adv}.",
    "It was a {adj} {t}, and {a} {v} it {adv}.",
    "At {p}, {a} and {b} {v} the {t} that {f} had {v2}.",
    "{a} walked to {p} {adv}, thinking of the {t} and of {b}.",
    "Nobody at {p} {v} how {adj} the {t} had become.",
    "The {t} from {p} was {adj}, though {a} {v} it only {adv}.",
    "{f} {v} that {a} was too {adj} to speak of the {t}.",
    "When {b} came back from {p}, the {t} was still {adj}.",
]
SPEECH = [
    "Is the {t} really so {adj}?",
    "I have {v} the {t} {adv}, and I will not do so again.",
    "You must go to {p} before the {t} is {adj}.",
    "{b} has {v} the {t}; I am sure of it.",
    "What a {adj} {t} this is!",
    "Nobody speaks of {p} now, except {f}.",
]


def _fill(rng, template):
    a, b = rng.sample(NAMES, 2)
    return template.format(a=a, b=b, f=rng.choice(FAMILY), p=rng.choice(PLACES), t=rng.choice(THINGS),
                           adj=rng.choice(ADJ), v=rng.choice(VERBS), v2=rng.choice(VERBS), adv=rng.choice(ADV))


def paragraph(rng):
    """One paragraph: narration of 2–7 sentences, or a line of dialogue with its speaker."""
    if rng.random() < 0.3:
        said = f"{rng.choice(NAMES)} {rng.choice(SAY)}"
        first = _fill(rng, rng.choice(SPEECH))
        if rng.random() < 0.5:
            return f"“{first}” {said}. “{_fill(rng, rng.choice(SPEECH))}”"
        return f"“{first}” {said}."
    return " ".join(_fill(rng, rng.choice(NARRATION)) for _ in range(rng.randint(2, 7)))


def words_of(text):
    return sum(1 for t in text.split() if any(c.isalnum() for c in t))


def prose(n_words, seed="prose", title="A Generated Novel"):
    """About `n_words` words of novel-like markdown: a title, chapters every ~1,200 words, paragraphs."""
    rng = random.Random(seed)
    out = [f"# {title}", "*Generated test prose (Tests/e2e/generated_corpus.py).*"]
    count, chapter, since = 0, 0, 10**9
    while count < n_words:
        if since > 1200:
            chapter += 1
            out.append(f"## Chapter {chapter}")
            since = 0
        p = paragraph(rng)
        out.append(p)
        n = words_of(p)
        count += n
        since += n
    return "\n\n".join(out) + "\n"


def sample10k(dest: pathlib.Path) -> pathlib.Path:
    """`sample10k.md`: about 10,000 words of prose in `dest`."""
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / "sample10k.md"
    if not path.exists():
        path.write_text(prose(10_000, seed="sample10k"))
    return path


def scenes(dest: pathlib.Path, n=200, seed="scenes") -> pathlib.Path:
    """A novel as `n` scenes (`scene-001.md` …), each a heading and 6–10 paragraphs."""
    rng = random.Random(seed)
    dest.mkdir(parents=True, exist_ok=True)
    for i in range(1, n + 1):
        paras = [paragraph(rng) for _ in range(rng.randint(6, 10))]
        (dest / f"scene-{i:03d}.md").write_text(f"# Scene {i}\n\n" + "\n\n".join(paras) + "\n")
    return dest


def notes_tree(dest: pathlib.Path, n=600, seed="notes") -> pathlib.Path:
    """A writer's folder of `n` markdown files in nested folders (chapters, notes, research), of a few
    hundred to a few thousand words each."""
    rng = random.Random(seed)
    folders = ["draft", "draft/part-one", "draft/part-two", "notes", "notes/people", "notes/places",
               "research", "research/letters", "archive/2024", "archive/2025"]
    for i in range(n):
        folder = dest / rng.choice(folders)
        folder.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(paragraph(rng) for _ in range(rng.randint(3, 30)))
        (folder / f"{rng.choice(THINGS)}-{i:04d}.md").write_text(f"# {rng.choice(NAMES)} and the {rng.choice(THINGS)}\n\n{body}\n")
    return dest


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "prose":
        sys.stdout.write(prose(int(sys.argv[2]) if len(sys.argv) > 2 else 1000))
    else:
        sys.exit(__doc__)
