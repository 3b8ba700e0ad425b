"""Helpers for the progress and history end-to-end tests."""
import json
import pathlib

import generated_corpus


def words(text):
    """The counting rule's words: whitespace-separated runs holding a letter or a digit."""
    return [t for t in text.split() if any(c.isalnum() for c in t)]


def prose_sample(dest: pathlib.Path) -> pathlib.Path:
    """`sample10k.md`: about 10,000 words of generated novel-like prose (see generated_corpus.py)."""
    return generated_corpus.sample10k(dest / "prose")


def request_chars(req):
    """The characters of a request's prompt (system and messages) as the fake server received it."""
    body = req["json"] or {}
    n = 0
    system = body.get("system")
    if isinstance(system, str):
        n += len(system)
    elif isinstance(system, list):
        n += sum(len(b.get("text", "")) for b in system if isinstance(b, dict))
    for m in body.get("messages", []):
        c = m.get("content")
        if isinstance(c, str):
            n += len(c)
        elif isinstance(c, list):
            n += sum(len(b.get("text", "")) for b in c if isinstance(b, dict))
    return n


def user_text(req):
    body = req["json"] or {}
    out = []
    for m in body.get("messages", []):
        c = m.get("content")
        out.append(c if isinstance(c, str) else json.dumps(c))
    return "\n".join(out)
