"""A database from a newer tk-agent (one with migrations this version does not know): every command
that would open it refuses with one line and exits 1; the database is left as it was; no crash."""
import hashlib
import sqlite3

import pytest

LINE = "made by a newer tk-agent (schema {n}); upgrade, or use another TK_DATA_DIR"


@pytest.fixture
def newer(tk):
    proj = tk.project()
    (proj / "a.md").write_text("# A\n\nThe lighthouse keeper wrote a letter.\n")
    tk.run("index", proj)
    db = tk.data / "index.sqlite"
    con = sqlite3.connect(db)
    n = con.execute("SELECT COUNT(*) FROM grdb_migrations").fetchone()[0]
    # What a newer version would have added: a migration this one does not know, and a column whose
    # values this version cannot decode.
    con.execute("INSERT INTO grdb_migrations (identifier) VALUES ('v99-from-the-future')")
    con.execute("ALTER TABLE document ADD COLUMN future BLOB")
    con.commit()
    con.close()
    return proj, db, n + 1


def digest(db):
    return hashlib.sha256(db.read_bytes()).hexdigest()


@pytest.mark.parametrize("args", [("status",), ("status", "--json"), ("index", "{proj}"), ("check", "{proj}/a.md"),
                                  ("progress",), ("documents",)])
def test_a_newer_database_is_refused_with_one_line(tk, newer, args):
    proj, db, schema = newer
    before = digest(db)
    r = tk.run(*[a.format(proj=proj) for a in args], check=False)
    assert r.returncode == 1, (r.returncode, r.stdout, r.stderr)
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    assert len(lines) == 1 and LINE.format(n=schema) in lines[0], r.stderr
    assert digest(db) == before


def test_the_agent_refuses_a_newer_database_and_exits_1(tk, newer):
    proj, db, schema = newer
    before = digest(db)
    r = tk.run("run", proj, check=False, timeout=30)
    assert r.returncode == 1, (r.returncode, r.stdout[-500:], r.stderr[-500:])
    assert LINE.format(n=schema) in r.stderr
    assert "Fatal error" not in r.stderr and "Illegal instruction" not in r.stderr
    assert digest(db) == before


def test_help_and_version_still_work(tk, newer):
    assert tk.run("--version").returncode == 0
    assert tk.run("--help").returncode == 0
