"""End-to-end tests of the packed vectors (`vector_pack`): hybrid `ask --sources` reads the packs
plus what was written since, and answers exactly as the row-by-row reading of `passage_vector`
(the version before packs) does, edits included."""
import json
import shutil
import sqlite3

import pytest
from test_retrieval import configure, embed, embedded_idle  # noqa: F401 (embed is a fixture)

pytest.importorskip("wordllama")

TOPICS = {
    "bakery": "The baker lights the oven and the bread rises on the wooden table near the window",
    "harbour": "Fishing boats come back to the harbour with nets full of silver herring at dusk",
    "garden": "Roses and tomatoes grow along the garden wall where the old gardener waters them",
    "school": "The teacher writes sums on the blackboard while the children copy them in chalk",
    "forest": "Tall pines and quiet deer fill the forest where the hunter walks along the stream",
    "market": "Traders sell apples cheese and cloth in the busy market square every Saturday",
    "railway": "The night train leaves the station and the engine driver watches the signals",
    "church": "The bell rings in the church tower and the choir sings on Sunday morning",
}
QUESTION = "who kneads the dough before sunrise in the village"


def write_project(proj):
    for name, sentence in TOPICS.items():
        parts = [f"# {name.title()}\n"]
        for i in range(6):
            parts.append(f"## {name.title()} part {i}\n\n{sentence}, day {i} of the story, "
                         f"and {sentence.lower()} again in chapter {i}.\n")
        (proj / f"{name}.md").write_text("\n".join(parts))


def db_counts(path):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {t: con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                for t in ("vector_pack", "vector_pack_delta", "passage_vector")}, \
            con.execute("SELECT COALESCE(SUM(count), 0) FROM vector_pack").fetchone()[0]
    finally:
        con.close()


def sources(tk, proj, data=None):
    env = {"TK_DATA_DIR": str(data)} if data else None
    r = tk.json("ask", QUESTION, "--project", proj, "--sources", "--json", "--passages", "12", env=env)
    return [(s["path"], s["start_line"], s["end_line"], s["score"]) for s in r["sources"]], r


def copy_data(tk, dest, sql):
    """A copy of the (closed) database with `sql` run on it."""
    shutil.copytree(tk.data, dest)
    con = sqlite3.connect(dest / "index.sqlite")
    try:
        con.executescript(sql)
        con.commit()
    finally:
        con.close()
    return dest


def test_packed_vectors_answer_like_the_rows_and_take_an_edit(tk, embed, tmp_path):  # noqa: F811
    configure(tk, embed)
    proj = tk.project()
    write_project(proj)
    agent = tk.start(proj)
    tk.wait_for(lambda: embedded_idle(tk), timeout=60, what="embeddings", proc=agent)
    # The worker packed what it embedded: nothing is left in the delta.
    counts, packed = db_counts(tk.data / "index.sqlite")
    assert counts["passage_vector"] == len(TOPICS) * 6
    assert counts["vector_pack"] >= 1 and counts["vector_pack_delta"] == 0 and packed == counts["passage_vector"]
    before, r = sources(tk, proj)
    assert before and not any("kneads" in s["text"] for s in r["sources"])

    # One paragraph rewritten: one passage embedded, then packed with the old one's entry dropped.
    sent = len(embed.inputs())
    text = (proj / "market.md").read_text().replace(
        "Traders sell apples cheese and cloth in the busy market square every Saturday, day 3",
        "Before sunrise the baker's boy kneads the dough for the whole village, day 3", 1)
    (proj / "market.md").write_text(text)
    tk.wait_for(lambda: len(embed.inputs()) > sent, timeout=30, what="the edit to be embedded", proc=agent)
    tk.wait_for(lambda: embedded_idle(tk), timeout=30, what="embeddings after the edit", proc=agent)
    tk.stop(agent)
    assert len(embed.inputs()) == sent + 1
    counts, packed = db_counts(tk.data / "index.sqlite")
    assert counts["vector_pack_delta"] == 0 and packed == counts["passage_vector"] == len(TOPICS) * 6

    after, r = sources(tk, proj)
    edited = [s for s in r["sources"] if s["path"] == "market.md" and "kneads the dough" in s["text"]]
    assert edited, r["sources"]
    assert after != before
    # The same database read row by row, as before packs (every vector in the delta, no pack): the
    # same passages, scores and order.
    rows = copy_data(tk, tmp_path / "rows", """
        DELETE FROM vector_pack;
        INSERT OR IGNORE INTO vector_pack_delta SELECT model, dim, digest FROM passage_vector;
        """)
    assert db_counts(rows / "index.sqlite")[0]["vector_pack"] == 0
    assert sources(tk, proj, rows)[0] == after
    # Packs with entries written since (the delta overrides them, including a deleted vector that
    # is still in a pack): the same again.
    mixed = copy_data(tk, tmp_path / "mixed", """
        INSERT OR IGNORE INTO vector_pack_delta SELECT model, dim, digest FROM passage_vector WHERE digest % 3 = 0;
        INSERT OR IGNORE INTO vector_pack_delta SELECT model, dim, 12345 FROM passage_vector LIMIT 1;
        """)
    assert db_counts(mixed / "index.sqlite")[0]["vector_pack_delta"] > 1
    assert sources(tk, proj, mixed)[0] == after
