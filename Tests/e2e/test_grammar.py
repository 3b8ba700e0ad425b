"""End-to-end tests of issue 23: grammar rules (category `grammar`), language-aware spelling
(rule `other_language`), one finding per span and dialogue left to the characters."""
import json
import subprocess

import pytest


def findings(tk, path, *extra):
    r = tk.run("check", "--format", "json", *extra, path, check=False)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["files"][0]["findings"]


def has_dictionary(name):
    import os
    return any(os.path.exists(f"{d}/{name}.dic") for d in ("/usr/share/hunspell", "/usr/share/myspell"))


GRAMMAR_DOC = """# Notes

Its a good day. I hope your happy there, and we waited a hour for more then enough.

He go to school. They could of left earlier.
"""


def test_grammar_findings_carry_their_corrections(tk):
    p = tk.project()
    f = p / "notes.md"
    f.write_text(GRAMMAR_DOC)
    data = f.read_bytes()
    got = [x for x in findings(tk, f) if x["category"] == "grammar"]
    fixes = {data[x["start"]:x["end"]].decode(): x["replacements"][0] for x in got}
    assert fixes == {"Its": "It's", "your": "you're", "a": "an", "then": "than", "go": "goes", "of": "have"}, fixes
    for x in got:
        assert x["severity"] == "warning" and x["rule"] and x["message"]
    # rdjsonl: each grammar finding is one diagnostic whose suggestion carries the correction.
    r = tk.run("check", "--format", "rdjsonl", f, check=False)
    diags = [json.loads(line) for line in r.stdout.splitlines() if line.strip()]
    texts = {d["suggestions"][0]["text"] for d in diags if d.get("suggestions") and d["code"]["value"] in
             {"its_contraction", "your_youre", "a_an", "then_than", "subject_verb_agreement", "could_of"}}
    assert {"It's", "you're", "an", "than", "goes", "have"} <= texts


def test_correct_sentences_get_no_grammar_finding(tk):
    p = tk.project()
    f = p / "clean.md"
    f.write_text("# Clean\n\nIt's an honest mistake. I had had enough, and he said that that was fine. "
                 "She is taller than her brother, and then we left. Let it go. A unicorn is a one-off.\n")
    assert [x for x in findings(tk, f) if x["category"] == "grammar"] == []


CHAPTER = """# Chapter Two

Marie turned at the door. \u201cC'est la vie, mon ami, et la vie est fait comme \u00e7a, est fait,\u201d she said,
and the recieved letter fell from her hand.

> Die Grenzen meiner Sprache bedeuten die Grenzen meiner Welt, und das ist nicht wenig f\u00fcr uns alle.

He picked up the leter and read it twice.
"""


@pytest.mark.skipif(not has_dictionary("en_US"), reason="hunspell-en-us is not installed")
def test_quotations_in_other_languages_are_not_checked_in_english(tk):
    p = tk.project()
    f = p / "ch2.md"
    f.write_text(CHAPTER)
    data = f.read_bytes()
    got = findings(tk, f)
    fr_start = data.index("C'est".encode())
    fr_end = data.index("she said".encode())
    de_start = data.index(b"Die Grenzen")
    de_end = data.index(b"He picked")
    inside = [x for x in got if x["rule"] != "other_language"
              and (fr_start <= x["start"] < fr_end or de_start <= x["start"] < de_end)]
    assert inside == [], inside
    spelt = {x["text"] for x in got if x["rule"] == "spelling"}
    assert {"recieved", "leter"} <= spelt
    notes = [x for x in got if x["rule"] == "other_language"]
    if not has_dictionary("fr_FR") or not has_dictionary("de_DE"):
        assert len(notes) == 1 and notes[0]["severity"] == "info"
    assert not any(x["severity"] == "warning" and x["rule"] == "repeated_phrase" for x in got)


def test_a_page_in_german_is_not_spell_checked_in_english(tk):
    p = tk.project()
    f = p / "ls.md"
    f.write_text("# ls\n\n> Listet den Inhalt eines Verzeichnisses auf.\n\n"
                 "- Zeige die Dateien in einem Verzeichnis an, eine pro Zeile:\n\n`ls -1`\n\n"
                 "- Zeige auch versteckte Dateien und die Rechte der Dateien an:\n\n`ls -la`\n")
    got = findings(tk, f)
    assert [x for x in got if x["rule"] == "spelling"] == [] or has_dictionary("de_DE")
    assert [x for x in got if x["category"] in ("grammar", "passive", "repeated_word")] == []
    if not has_dictionary("de_DE"):
        assert len([x for x in got if x["rule"] == "other_language"]) == 1


def test_dialogue_in_fiction_is_left_to_the_characters(tk):
    p = tk.project()
    f = p / "scene.md"
    text = ("\u201cAt the end of the day, its a test, probably,\u201d she said.\n\n"
            "At the end of the day, the plan was probably fine.\n")
    f.write_text("---\ntk:\n  story_type: creative_fiction\n---\n" + text)
    got = findings(tk, f)
    data = f.read_bytes()
    speech_end = data.index("she said".encode())
    in_speech = [x for x in got if x["start"] < speech_end]
    assert {x["category"] for x in in_speech} == {"grammar"}, in_speech
    narration = {x["category"] for x in got if x["start"] > speech_end}
    assert "cliche" in narration


def test_the_editor_gets_a_quick_fix_with_each_grammar_correction(tk):
    """The language server offers each grammar finding's correction as a quick fix whose edit,
    applied as an editor would, leaves the sentence without that finding."""
    from lsp_helpers import LSPClient
    p = tk.project()
    (p / ".tk").mkdir(exist_ok=True)
    c = LSPClient(dict(tk.env), cwd=p)
    try:
        c.initialize()
        uri = c.open(p / "notes.md", GRAMMAR_DOC)
        diags = c.diagnostics(uri, lambda ds: any(d["code"] == "a_an" for d in ds))
        fixes = {}
        for d in diags:
            if d["code"] not in {"its_contraction", "your_youre", "a_an", "then_than", "subject_verb_agreement", "could_of"}:
                continue
            acts = c.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": d["range"],
                                                         "context": {"diagnostics": [d]}})["result"]
            quick = [a for a in acts if a.get("kind") == "quickfix" and "edit" in a
                     and not a["title"].startswith("Ignore")]
            assert quick, (d["code"], [a["title"] for a in acts])
            edit = quick[0]["edit"]["changes"][uri][0]
            assert edit["range"] == d["range"]
            fixes[d["code"]] = (edit, quick[0].get("isPreferred"))
        assert {k: v[0]["newText"] for k, v in fixes.items()} == {
            "its_contraction": "It's", "your_youre": "you're", "a_an": "an", "then_than": "than",
            "subject_verb_agreement": "goes", "could_of": "have"}
        # Applying the a/an fix, as the editor would, clears that finding.
        edit = fixes["a_an"][0]
        mark = c.mark()
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                            "contentChanges": [{"range": edit["range"], "text": edit["newText"]}]})
        c.diagnostics(uri, lambda ds: not any(d["code"] == "a_an" for d in ds)
                      and any(d["code"] == "then_than" for d in ds), after=mark)
    finally:
        c.close()
