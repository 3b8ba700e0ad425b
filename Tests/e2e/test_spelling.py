"""End-to-end tests of issue 15: Hunspell spelling in `tk-agent check` (category `spelling`)."""
import json


def spelling(tk, path, *extra):
    r = tk.run("check", "--format", "json", *extra, path, check=False)
    assert r.returncode == 0, r.stderr
    findings = json.loads(r.stdout)["files"][0]["findings"]
    return [f for f in findings if f["category"] == "spelling"], r.stderr


def project(tmp_path, text, dictionary=None):
    root = tmp_path / "proj"
    (root / ".tk").mkdir(parents=True)
    (root / "ch1.md").write_text(text)
    if dictionary is not None:
        (root / ".tk" / "dictionary.txt").write_text(dictionary)
    return root


TEXT = "# Chapter\n\nShe wrote a leter to the mayor before dawn.\n"


def test_misspelt_word_is_flagged_with_suggestions(tk, tmp_path):
    root = project(tmp_path, TEXT)
    found, _ = spelling(tk, root / "ch1.md")
    assert [f["text"] for f in found] == ["leter"]
    f = found[0]
    assert f["rule"] == "spelling" and f["severity"] == "suggestion"
    assert "letter" in f["replacements"]
    data = (root / "ch1.md").read_bytes()
    assert data[f["start"]:f["end"]] == b"leter"
    assert (f["line"], f["column"]) == (3, 13)


def test_project_dictionary_accepts_the_word(tk, tmp_path):
    root = project(tmp_path, TEXT, dictionary="# words of this book\nleter\n")
    found, _ = spelling(tk, root / "ch1.md")
    assert found == []


def test_name_used_five_times_is_not_flagged(tk, tmp_path):
    root = project(tmp_path, "# One\n\nQuorvanth rode north. Then Quorvanth slept.\n")
    # The other three uses are in another document of the same project: names are counted project-wide.
    (root / "ch2.md").write_text("Quorvanth woke. Quorvanth ate. At noon Quorvanth left.\n")
    found, _ = spelling(tk, root / "ch1.md")
    assert found == []
    (root / "ch3.md").write_text("The quorvanth was wet.\n")
    found, _ = spelling(tk, root / "ch3.md")
    assert found == []  # in lower case too: the project writes it as a name five times
    # A made-up name used once is flagged.
    (root / "ch4.md").write_text("Zindrupal is new here.\n")
    found, _ = spelling(tk, root / "ch4.md")
    assert [f["text"] for f in found] == ["Zindrupal"]


def test_never_in_code_urls_link_targets_html_or_front_matter(tk, tmp_path):
    text = ("---\ntitle: Thsi is front matter\n---\n\nCall `recieve_all()` or `teh` and see "
            "[the page](https://exmaple.org/wrng) or <https://teh.example/foo>.\n\n"
            "```\nteh code\n```\n\n<div class=\"wrng\">fine</div>\n")
    root = project(tmp_path, text)
    found, _ = spelling(tk, root / "ch1.md")
    assert found == []


def test_spelling_off_and_language_from_front_matter(tk, tmp_path):
    root = project(tmp_path, "---\nlang: en_GB\n---\n\nThe colour of honour.\n")
    found, _ = spelling(tk, root / "ch1.md")
    assert found == []
    (root / "us.md").write_text("The colour of honour.\n")
    found, _ = spelling(tk, root / "us.md")
    assert sorted(f["text"] for f in found) == ["colour", "honour"]
    (root / ".tk" / "config.json").write_text(json.dumps({"heuristics": {"spelling": False}}))
    found, _ = spelling(tk, root / "us.md")
    assert found == []


def test_missing_dictionary_is_one_clear_line(tk, tmp_path):
    root = project(tmp_path, "---\nlang: xx_YY\n---\n\nSome wrods here.\n")
    (root / "b.md").write_text("---\nlang: xx_YY\n---\n\nMore wrods.\n")
    r = tk.run("check", "--format", "json", root, check=False)
    assert r.returncode == 0, r.stderr
    lines = [l for l in r.stderr.splitlines() if "xx_YY" in l]
    assert len(lines) == 1 and "hunspell" in lines[0].lower()
    data = json.loads(r.stdout)
    assert all(f["category"] != "spelling" for file in data["files"] for f in file["findings"])


def test_cap_per_document_most_frequent_first(tk, tmp_path):
    words = [f"zq{chr(97 + i)}{chr(97 + j)}x" for i in range(10) for j in range(6)]  # 60 distinct unknown words
    # Each sentence opens with a real word: a misspelt word that opens a sentence uncapitalised is
    # one finding, the capital's (one finding per span, the most specific rule winning).
    text = "# Many\n\nWords " + " ".join(words) + ". And " + " ".join(["blorptastic"] * 4) + ".\n"
    root = project(tmp_path, text)
    found, _ = spelling(tk, root / "ch1.md")
    assert len(found) == 40
    # The word used four times is kept whole; the once-used words fill the rest of the cap.
    assert [f["text"] for f in found].count("blorptastic") == 4
