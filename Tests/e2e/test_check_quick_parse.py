"""`check` reads its plain command lines without ArgumentParser (`Check.quickParse`); anything else
goes to ArgumentParser. Each case runs one command the quick reader takes and one that means the
same but that it declines (a repeated option: ArgumentParser keeps the last), and compares
stdout, stderr and the exit status."""
import subprocess

import pytest

from agent_helpers import BIN

DOC = "It was very good. The report was written by the team, and it is a good report.\n"

CASES = [
    (["--format", "json", "a.md"], ["--format", "text", "--format", "json", "a.md"]),
    (["--format=sarif", "a.md"], ["--format", "line", "--format=sarif", "a.md"]),
    (["--json", "a.md", "b.md"], ["--json", "--json", "a.md", "b.md"]),
    (["--strict", "--format", "line", "a.md"], ["--strict", "--strict", "--format", "line", "a.md"]),
    (["--story-type", "email_memo", "--format", "json", "a.md"],
     ["--story-type", "blog_personal", "--story-type", "email_memo", "--format", "json", "a.md"]),
    (["--story-type=creative_fiction", "--json", "a.md"],
     ["--story-type", "email_memo", "--story-type=creative_fiction", "--json", "a.md"]),
    (["--format", "rdjsonl", "--", "a.md"], ["--format", "json", "--format", "rdjsonl", "--", "a.md"]),
    (["a.md", "missing.md"], ["--strict", "--strict", "a.md", "missing.md"]),
    (["--format", "json", "-"], ["--format", "text", "--format", "json", "-"]),
]


@pytest.fixture
def proj(tmp_path):
    p = tmp_path / "proj"
    p.mkdir()
    (p / "a.md").write_text(DOC)
    (p / "b.md").write_text("# Notes\n\nThere is a cat. It is really quite big.\n")
    return p


def run(tk, proj, args):
    return subprocess.run([BIN, "check", *args], cwd=proj, input=DOC, capture_output=True, text=True,
                          env=tk.env, timeout=60)


@pytest.mark.parametrize("quick,full", CASES)
def test_the_quick_reading_and_argument_parser_agree(tk, proj, quick, full):
    a, b = run(tk, proj, quick), run(tk, proj, full)
    assert (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr)
    assert a.stdout or a.stderr


def test_strict_is_read(tk, proj):
    plain, strict = run(tk, proj, ["a.md"]), run(tk, proj, ["--strict", "a.md"])
    assert plain.returncode == 0 and strict.returncode == 2
    assert plain.stdout == strict.stdout


@pytest.mark.parametrize("args,needle", [
    (["--story-type=nope", "a.md"], "Unknown story type 'nope'"),
    (["--json", "--format", "line", "a.md"], "--json and --format line disagree"),
    (["--format", "xml", "a.md"], "The value 'xml' is invalid for '--format <format>'"),
    (["--frmat", "json", "a.md"], "Unknown option '--frmat'"),
    (["--format", "a.md"], "The value 'a.md' is invalid for '--format <format>'"),
])
def test_what_the_quick_reading_declines_gets_argument_parsers_error(tk, proj, args, needle):
    r = run(tk, proj, args)
    assert r.returncode == 64, r
    assert needle in r.stderr and "Usage: tk-agent check" in r.stderr
    assert r.stdout == ""


def test_help_and_a_path_named_help(tk, proj):
    h = run(tk, proj, ["--help"])
    assert h.returncode == 0 and "USAGE: tk-agent check" in h.stdout
    r = run(tk, proj, ["a.md", "help"])
    assert r.returncode == 1 and "help: no such file or folder" in r.stderr
