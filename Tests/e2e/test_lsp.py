"""`tk-agent lsp` driven over pipes: framing, malformed input, lifecycle, cancellation,
diagnostics on the unsaved buffer, suggestions from a review round against the fake provider,
commands, and sidecar changes on disk."""
import json
import os
import time

import pytest

from fakellm import FakeLLM
from lsp_helpers import LSPClient, frame
from review_helpers import provider_available, sidecar, suggestion, write_config

DOC = """# Crème brûlée ☕

Über 😀 — the cake was eaten by the dog. It was a really nice day in Zürich.

The food was very good.
"""


@pytest.fixture
def fake():
    f = FakeLLM().start()
    yield f
    f.stop()


@pytest.fixture
def proj(tk, fake):
    p = tk.project()
    (p / ".tk").mkdir(exist_ok=True)
    (p / "doc.md").write_text(DOC)
    write_config(tk, fake)
    return p


@pytest.fixture
def client(tk, fake, proj):
    env = dict(tk.env)
    env.update(fake.env())
    c = LSPClient(env, cwd=proj)
    yield c
    if c.proc.poll() is None:
        c.proc.kill()


def utf16_col(line: str, needle: str) -> int:
    return len(line[:line.index(needle)].encode("utf-16-le")) // 2


# -- framing and lifecycle ---------------------------------------------------------------------

def test_initialize_negotiates_the_position_encoding(client):
    r = client.initialize({"general": {"positionEncodings": ["utf-8", "utf-16"]}})
    caps = r["result"]["capabilities"]
    assert caps["positionEncoding"] == "utf-8"
    assert caps["textDocumentSync"]["change"] == 2
    assert set(caps["executeCommandProvider"]["commands"]) >= {"tk.review", "tk.accept", "tk.skip", "tk.journeySet"}
    assert caps["diagnosticProvider"]["interFileDependencies"] is False
    assert client.close() == 0


def test_partial_reads_and_batched_messages(client, proj):
    init = frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    for i in range(0, len(init), 7):          # the header and body in 7-byte pieces
        client.write(init[i:i + 7])
        time.sleep(0.002)
    assert "capabilities" in client.response(1)["result"]
    # Two requests in one write, the second split across writes.
    a = frame({"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
               "params": {"textDocument": {"uri": "file:///nowhere.md"}, "position": {"line": 0, "character": 0}}})
    b = frame({"jsonrpc": "2.0", "id": 3, "method": "textDocument/diagnostic",
               "params": {"textDocument": {"uri": "file:///nowhere.md"}}})
    client.write(a + b[:10])
    client.write(b[10:])
    assert client.response(2)["result"] is None
    assert client.response(3)["result"]["kind"] == "full"
    assert client.close() == 0


def test_malformed_messages_get_clear_errors_and_the_server_goes_on(client):
    client.initialize()
    client.write(frame(b"{this is not json"))
    e = client.wait(lambda m: m.get("error", {}).get("code") == -32700, what="parse error")
    assert e["id"] is None and "not valid JSON" in e["error"]["message"]
    client.write(b"Content-Type: text/plain\r\n\r\n")
    e = client.wait(lambda m: "Content-Length" in m.get("error", {}).get("message", ""), what="header error")
    assert e["error"]["code"] == -32700
    client.write(b"Content-Length: lots\r\n\r\n")
    client.wait(lambda m: "not a number" in m.get("error", {}).get("message", ""), what="bad length")
    client.write(frame([1, 2, 3]))
    client.wait(lambda m: m.get("error", {}).get("code") == -32600, what="invalid request")
    client.write(frame({"jsonrpc": "2.0", "id": 40, "method": 12}))
    assert client.response(40)["error"]["code"] == -32600
    r = client.request("textDocument/rename", {})
    assert r["error"]["code"] == -32601 and "does not handle" in r["error"]["message"]
    r = client.request("textDocument/hover", {"nothing": True})
    assert r["error"]["code"] == -32602
    assert client.close() == 0
    assert b"Fatal" not in client.proc.stderr.read()


def test_requests_before_initialize_and_after_shutdown(client):
    r = client.request("textDocument/hover", {})
    assert r["error"]["code"] == -32002
    client.initialize()
    assert client.request("initialize", {"capabilities": {}})["error"]["code"] == -32600
    assert client.request("shutdown")["result"] is None
    assert client.request("textDocument/hover", {})["error"]["code"] == -32600
    client.notify("exit")
    assert client.proc.wait(10) == 0


