"""End-to-end tests of issue 15, speed: the compiled word table's cache file (`<data>/cache/spelling/`)."""
import json
import os
import stat


TEXT = "# Chapter\n\nShe wrote a leter to the mayor, unhappily, before the well-known dawn’s light.\n"


def check(tk, path, env=None):
    r = tk.run("check", "--format", "json", path, check=False, env=env)
    assert r.returncode == 0, r.stderr
    findings = json.loads(r.stdout)["files"][0]["findings"]
    return [(f["text"], f["replacements"]) for f in findings if f["category"] == "spelling"], r.stderr


def cache_files(tk):
    d = tk.data / "cache" / "spelling"
    return sorted(d.iterdir()) if d.exists() else []


def test_first_check_writes_the_cache_0600_and_later_ones_read_it(tk, tmp_path):
    doc = tmp_path / "ch1.md"
    doc.write_text(TEXT)
    first, err = check(tk, doc)
    assert err == ""
    assert [w for w, _ in first] == ["leter"] and "letter" in first[0][1]
    files = cache_files(tk)
    assert [f.name.split("-")[0] for f in files] == ["en_US"]
    assert stat.S_IMODE(os.stat(files[0]).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(files[0].parent).st_mode) == 0o700
    mtime = os.stat(files[0]).st_mtime_ns
    again, err = check(tk, doc)
    assert again == first and err == ""
    assert os.stat(files[0]).st_mtime_ns == mtime  # read, not rebuilt


def test_corrupt_cache_is_rebuilt_silently(tk, tmp_path):
    doc = tmp_path / "ch1.md"
    doc.write_text(TEXT)
    first, _ = check(tk, doc)
    f = cache_files(tk)[0]
    data = bytearray(f.read_bytes())
    good = bytes(data)
    data[len(data) // 3] ^= 0xFF
    f.write_bytes(bytes(data))
    again, err = check(tk, doc)
    assert again == first and err == ""
    # Rebuilt whole (slot order may differ from the first build: hash sets iterate in a seeded order).
    rebuilt = f.read_bytes()
    assert rebuilt != bytes(data) and len(rebuilt) == len(good)
    f.write_bytes(good[:1000])  # truncated
    again, err = check(tk, doc)
    assert again == first and err == "" and len(f.read_bytes()) == len(good)


def test_unwritable_cache_location_is_no_error(tk, tmp_path):
    # No cache to keep a table in: Hunspell answers (cheaper than building the table every time).
    doc = tmp_path / "ch1.md"
    doc.write_text(TEXT)
    (tk.data / "cache").write_text("not a folder")
    first, err = check(tk, doc)
    assert [w for w, _ in first] == ["leter"] and err == ""
    first, err = check(tk, doc)
    assert [w for w, _ in first] == ["leter"] and err == ""
