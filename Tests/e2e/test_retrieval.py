"""End-to-end tests of retrieval: passages, incremental embeddings through a real embedding model
(embedserver.py, wordllama), cited answers, private documents, no spoilers."""
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import time

import generated_corpus
import pytest
from writing_helpers import FakeBackend

HERE = pathlib.Path(__file__).resolve().parent

pytest.importorskip("wordllama")


@pytest.fixture
def embed(tmp_path):
    """The embedding test server on a free loopback port; `.requests()` reads its log."""
    yield from embed_server(tmp_path)


@pytest.fixture
def embed_small(tmp_path):
    """The same, reporting a model that reads 64 tokens (`/api/show`)."""
    yield from embed_server(tmp_path, "--context", "64")


@pytest.fixture
def embed_slow(tmp_path):
    """The same, each request answered after 0.3 s (a slow model)."""
    yield from embed_server(tmp_path, "--delay", "0.3")


def embed_server(tmp_path, *args):
    log = tmp_path / "embed.jsonl"
    p = subprocess.Popen([sys.executable, str(HERE / "embedserver.py"), "--log", str(log), *args],
                         stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    assert line.startswith("PORT "), line
    port = int(line.split()[1])

    class Server:
        url = f"http://127.0.0.1:{port}"

        def requests(self):
            if not log.exists():
                return []
            return [json.loads(x) for x in log.read_text().splitlines() if x.strip()]

        def inputs(self):
            return [t for r in self.requests() for t in r["inputs"]]

    yield Server()
    p.terminate()
    p.wait(timeout=5)


def configure(tk, embed, provider="ollama", extra=None):
    cfg = {"watch": {"settle_ms": 50}, "review": {"auto": False}, "notifications": {"enabled": False},
           "embeddings": {"provider": provider, "base_url": embed.url}}
    if provider == "openai":
        cfg["embeddings"]["model"] = "wordllama-embed"
    for k, v in (extra or {}).items():
        cfg[k] = {**cfg.get(k, {}), **v} if isinstance(v, dict) else v
    path = tk.config_home / "tk" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cfg))


def embedded_idle(tk):
    e = tk.status().get("embeddings") or {}
    return e.get("state") == "idle" and e.get("pending") == 0 and tk.idle()


def chapters(n, words=60):
    out = []
    for i in range(n):
        body = " ".join(f"w{i}x{j}" for j in range(words))
        out.append(f"## Part {i}\n\nThe lighthouse keeper number {i} wrote {body}.\n")
    return "\n".join(out)


def test_restart_sends_nothing_and_an_edit_sends_one_passage(tk, embed):
    configure(tk, embed)
    proj = tk.project()
    (proj / "a.md").write_text("# A\n\n" + chapters(4))
    (proj / "b.md").write_text("# B\n\n" + chapters(3))
    agent = tk.start(proj)
    tk.wait_for(lambda: embedded_idle(tk), timeout=60, what="embeddings", proc=agent)
    first = embed.inputs()
    assert len(first) == 7
    assert tk.status()["embeddings"]["embedded"] == 7
    tk.stop(agent)

    agent = tk.start(proj)
    tk.wait_for(lambda: embedded_idle(tk), timeout=60, what="embeddings after restart", proc=agent)
    assert embed.inputs() == first, "a restart re-embedded something"

    text = (proj / "a.md").read_text().replace("keeper number 2 wrote", "keeper number 2 painted")
    (proj / "a.md").write_text(text)
    tk.wait_for(lambda: len(embed.inputs()) > len(first), timeout=30, what="the edit to be embedded", proc=agent)
    tk.wait_for(lambda: embedded_idle(tk), timeout=30, what="embeddings after the edit", proc=agent)
    new = embed.inputs()[len(first):]
    assert len(new) == 1 and "painted" in new[0]

    # A rename re-embeds nothing either.
    (proj / "b.md").rename(proj / "c.md")
    tk.wait_for(lambda: "c.md" in tk.indexed_paths(), timeout=30, what="the rename", proc=agent)
    tk.wait_for(lambda: embedded_idle(tk), timeout=30, what="embeddings after the rename", proc=agent)
    assert len(embed.inputs()) == len(first) + 1


def nothing_pending(s):
    return (s.get("running") and (s.get("index") or {}).get("pending", 1) == 0
            and (s.get("embeddings") or {}).get("pending", 1) == 0)