def test_exit_without_shutdown_exits_1(client):
    client.initialize()
    client.notify("exit")
    assert client.proc.wait(10) == 1


def test_cancelled_request_is_answered_with_request_cancelled(client):
    client.initialize()
    req = frame({"jsonrpc": "2.0", "id": 77, "method": "textDocument/diagnostic",
                 "params": {"textDocument": {"uri": "file:///x.md"}}})
    cancel = frame({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 77}})
    client.write(req + cancel)
    r = client.response(77)
    assert r["error"]["code"] == -32800
    # A cancel for a request already answered changes nothing.
    client.notify("$/cancelRequest", {"id": 1})
    assert client.request("shutdown")["result"] is None


# -- diagnostics -------------------------------------------------------------------------------

def test_findings_on_the_unsaved_buffer_with_non_ascii_before_them(client, proj):
    client.initialize()
    uri = client.open(proj / "doc.md", DOC)
    diags = client.diagnostics(uri, lambda ds: any(d["code"] == "passive" for d in ds))
    line = DOC.splitlines()[2]
    passive = next(d for d in diags if d["code"] == "passive")
    assert passive["range"]["start"] == {"line": 2, "character": utf16_col(line, "was eaten")}
    assert passive["source"] == "tk-agent" and passive["severity"] in (2, 3, 4)
    # An unsaved incremental edit: a new sentence after the emoji line.
    mark = client.mark()
    client.notify("textDocument/didChange", {
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 0}},
                            "text": "\nÇa 😀 va: the ball was thrown by Zoë.\n"}]})
    t0 = time.monotonic()
    diags = client.diagnostics(uri, lambda ds: any(d["range"]["start"]["line"] == 4 and d["code"] == "passive" for d in ds),
                               after=mark)
    assert time.monotonic() - t0 < 2
    new = next(d for d in diags if d["range"]["start"]["line"] == 4 and d["code"] == "passive")
    assert new["range"]["start"]["character"] == utf16_col("Ça 😀 va: the ball was thrown by Zoë.", "was thrown")
    assert client.close() == 0


def test_utf8_positions_when_offered(client, proj):
    client.initialize({"general": {"positionEncodings": ["utf-8"]}})
    uri = client.open(proj / "doc.md", DOC)
    diags = client.diagnostics(uri, lambda ds: any(d["code"] == "passive" for d in ds))
    line = DOC.splitlines()[2]
    passive = next(d for d in diags if d["code"] == "passive")
    assert passive["range"]["start"]["character"] == line.encode().index(b"was eaten")
    client.close()


def test_pull_diagnostics_with_result_ids(client, proj):
    client.initialize({"textDocument": {"diagnostic": {}}})
    uri = client.open(proj / "doc.md", DOC)
    r = client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})["result"]
    assert r["kind"] == "full" and any(d["code"] == "passive" for d in r["items"])
    again = client.request("textDocument/diagnostic", {"textDocument": {"uri": uri}, "previousResultId": r["resultId"]})
    assert again["result"] == {"kind": "unchanged", "resultId": r["resultId"]}
    assert not any(m.get("method") == "textDocument/publishDiagnostics" for m in client.messages)
    client.close()


def test_settings_from_initialization_options_and_configuration(client, proj):
    client.initialize(options={"tk-agent": {"severity": {"passive": "warning"}, "debounceMs": 20}})
    uri = client.open(proj / "doc.md", DOC)
    diags = client.diagnostics(uri, lambda ds: any(d["code"] == "passive" for d in ds))
    assert next(d for d in diags if d["code"] == "passive")["severity"] == 2
    mark = client.mark()
    client.notify("workspace/didChangeConfiguration", {"settings": {"tk-agent": {"rules": {"passive": False}}}})
    client.diagnostics(uri, lambda ds: not any(d["code"] == "passive" for d in ds), after=mark)
    # The project config applies beneath: a rule it disables stays off until a setting enables it.
    client.close()


def test_project_config_applies_beneath_settings(tk, fake, proj):
    (proj / ".tk" / "config.json").write_text(json.dumps({"heuristics": {"disabled": ["passive"]}}))
    env = dict(tk.env)
    env.update(fake.env())
    c = LSPClient(env, cwd=proj)
    try:
        c.initialize()
        uri = c.open(proj / "doc.md", DOC)
        diags = c.diagnostics(uri, lambda ds: len(ds) > 0)
        assert not any(d["code"] == "passive" for d in diags)
        mark = c.mark()
        c.notify("workspace/didChangeConfiguration", {"settings": {"tk-agent": {"rules": {"passive": True}}}})
        c.diagnostics(uri, lambda ds: any(d["code"] == "passive" for d in ds), after=mark)
    finally:
        c.close()


