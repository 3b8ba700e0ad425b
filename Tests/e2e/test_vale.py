"""A team's Vale styles (issue 22): `.vale.ini` and its rules, found as Vale finds them, applied by
`check` (json, sarif), in the agent's sidecar after a save, and in the LSP with quick fixes.
The rules are written here (no public pack is copied)."""
import json
import subprocess

from agent_helpers import BIN
from lsp_helpers import LSPClient

INI = """StylesPath = styles
MinAlertLevel = suggestion

[*.md]
BasedOnStyles = House

[draft.md]
House.Hedge = NO
"""

RULES = {
    "Terms.yml": """extends: substitution
message: "Use '%s' instead of '%s'."
level: error
ignorecase: true
action:
  name: replace
swap:
  utilise: use
  e-mail: email
""",
    "Hedge.yml": """extends: existence
message: "Avoid hedging with '%s'."
level: warning
ignorecase: true
tokens:
  - maybe
  - perhaps
""",
    "Heads.yml": """extends: capitalization
message: "'%s' should use sentence-style capitalization."
level: suggestion
scope: heading
match: $sentence
""",
    "Modal.yml": """extends: sequence
message: "Add 'to': '%[2]s %[3]s to %[4]s'."
level: warning
tokens:
  - tag: MD
  - pattern: be
  - tag: JJ
  - tag: VB|VBN
""",
    "Todo.yml": """extends: script
message: "Resolve '%s' before you publish."
level: suggestion
scope: raw
script: |
  text := import("text")
  matches := []
  for m in text.re_find(`TODO`, scope, -1) {
    matches = append(matches, {begin: m[0].begin, end: m[0].end})
  }
""",
    "Fancy.yml": """extends: script
message: "a script that does not parse"
script: |
  matches := [
""",
}

DOC = """# Notes On The Café

Maybe we utilise the e-mail form. `maybe` in code is fine.

```
perhaps in a block
```

<!-- vale House.Hedge = NO -->

Perhaps not here.
"""


def make_project(root):
    (root / ".tk").mkdir(parents=True, exist_ok=True)
    (root / ".vale.ini").write_text(INI)
    styles = root / "styles" / "House"
    styles.mkdir(parents=True)
    for name, body in RULES.items():
        (styles / name).write_text(body)
    (root / "doc.md").write_text(DOC)
    return root


def vale_lines(report):
    return [f"{f['path']}:{x['line']}:{x['column']}:{x['rule']}:{x['message']}"
            for f in report["files"] for x in f["findings"] if x["category"] == "vale"]