def test_status_never_says_nothing_is_pending_while_vectors_are_missing(tk, embed_slow):
    """`status --json`, sampled every 0.2 s from the agent's start until the last vector is in, while
    a slow model embeds a corpus in small batches: no sample taken while the server had not yet seen
    every passage says that nothing waits."""
    embed = embed_slow
    configure(tk, embed, extra={"embeddings": {"batch_size": 4}})
    proj = tk.project()
    for i in range(10):
        (proj / f"c{i}.md").write_text(f"# C{i}\n\n" + chapters(3))
    total = 30
    agent = tk.start(proj)
    samples, wrong = 0, []
    deadline = time.time() + 90
    while time.time() < deadline:
        s = tk.status()
        seen = len(set(embed.inputs()))   # read after the sample: vectors were surely missing when below
        samples += 1
        if seen < total and nothing_pending(s):
            wrong.append((seen, s.get("index"), s.get("embeddings")))
        if seen >= total and embedded_idle(tk):
            break
        assert agent.poll() is None, "the agent exited"
        time.sleep(0.2)
    assert embedded_idle(tk), "the corpus was not embedded in 90 s"
    assert tk.status()["embeddings"]["embedded"] == total
    assert samples >= 8, f"only {samples} samples: the embedding was too quick to watch"
    assert not wrong, f"{len(wrong)} of {samples} samples said nothing was pending while vectors were missing: {wrong[:3]}"


def test_long_passages_are_embedded_as_windows_that_fit_the_model(tk, embed_small):
    """The server says its model reads 64 tokens: a long passage goes out as overlapping windows
    that fit, is cited by its exact lines, and an edit to it re-sends only its windows."""
    embed = embed_small
    configure(tk, embed)
    proj = tk.project()
    words = " ".join(f"calm{j}" for j in range(150))
    long_text = (f"# Log\n\n## Voyage\n\nThe crew sailed on {words}\nuntil the lighthouse of Vardo burned "
                 "red over the northern fjord.\n\n## Harbour\n\nShort and sweet.\n")
    (proj / "log.md").write_text(long_text)
    (proj / "other.md").write_text("# Other\n\nGardens and roses in the spring.\n")
    agent = tk.start(proj)
    tk.wait_for(lambda: embedded_idle(tk), timeout=60, what="embeddings", proc=agent)
    sent = embed.inputs()
    windows = [t for t in sent if t.startswith("Log > Voyage")]
    assert len(windows) >= 3, sent
    # Each window fits: 64 tokens, at most 0.8 of them filled; words are at most a piece or two.
    assert all(len(w.split()) <= 64 for w in sent), [len(w.split()) for w in sent]
    joined = set(" ".join(windows).split())
    assert {f"calm{j}" for j in range(150)} <= joined and "fjord." in joined
    assert "Short and sweet" in " ".join(sent) and "Gardens" in " ".join(sent)
    # Every window repeats the end of the one before.
    for a, b in zip(windows, windows[1:]):
        assert b.split()[3] in a.split(), (a, b)
    s = tk.status()["embeddings"]
    assert s["embedded"] == len(sent) and s["pending"] == 0
    # The end of the long passage answers, cited by the passage's exact lines.
    r = tk.json("ask", "Vardo lighthouse burned red", "--project", proj, "--sources", "--json")
    top = r["sources"][0]
    assert top["path"] == "log.md"
    lines = long_text.split("\n")
    assert "\n".join(lines[top["start_line"] - 1:top["end_line"]]).strip() == top["text"].strip()
    assert "Vardo" in top["text"] and "The crew sailed" in top["text"]
    sent = embed.inputs()  # with the question
    tk.stop(agent)

    # A restart sends nothing; an edit to the short section sends that passage alone.
    agent = tk.start(proj)
    tk.wait_for(lambda: embedded_idle(tk), timeout=60, what="embeddings after restart", proc=agent)
    assert embed.inputs() == sent
    (proj / "log.md").write_text(long_text.replace("Short and sweet.", "Short and bitter."))
    tk.wait_for(lambda: len(embed.inputs()) > len(sent), timeout=30, what="the edit", proc=agent)
    tk.wait_for(lambda: embedded_idle(tk), timeout=30, what="embeddings after the edit", proc=agent)
    new = embed.inputs()[len(sent):]
    assert len(new) == 1 and "bitter" in new[0], new
    # An edit inside the long passage re-sends some of its windows (from the edit on), nothing else.
    before = embed.inputs()
    (proj / "log.md").write_text(long_text.replace("Short and sweet.", "Short and bitter.").replace("calm120 ", "storm120 "))
    tk.wait_for(lambda: len(embed.inputs()) > len(before), timeout=30, what="the edit of the long passage", proc=agent)
    tk.wait_for(lambda: embedded_idle(tk), timeout=30, what="embeddings after the second edit", proc=agent)
    new = embed.inputs()[len(before):]
    assert new and all(t.startswith("Log > Voyage") for t in new), new
    assert len(new) < len(windows) and any("storm120" in t for t in new), (len(new), len(windows))
    # A deleted document is never cited.
    (proj / "log.md").unlink()
    tk.wait_for(lambda: "log.md" not in tk.indexed_paths(), timeout=30, what="the deletion", proc=agent)
    r = tk.json("ask", "Vardo lighthouse burned red", "--project", proj, "--sources", "--json")
    assert all(s["path"] != "log.md" for s in r["sources"])
    tk.stop(agent)