def test_over_the_size_limit_says_so(client, proj):
    client.initialize(options={"tk-agent": {"maxFileBytes": 100}})
    uri = client.open(proj / "doc.md", DOC)
    diags = client.diagnostics(uri, lambda ds: len(ds) > 0)
    assert [d["code"] for d in diags if d["code"] != "suggestion"] == ["too_large"]
    assert "over the limit of 100" in diags[0]["message"]
    client.close()


def test_code_actions_hover_and_ignore(client, proj):
    client.initialize()
    uri = client.open(proj / "doc.md", DOC)
    diags = client.diagnostics(uri, lambda ds: any(d["code"] == "passive" for d in ds))
    passive = next(d for d in diags if d["code"] == "passive")
    acts = client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": passive["range"],
                                                      "context": {"diagnostics": [passive]}})["result"]
    titles = [a["title"] for a in acts]
    assert "Ignore passive in this file" in titles
    ign = next(a for a in acts if a["title"] == "Ignore passive in this file")
    assert ign["kind"] == "quickfix"
    edit = ign["edit"]["changes"][uri][0]
    assert edit["newText"] == "<!-- tk-ignore-file passive -->\n"
    # Applying it (as the editor would) silences the rule.
    mark = client.mark()
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                             "contentChanges": [{"range": edit["range"], "text": edit["newText"]}]})
    client.diagnostics(uri, lambda ds: not any(d["code"] == "passive" for d in ds), after=mark)
    h = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 3, "character": 0}})
    assert h["result"] is None or "tk-agent" in h["result"]["contents"]["value"]
    client.close()


# -- suggestions from a round against the fake provider ------------------------------------------

def test_review_command_round_suggestions_accept_and_skip(tk, fake, proj, client):
    assert provider_available(tk, fake.env()), "the binary cannot reach the fake provider"
    fake.enqueue("anthropic", fake.suggestions([
        suggestion("really nice day", "bright day", advisor="editor"),
        suggestion("the cake was eaten by the dog", "the dog ate the cake", advisor="copywriter", type_="fix"),
        suggestion("Crème brûlée", "Crème brûlée, again", advisor="editor")]))
    client.initialize()
    uri = client.open(proj / "doc.md", DOC)
    client.diagnostics(uri, lambda ds: len(ds) > 0)
    r = client.request("workspace/executeCommand", {"command": "tk.review", "arguments": [uri]}, timeout=30)
    assert r["result"]["round"] and r["result"]["agent"] is False
    msg = client.wait(lambda m: m.get("method") == "window/showMessage" and "suggestions from" in m["params"]["message"],
                      timeout=60, what="arrival message")
    assert msg["params"]["message"] == "3 suggestions from the editor and the copywriter"
    diags = client.diagnostics(uri, lambda ds: sum(d["code"] == "suggestion" for d in ds) == 3)
    line = DOC.splitlines()[2]
    nice = next(d for d in diags if d["code"] == "suggestion" and "bright day" in d["message"])
    assert "editor" in nice["message"]
    assert nice["range"]["start"] == {"line": 2, "character": utf16_col(line, "really nice day")}
    # Unsaved edits before it: the range follows.
    mark = client.mark()
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [
        {"range": {"start": {"line": 2, "character": 0}, "end": {"line": 2, "character": 0}}, "text": "Ah, 🎉! "}]})
    diags = client.diagnostics(uri, lambda ds: any(d["code"] == "suggestion" and "bright day" in d["message"]
                                                   and d["range"]["start"]["character"] == utf16_col("Ah, 🎉! " + line, "really nice day")
                                                   for d in ds), after=mark)
    nice = next(d for d in diags if d["code"] == "suggestion" and "bright day" in d["message"])
    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": nice["range"]["start"]})
    text = hover["result"]["contents"]["value"]
    assert "the editor" in text and "priority 2" in text and "confidence 80" in text and "reads better" in text
    acts = client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": nice["range"],
                                                      "context": {"diagnostics": [nice]}})["result"]
    accept = next(a for a in acts if a["title"].startswith("Accept:"))
    assert accept["edit"]["changes"][uri] == [{"range": nice["range"], "newText": "bright day"}]
    assert accept["command"]["command"] == "tk.accept"
    skip = next(a for a in acts if a["title"] == "Skip suggestion")
    r = client.request("workspace/executeCommand", accept["command"])
    assert r["result"]["status"] == "accepted"
    fix = next(d for d in diags if d["code"] == "suggestion" and "the dog ate" in d["message"])
    acts = client.request("textDocument/codeAction", {"textDocument": {"uri": uri}, "range": fix["range"],
                                                      "context": {"diagnostics": [fix]}})["result"]
    skip = next(a for a in acts if a["title"] == "Skip suggestion")
    assert client.request("workspace/executeCommand", skip["command"])["result"]["status"] == "skipped"
    s = sidecar(proj, "doc.md")
    statuses = {x["suggested_text"]: x["status"] for x in s["suggestions"]}
    assert statuses == {"bright day": "accepted", "the dog ate the cake": "skipped", "Crème brûlée, again": "pending"}
    client.diagnostics(uri, lambda ds: sum(d["code"] == "suggestion" for d in ds) == 1)
    # journey set from the editor.
    r = client.request("workspace/executeCommand", {"command": "tk.journeySet",
                                                   "arguments": [uri, {"stage": "final", "story_type": "blog_personal"}]})
    assert r["result"]["stage"] == "final"
    assert sidecar(proj, "doc.md")["journey"]["stage"] == "final"
    bad = client.request("workspace/executeCommand", {"command": "tk.accept", "arguments": [uri, "s-nope"]})
    assert "error" in bad and "s-nope" in bad["error"]["message"]
    client.close()