def test_check_json_reports_vale_rules_with_vale_positions(tk):
    p = make_project(tk.project())
    r = subprocess.run([BIN, "check", "--format", "json", "doc.md"], cwd=p, env=tk.env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert vale_lines(report) == [
        "doc.md:1:3:House.Heads:'Notes On The Café' should use sentence-style capitalization.",
        "doc.md:3:1:House.Hedge:Avoid hedging with 'Maybe'.",
        "doc.md:3:10:House.Terms:Use 'use' instead of 'utilise'.",
        "doc.md:3:22:House.Terms:Use 'email' instead of 'e-mail'.",
    ]
    terms = [x for x in report["files"][0]["findings"] if x["rule"] == "House.Terms"]
    assert terms[0]["severity"] == "error" and terms[0]["replacements"] == ["use"] and terms[0]["text"] == "utilise"
    data = (p / "doc.md").read_bytes()
    for x in report["files"][0]["findings"]:
        assert data[x["start"]:x["end"]].decode() == x["text"]
    # A rule that cannot be loaded is one line on stderr, not a failure.
    assert "Fancy.yml" in r.stderr and "does not parse" in r.stderr
    # Sequence (parts of speech) and script rules run.
    (p / "seq.md").write_text("It would be great write this.\n\nTODO: more work.\n")
    r = subprocess.run([BIN, "check", "--format", "json", "seq.md"], cwd=p, env=tk.env, capture_output=True, text=True, timeout=60)
    assert vale_lines(json.loads(r.stdout)) == [
        "seq.md:1:4:House.Modal:Add 'to': 'be great to write'.",
        "seq.md:3:1:House.Todo:Resolve 'TODO' before you publish.",
    ]
    # A section for one file switches a rule off there; --strict still exits 2 with findings.
    (p / "draft.md").write_text("Maybe so.\n")
    r = subprocess.run([BIN, "check", "--strict", "--format", "json", "draft.md"], cwd=p, env=tk.env,
                       capture_output=True, text=True, timeout=60)
    assert not [l for l in vale_lines(json.loads(r.stdout)) if "Hedge" in l]
    # From a subfolder, the ini is found in the parent.
    sub = p / "sub"
    sub.mkdir()
    (sub / "x.md").write_text("We utilise it.\n")
    r = subprocess.run([BIN, "check", "--format", "json", "x.md"], cwd=sub, env=tk.env, capture_output=True, text=True, timeout=60)
    assert vale_lines(json.loads(r.stdout)) == ["x.md:1:4:House.Terms:Use 'use' instead of 'utilise'."]


def test_check_sarif_carries_vale_level_and_fix(tk):
    p = make_project(tk.project())
    r = subprocess.run([BIN, "check", "--format", "sarif", "doc.md"], cwd=p, env=tk.env, capture_output=True, text=True, timeout=60)
    sarif = json.loads(r.stdout)
    results = sarif["runs"][0]["results"]
    terms = [x for x in results if x["ruleId"] == "House.Terms"]
    assert len(terms) == 2 and terms[0]["level"] == "error"
    assert "fixes" in terms[0] and json.dumps(terms[0]["fixes"]).count('"use"') == 1


def test_sidecar_after_save_has_vale_findings(tk):
    p = make_project(tk.project())
    agent = tk.start(p)
    doc = p / "notes.md"
    doc.write_text("We utilise this.\n")

    def ready():
        s = p / ".tk" / "notes.md.review.json"
        try:
            data = json.loads(s.read_text())
        except (OSError, json.JSONDecodeError):
            return None
        got = [x for x in data["quick"] if x["category"] == "vale"]
        return got or None
    got = tk.wait_for(ready, timeout=20, what="vale findings in the sidecar", proc=agent)
    assert [(x["rule"], x["line"], x["column"], x["replacements"]) for x in got] == [("House.Terms", 1, 4, ["use"])]


def test_rule_or_ini_change_rederives_the_sidecar(tk):
    """Editing a rule file (not a document) and then the ini re-derives the documents: the watcher
    takes the Vale styles as a project-wide input."""
    p = make_project(tk.project())
    doc = p / "notes.md"
    doc.write_text("We utilise this, maybe.\n")
    agent = tk.start(p)

    def rules_in_sidecar(expected):
        def check():
            try:
                data = json.loads((p / ".tk" / "notes.md.review.json").read_text())
            except (OSError, json.JSONDecodeError):
                return None
            got = sorted({x["rule"] for x in data["quick"] if x["category"] == "vale"})
            return True if got == expected else None
        return check
    tk.wait_for(rules_in_sidecar(["House.Hedge", "House.Terms"]), timeout=20, what="first sidecar", proc=agent)
    # The script that does not parse is skipped: one line in status, for the agent's user.
    tk.wait_for(lambda: any("skipped" in x and "Fancy.yml" in x for x in tk.status()["projects"][0]["problems"]),
                timeout=20, what="the skipped rule in status", proc=agent)
    # A rule file changes: the hedge word is no longer listed.
    (p / "styles" / "House" / "Hedge.yml").write_text(RULES["Hedge.yml"].replace("  - maybe\n", "  - arguably\n"))
    tk.wait_for(rules_in_sidecar(["House.Terms"]), timeout=20, what="sidecar after the rule edit", proc=agent)
    # The ini changes: the Terms rule is switched off for every file.
    (p / ".vale.ini").write_text(INI + "\n[*]\nHouse.Terms = NO\n")
    tk.wait_for(rules_in_sidecar([]), timeout=20, what="sidecar after the ini edit", proc=agent)
    # The script rule goes: its line leaves status.
    (p / "styles" / "House" / "Fancy.yml").unlink()
    tk.wait_for(lambda: not any("Fancy.yml" in x for x in tk.status()["projects"][0]["problems"]),
                timeout=20, what="status without the skipped rule", proc=agent)


def test_lsp_diagnostics_and_quick_fix(tk):
    p = make_project(tk.project())
    c = LSPClient(tk.env, cwd=p)
    try:
        c.initialize()
        uri = c.open(p / "doc.md", DOC)
        diags = c.diagnostics(uri, lambda ds: any(d.get("code") == "House.Terms" for d in ds), timeout=20)
        terms = [d for d in diags if d.get("code") == "House.Terms"]
        assert terms[0]["severity"] == 1 and terms[0]["range"]["start"] == {"line": 2, "character": 9}
        acts = c.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": terms[0]["range"],
                                                    "context": {"diagnostics": [terms[0]]}})["result"]
        fix = next(a for a in acts if a["title"] == "Replace with “use”")
        assert fix["edit"]["changes"][uri][0]["newText"] == "use"
    finally:
        c.close()