def test_private_documents_never_reach_a_remote_provider(tk, embed):
    # `remote: true` makes the loopback test server count as a remote (cloud) provider.
    configure(tk, embed, provider="openai",
              extra={"embeddings": {"remote": True}, "review": {"exclude": ["drafts"]}})
    proj = tk.project()
    (proj / "public.md").write_text("# Public\n\nThe harbour opens at dawn.\n")
    (proj / "secret.md").write_text("---\ntk: {review: false}\n---\n# Secret\n\nThe treasure zebracode lies here.\n")
    (proj / "drafts").mkdir()
    (proj / "drafts" / "d.md").write_text("# Draft\n\nUnfinished quokkaword notes.\n")
    agent = tk.start(proj, extra_env={"OPENAI_API_KEY": "sk-test-not-real"})
    tk.wait_for(lambda: embedded_idle(tk), timeout=60, what="embeddings", proc=agent)
    sent = " ".join(embed.inputs())
    assert "harbour" in sent
    assert "zebracode" not in sent and "quokkaword" not in sent
    assert tk.status()["embeddings"]["withheld"] == 2
    assert all(r["authorization"] for r in embed.requests())
    # --sources shows private passages (it stays local) and sends nothing, not even the question.
    before = len(embed.requests())
    r = tk.json("ask", "zebracode treasure", "--project", proj, "--sources", "--json")
    assert any(s["path"] == "secret.md" for s in r["sources"])
    assert len(embed.requests()) == before
    tk.stop(agent)


def test_a_loopback_provider_gets_private_documents_too(tk, embed):
    configure(tk, embed)
    proj = tk.project()
    (proj / "secret.md").write_text("---\ntk: {review: false}\n---\n# Secret\n\nThe treasure zebracode lies here.\n")
    agent = tk.start(proj)
    tk.wait_for(lambda: embedded_idle(tk), timeout=60, what="embeddings", proc=agent)
    assert any("zebracode" in t for t in embed.inputs())
    tk.stop(agent)


def test_ask_cites_validates_and_never_cites_renamed_or_deleted(tk, embed, tmp_path):
    configure(tk, embed)
    proj = tk.project()
    (proj / "old.md").write_text("# Old\n\nThe lighthouse was painted red in spring.\n")
    (proj / "gone.md").write_text("# Gone\n\nThe lighthouse keeper left in winter.\n")
    (proj / "stay.md").write_text("# Stay\n\nThe lighthouse lamp burns whale oil.\n")
    agent = tk.start(proj)
    tk.wait_for(lambda: embedded_idle(tk), timeout=60, what="embeddings", proc=agent)
    (proj / "old.md").rename(proj / "new.md")
    (proj / "gone.md").unlink()
    tk.wait_for(lambda: tk.indexed_paths() == ["new.md", "stay.md"], timeout=30, what="rename and delete", proc=agent)
    tk.stop(agent)

    r = tk.json("ask", "what about the lighthouse?", "--project", proj, "--sources", "--json")
    assert r["answer"] is None
    paths = {s["path"] for s in r["sources"]}
    assert paths == {"new.md", "stay.md"}
    for s in r["sources"]:
        assert set(s) == {"n", "project", "path", "start_line", "end_line", "heading", "score", "text"}

    # The chat model is the fake provider server, reached through the real Anthropic provider.
    chat = FakeBackend(tk)
    try:
        chat.reply("It was painted red [1], burns oil [2] and the keeper left [7].")
        r = tk.json("ask", "what about the lighthouse?", "--project", proj, "--json", env=chat.env())
        assert set(r) == {"question", "answer", "sources", "citations", "dropped_citations", "usage"}
        assert "[7]" not in r["answer"] and "[1]" in r["answer"]
        assert r["dropped_citations"] == 1
        assert [c["valid"] for c in r["citations"]] == [True, True, False]
        assert r["citations"][2]["path"] is None
        prompt = "\n".join(chat.user_messages()[0])
        assert "gone.md" not in prompt and "old.md" not in prompt and "[1] " in prompt

        chat.reply("Red [1] and oil [2] [9].")
        out = tk.run("ask", "what about the lighthouse?", "--project", proj, env=chat.env()).stdout
        assert "[9]" not in out
        assert re.search(r"^\[1\] (new|stay)\.md:\d+-\d+", out, re.M)
    finally:
        chat.stop()

    dry = tk.run("ask", "lighthouse", "--project", proj, "--dry-run").stdout
    assert "--- system ---" in dry and "Question: lighthouse" in dry


