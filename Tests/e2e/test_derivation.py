"""One derivation: the agent's sidecars, `check` and the language server compute a document's quick
findings from the same inputs (configuration, front matter, `journey set`, the project's dictionary
and names, `lang`, the story type's limits), and a change of any input, even while the agent is
down, re-derives exactly the documents it affects."""
import json
import os
import pathlib
import time

from lsp_helpers import LSPClient

# A sentence of `n` plain words (no rule but long_sentence has anything to say about it).
WORDS = ("river stone bread lamp field cloud horse apple chair table window garden road letter "
         "candle basket kettle meadow pebble ribbon").split()


def sentence(n, start=0):
    words = [WORDS[(start + i) % len(WORDS)] for i in range(n)]
    return "The " + " ".join(words[1:]) + "."


NOVEL = {
    # Vellamir: twice across the project (ch1, ch2), a third time later in ch3; Elowen three times.
    "ch1.md": "# The Harbour\n\nElowen walked to the harbour at dawn. The colour of the sky was grey.\n"
              "Elowen carried a zorblax under her arm. Vellamir waited by the boats.\n\n"
              "Elowen waved to him and the quenth birds rose over the water.\n",
    "ch2.md": "# The Road\n\nVellamir walked the long road north with a heavy pack.\n\n"
              + sentence(24, 3) + "\n\nThe neighbours favoured the old inn.\n",
    "ch3.md": "# The Inn\n\nThe innkeeper lit a fire and poured the ale.\n",
    "memo.md": "---\ntk:\n  story_type: email_memo\n---\n# Update\n\n" + sentence(24, 5)
               + "\n\nPlease reply by Friday.\n",
}
OTHER = {"a.md": "# Notes\n\nThe colour of the harbour was grey.\n", "b.md": "# More\n\nA short note.\n"}


def write_project(root: pathlib.Path, files, config=None, dictionary=None):
    (root / ".tk").mkdir(parents=True, exist_ok=True)
    if config is not None:
        (root / ".tk" / "config.json").write_text(json.dumps(config))
    if dictionary is not None:
        (root / ".tk" / "dictionary.txt").write_text(dictionary)
    for rel, text in files.items():
        (root / rel).write_text(text)


def sidecar_path(root, rel):
    return root / ".tk" / (rel + ".review.json")


def sidecar(root, rel):
    try:
        return json.loads(sidecar_path(root, rel).read_text())
    except (OSError, json.JSONDecodeError):
        return None


def triples(findings):
    return sorted((f["rule"], f["start"], f["end"]) for f in findings)


def quick(root, rel):
    s = sidecar(root, rel)
    return None if s is None else triples(s["quick"])


def check(tk, root, rel):
    r = tk.json("check", "--format", "json", root / rel)
    (f,) = r["files"]
    return triples(f["findings"])


def words_flagged(root, rel, rule="spelling"):
    s = sidecar(root, rel)
    text = (root / rel).read_bytes()
    return {text[f["start"]:f["end"]].decode() for f in s["quick"] if f["rule"] == rule}


def agrees(tk, root, rel):
    """The sidecar describes the file as it is and its findings equal `check`'s."""
    s = sidecar(root, rel)
    if s is None:
        return False
    import hashlib
    if s["sha256"] != hashlib.sha256((root / rel).read_bytes()).hexdigest():
        return False
    return triples(s["quick"]) == check(tk, root, rel)


def lsp_triples(client, path: pathlib.Path):
    """The language server's findings on the saved text as (rule, start byte, end byte)."""
    data = path.read_bytes()
    uri = client.open(path, data.decode())
    diags = client.diagnostics(uri)
    starts = [0]
    for i, b in enumerate(data):
        if b == 10:
            starts.append(i + 1)

    def offset(pos):   # utf-8 position encoding: `character` counts bytes
        return starts[pos["line"]] + pos["character"]

    out = [(d["code"], offset(d["range"]["start"]), offset(d["range"]["end"]))
           for d in diags if d.get("data", {}).get("kind") == "finding"]
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    return sorted(out)


def mtimes(root):
    return {p.name: p.stat().st_mtime_ns for p in (root / ".tk").rglob("*.review.json")}


