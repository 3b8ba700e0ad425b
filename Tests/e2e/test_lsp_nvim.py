"""A real editor as the client: headless Neovim runs tk-agent lsp on a document with non-ASCII
text, gets findings at the right columns, new ones after an unsaved edit, applies the "Accept"
code action of a suggestion from a review round against the fake provider, and writes the file;
the sidecar then shows the suggestion accepted."""
import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest

from agent_helpers import BIN
from fakellm import FakeLLM
from review_helpers import provider_available, sidecar, suggestion, write_config

HERE = pathlib.Path(__file__).resolve().parent

DOC = """# Crème brûlée ☕ notes

Der Käse 😀 — the cake was eaten by the dog. It was a really nice day in Zürich.
"""


def nvim_version():
    exe = shutil.which("nvim")
    if not exe:
        return None
    m = re.search(r"NVIM v(\d+)\.(\d+)", subprocess.run([exe, "--version"], capture_output=True, text=True).stdout)
    return (int(m.group(1)), int(m.group(2))) if m else None


@pytest.fixture
def fake():
    f = FakeLLM().start()
    yield f
    f.stop()


def test_neovim_findings_edit_and_accept(tk, fake, tmp_path):
    v = nvim_version()
    assert v is not None, "Neovim is needed (scripts/deps installs the neovim package)"
    assert v >= (0, 7), f"Neovim {v} is too old (0.7+ for vim.lsp.start_client)"
    proj = tk.project()
    (proj / ".tk").mkdir(exist_ok=True)
    doc = proj / "notes.md"
    doc.write_text(DOC)
    write_config(tk, fake)
    env = dict(tk.env)
    env.update(fake.env())
    assert provider_available(tk, fake.env())
    fake.enqueue("anthropic", fake.suggestions([suggestion("really nice day", "bright day", advisor="editor")]))
    r = tk.run("review", doc, "--now", "--wait", env=fake.env(), timeout=90)
    assert "1 suggestion" in r.stdout
    sug = sidecar(proj, "notes.md")["suggestions"][0]
    assert sug["status"] == "pending"

    out = tmp_path / "nvim.json"
    env.update({"TK_NVIM_OUT": str(out), "TK_NVIM_DOC": str(doc), "TK_AGENT_BIN_PATH": BIN})
    p = subprocess.run(["nvim", "--headless", "--clean", "-n", "-c", f"luafile {HERE / 'nvim_lsp.lua'}"],
                       env=env, cwd=proj, capture_output=True, text=True, timeout=120)
    res = json.loads(out.read_text())
    assert res["ok"], f"{res.get('error')}\n{p.stderr}\n{json.dumps(res, ensure_ascii=False)}"

    line = DOC.splitlines()[2]
    # Neovim reports byte columns; the server spoke UTF-16: they agree only if nothing shifted.
    passive = next(d for d in res["first"] if d["code"] == "passive")
    assert (passive["lnum"], passive["col"]) == (2, line.encode().index(b"was eaten"))
    s = next(d for d in res["first"] if d["code"] == "suggestion")
    assert (s["lnum"], s["col"]) == (2, line.encode().index(b"really nice day"))
    assert "editor" in s["message"] and "bright day" in s["message"]

    new = [d for d in res["after_edit"] if d["lnum"] == res["edited_line"] and d["code"] == "passive"]
    edited = "Ça va 😀 — the ball was thrown by Zoë."
    assert new and new[0]["col"] == edited.encode().index(b"was thrown")

    assert any(t.startswith("Accept:") for t in res["titles"]) and "Skip suggestion" in res["titles"]
    text = doc.read_text()
    assert "a bright day in Zürich" in text and "really nice day" not in text
    assert edited in text
    after = sidecar(proj, "notes.md")
    got = next(x for x in after["suggestions"] if x["id"] == sug["id"])
    assert got["status"] == "accepted"