def test_keyword_only_without_provider_says_so_once(tk):
    cfg = tk.config_home / "tk" / "config.json"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(json.dumps({"embeddings": {"provider": "none"}}))
    proj = tk.project()
    (proj / "a.md").write_text("# A\n\nThe lighthouse was painted red.\n")
    tk.run("index", proj)
    r = tk.run("ask", "Where did I mention the lighthouse?", "--project", proj, "--sources")
    assert r.stderr.count("keyword-only") == 1
    assert "a.md:1-3" in r.stdout
    r = tk.run("search", "--hybrid", "lighthouse", "--json")
    assert json.loads(r.stdout)["results"][0]["path"] == "a.md"
    assert tk.run("search", "lighthouse", "--json").returncode == 0


def folder200(tmp_path):
    """A novel in 200 generated scenes (generated_corpus.py)."""
    return generated_corpus.scenes(tmp_path / "corpus" / "folder200", n=200)


def natural(p):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", p)]


def test_until_never_returns_a_passage_after_the_limit(tk, tmp_path):
    cfg = tk.config_home / "tk" / "config.json"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(json.dumps({"embeddings": {"provider": "none"}}))
    proj = folder200(tmp_path)
    tk.run("index", proj)
    scenes = sorted((p.name for p in proj.glob("*.md")), key=natural)
    assert len(scenes) == 200
    rank = {s: i for i, s in enumerate(scenes)}
    for i, scene in enumerate(scenes):
        line = 12 if i % 2 else None
        spec = f"{scene}:{line}" if line else scene
        r = tk.json("ask", "Elizabeth Darcy Wickham Bennet sister letter", "--project", proj, "--until", spec,
                    "--sources", "--json", "--passages", "50")
        assert r["sources"] or i == 0
        for s in r["sources"]:
            assert rank[s["path"]] <= i, (spec, s["path"])
            if line and s["path"] == scene:
                assert s["end_line"] <= line, (spec, s)
    # --from: nothing before the start point.
    r = tk.json("ask", "Elizabeth Darcy", "--project", proj, "--from", "scene-150.md", "--sources", "--json",
                "--passages", "50")
    assert r["sources"] and all(rank[s["path"]] >= 149 for s in r["sources"])
    # `tk: {order: N}` moves a scene in the reading order.
    first = proj / "scene-200.md"
    first.write_text("---\ntk: {order: 0}\n---\n" + first.read_text())
    tk.run("index", proj)
    r = tk.json("ask", "Elizabeth", "--project", proj, "--until", "scene-001.md", "--sources", "--json", "--passages", "50")
    assert {s["path"] for s in r["sources"]} <= {"scene-001.md", "scene-200.md"}
    assert any(s["path"] == "scene-200.md" for s in r["sources"])


def passages_written(tk):
    """(documents with passages for their content, documents) in the data folder's database."""
    import sqlite3
    con = sqlite3.connect(f"file:{tk.data / 'index.sqlite'}?mode=ro", uri=True)
    try:
        done = con.execute("SELECT COUNT(*) FROM document d JOIN document_retrieval r ON r.document_id = d.id "
                           "AND r.sha256 = d.sha256").fetchone()[0]
        # A deleted document's row stays, out of the index, for its history: it has no passages.
        return done, con.execute("SELECT COUNT(*) FROM document WHERE in_index = 1").fetchone()[0]
    finally:
        con.close()


def big_project(tk, name, n=2200):
    proj = tk.project(name)
    for i in range(n):
        (proj / f"note-{i:04d}.md").write_text(f"# Note {i}\n\nThe keeper{i} lit the lamp at dusk.\n\n## Later\n\nRain.\n")
    return proj


def test_a_large_first_index_leaves_passages_to_ask_and_to_the_agent(tk):
    cfg = tk.config_home / "tk" / "config.json"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(json.dumps({"embeddings": {"provider": "none"}, "review": {"auto": False},
                               "notifications": {"enabled": False}}))
    # `index` of a large project: search at once, passages later (a bulk load).
    proj = big_project(tk, "big")
    tk.run("index", proj)
    assert passages_written(tk) == (0, 2200)
    assert tk.search_paths("keeper1234") == ["note-1234.md"]
    # The first question writes them, and says why it takes a moment.
    r = tk.run("ask", "keeper1234", "--project", proj, "--sources", "--json")
    assert "preparing the passages of 2200 documents" in r.stderr
    assert json.loads(r.stdout)["sources"][0]["path"] == "note-1234.md"
    assert passages_written(tk) == (2200, 2200)
    r = tk.run("ask", "keeper7", "--project", proj, "--sources")
    assert "preparing" not in r.stderr
    # The agent's own first scan of another large project: it writes them by itself, in the background.
    other = big_project(tk, "other")
    proc = tk.start(other, log_level="error")
    tk.wait_for(lambda: passages_written(tk) == (4400, 4400), timeout=120, what="the agent to write the passages", proc=proc)