def test_sidecars_check_and_lsp_agree_and_follow_every_input(tk):
    novel = tk.project("novel")
    other = tk.project("other")
    write_project(novel, NOVEL, config={"heuristics": {"lang": "en_US"}}, dictionary="zorblax\n")
    write_project(other, OTHER, config={})

    tk.run("index", novel, other)
    agent = tk.start(novel, other)
    for root, files in ((novel, NOVEL), (other, OTHER)):
        for rel in files:
            tk.wait_for(lambda: quick(root, rel) is not None, timeout=30, what=f"sidecar of {rel}", proc=agent)
    # The inputs are doing their work: names, the dictionary, the story type, en_US spelling.
    flagged = words_flagged(novel, "ch1.md")
    assert {"colour", "harbour", "Vellamir", "quenth"} <= flagged, flagged
    assert not {"Elowen", "zorblax"} & flagged, flagged
    assert any(f["rule"] == "long_sentence" and "limit 20" in f["message"] for f in sidecar(novel, "memo.md")["quick"])

    client = LSPClient(tk.env)
    client.initialize({"general": {"positionEncodings": ["utf-8"]}}, root=novel)
    try:
        for root, files in ((novel, NOVEL), (other, OTHER)):
            for rel in files:
                expected = check(tk, root, rel)
                assert quick(root, rel) == expected, rel
                assert lsp_triples(client, root / rel) == expected, rel
    finally:
        client.close()

    # With the agent stopped: lang, the dictionary, a name's count, a journey set.
    assert tk.stop(agent) == 0
    other_before = mtimes(other)
    time.sleep(0.05)
    (novel / ".tk" / "config.json").write_text(json.dumps({"heuristics": {"lang": "en_GB"}}))
    (novel / ".tk" / "dictionary.txt").write_text("zorblax\nquenth\n")
    (novel / "ch3.md").write_text(NOVEL["ch3.md"] + "\nVellamir came in from the cold.\n")
    tk.run("journey", "set", novel / "ch2.md", "--story-type", "email_memo")
    assert agrees(tk, novel, "ch2.md"), "journey set derives as the agent does"

    agent = tk.start(novel, other)
    affected = ["ch1.md", "ch2.md", "ch3.md", "memo.md"]
    tk.wait_for(lambda: all(agrees(tk, novel, rel) for rel in affected), timeout=30,
                what="sidecars re-derived after the start", proc=agent)
    flagged = words_flagged(novel, "ch1.md")
    assert not {"colour", "harbour", "Vellamir", "quenth"} & flagged, flagged
    assert "neighbours" not in words_flagged(novel, "ch2.md")
    assert any(f["rule"] == "long_sentence" and "limit 20" in f["message"] for f in sidecar(novel, "ch2.md")["quick"])
    assert mtimes(other) == other_before, "another project's sidecars are not rewritten"

    # Agent running: journey set from the CLI, then tk.journeySet from the editor.
    tk.run("journey", "set", novel / "ch1.md", "--story-type", "creative_fiction")
    tk.wait_for(lambda: sidecar(novel, "ch1.md")["journey"]["story_type"] == "creative_fiction"
                and agrees(tk, novel, "ch1.md"), timeout=5, what="ch1 after journey set", proc=agent)
    client = LSPClient(tk.env)
    client.initialize({"general": {"positionEncodings": ["utf-8"]}}, root=novel)
    try:
        uri = client.open(novel / "ch2.md", (novel / "ch2.md").read_text())
        r = client.request("workspace/executeCommand", {"command": "tk.journeySet",
                                                       "arguments": [uri, {"story_type": "creative_fiction"}]})
        assert "error" not in r, r
    finally:
        client.close()
    tk.wait_for(lambda: sidecar(novel, "ch2.md")["journey"]["story_type"] == "creative_fiction"
                and agrees(tk, novel, "ch2.md"), timeout=5, what="ch2 after tk.journeySet", proc=agent)
    assert not any(f["rule"] == "long_sentence" for f in sidecar(novel, "ch2.md")["quick"])

    # A dictionary change while the agent runs re-derives the documents it affects.
    (novel / ".tk" / "dictionary.txt").write_text("zorblax\n")
    tk.wait_for(lambda: "quenth" in words_flagged(novel, "ch1.md") and agrees(tk, novel, "ch1.md"),
                timeout=5, what="dictionary change", proc=agent)
    assert mtimes(other) == other_before
    assert tk.stop(agent) == 0


def test_story_type_limits_are_one_table_and_an_explicit_limit_loosens_them(tk):
    proj = tk.project("p")
    (proj / ".tk").mkdir()
    shown = tk.json("story-types", "show", "creative_fiction", "--json")
    limit = shown["thresholds"]["max_sentence_words"]
    assert shown["thresholds"]["max_grade"] is None
    (proj / "at.md").write_text("---\ntk:\n  story_type: creative_fiction\n---\n\n" + sentence(limit) + "\n")
    (proj / "over.md").write_text("---\ntk:\n  story_type: creative_fiction\n---\n\n" + sentence(limit + 1) + "\n")
    r = tk.json("check", "--format", "json", proj / "at.md", proj / "over.md")
    at, over = r["files"]
    assert not [f for f in at["findings"] if f["rule"] == "long_sentence"]
    (long,) = [f for f in over["findings"] if f["rule"] == "long_sentence"]
    assert f"limit {limit}" in long["message"]
    assert not [f for f in at["findings"] + over["findings"] if f["rule"] == "readability"]

    # technical_docs says 25; the writer's explicit 40 wins (a story type's limit is a default).
    docs_limit = tk.json("story-types", "show", "technical_docs", "--json")["thresholds"]["max_sentence_words"]
    (proj / "docs.md").write_text("---\ntk:\n  story_type: technical_docs\n---\n\n" + sentence(docs_limit + 5) + "\n")
    findings = tk.json("check", "--format", "json", proj / "docs.md")["files"][0]["findings"]
    assert any(f["rule"] == "long_sentence" and f"limit {docs_limit}" in f["message"] for f in findings)
    (proj / ".tk" / "config.json").write_text(json.dumps({"heuristics": {"max_sentence_words": 40}}))
    findings = tk.json("check", "--format", "json", proj / "docs.md")["files"][0]["findings"]
    assert not [f for f in findings if f["rule"] == "long_sentence"]


def test_check_refuses_what_the_agent_refuses(tk):
    proj = tk.project("p")
    (proj / ".tk").mkdir()
    (proj / ".tk" / "config.json").write_text(json.dumps({"watch": {"max_file_bytes": 2000}}))
    (proj / "binary.md").write_bytes(bytes(range(256)) * 4)
    (proj / "big.md").write_text(("The report was written by the team. " * 100) + "\n")
    r = tk.run("check", "--format", "json", proj / "binary.md", proj / "big.md")
    files = {pathlib.Path(f["path"]).name: f for f in json.loads(r.stdout)["files"]}
    assert files["binary.md"]["findings"] == [] and "not a text file" in files["binary.md"]["skipped"]
    assert files["big.md"]["findings"] == [] and "max_file_bytes" in files["big.md"]["skipped"]
    assert "not a text file" in r.stderr and "max_file_bytes" in r.stderr
    text = tk.run("check", proj / "binary.md").stdout
    assert "not a text file" in text and "No findings" not in text.split("\n")[0]
