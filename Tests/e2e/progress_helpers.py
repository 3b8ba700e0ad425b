"""Helpers for the progress and history end-to-end tests."""
import json
import pathlib
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]
CORPORA = REPO.parent / "shared" / "corpora"


def words(text):
    """The counting rule's words: whitespace-separated runs holding a letter or a digit."""
    return [t for t in text.split() if any(c.isalnum() for c in t)]


def prose_sample(dest: pathlib.Path) -> pathlib.Path:
    """`sample10k.md` (9,997 words of Pride and Prejudice) unpacked from ../shared/corpora."""
    target = dest / "prose" / "sample10k.md"
    if not target.exists():
        dest.mkdir(parents=True, exist_ok=True)
        zst = subprocess.run(["zstd", "-dc", str(CORPORA / "prose.tar.zst")], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(dest), "prose/sample10k.md"], input=zst.stdout, check=True)
    return target


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