def test_sidecar_changed_on_disk_refreshes_within_a_second(tk, fake, proj, client):
    client.initialize()
    uri = client.open(proj / "doc.md", DOC)
    client.diagnostics(uri, lambda ds: len(ds) > 0)
    mark = client.mark()
    fake.enqueue("anthropic", fake.suggestions([suggestion("really nice day", "fine day", advisor="editor"),
                                                suggestion("Zürich", "Geneva", advisor="creative_writer")]))
    # A real round (no agent: run by the command), whose sidecar is written just before it exits.
    tk.run("review", proj / "doc.md", "--now", "--wait", env=fake.env(), timeout=90)
    t0 = time.monotonic()
    client.diagnostics(uri, lambda ds: sum(d["code"] == "suggestion" for d in ds) == 2, after=mark, timeout=5)
    assert time.monotonic() - t0 < 1.5
    msg = client.wait(lambda m: m.get("method") == "window/showMessage" and "suggestions from" in m["params"]["message"])
    assert msg["params"]["message"] == "2 suggestions from the editor and the creative writer"
    # Skipped from the CLI: gone from the editor.
    sid = next(x["id"] for x in sidecar(proj, "doc.md")["suggestions"] if x["suggested_text"] == "Geneva")
    mark = client.mark()
    tk.run("skip", sid)
    client.diagnostics(uri, lambda ds: sum(d["code"] == "suggestion" for d in ds) == 1, after=mark, timeout=5)
    client.close()


# -- check --format rdjsonl | sarif ---------------------------------------------------------------

def test_check_rdjsonl(tk, proj):
    r = tk.run("check", "--format", "rdjsonl", proj / "doc.md", check=False)
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines
    from ci_schemas import validate_rdjsonl
    line = DOC.splitlines()[2]
    for d in lines:
        validate_rdjsonl(d)
    passive = next(d for d in lines if d["code"]["value"] == "passive")
    assert passive["location"]["range"]["start"] == {"line": 3, "column": line.encode().index(b"was eaten") + 1}
    assert passive["source"]["name"] == "tk-agent"
    with_fix = [d for d in lines if d.get("suggestions")]
    assert with_fix and all("text" in s and "range" in s for d in with_fix for s in d["suggestions"])


def test_check_sarif(tk, proj):
    r = tk.run("check", "--format", "sarif", proj, check=False)
    doc = json.loads(r.stdout)
    from ci_schemas import validate_sarif
    validate_sarif(doc)
    assert doc["version"] == "2.1.0" and len(doc["runs"]) == 1
    run = doc["runs"][0]
    rules = {x["id"] for x in run["tool"]["driver"]["rules"]}
    results = run["results"]
    assert results and {x["ruleId"] for x in results} == rules
    line = DOC.splitlines()[2]
    passive = next(x for x in results if x["ruleId"] == "passive")
    region = passive["locations"][0]["physicalLocation"]["region"]
    assert region["startLine"] == 3 and region["startColumn"] == line.index("was eaten") + 1
    assert passive["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("doc.md")
    assert passive["level"] in ("note", "warning")
    assert any("fixes" in x for x in results)
