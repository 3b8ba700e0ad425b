"""Validation of `check --format rdjsonl|sarif` output against the published JSON schemas (kept in
schemas/, see schemas/README.md), plus the checks the schemas cannot express."""
import json
import pathlib

import jsonschema

HERE = pathlib.Path(__file__).resolve().parent / "schemas"
_RD = json.loads((HERE / "reviewdog-rdf-Diagnostic.json").read_text(encoding="utf-8"))
_SARIF = json.loads((HERE / "sarif-2.1.0.json").read_text(encoding="utf-8"))


def validate_rdjsonl(d):
    jsonschema.Draft4Validator(_RD).validate(d)
    # Field by field: what reviewdog reads.
    assert isinstance(d["message"], str) and d["message"]
    assert isinstance(d["location"]["path"], str)
    for end in ("start", "end"):
        pos = d["location"]["range"][end]
        assert pos["line"] >= 1 and pos["column"] >= 1
    assert d["severity"] in ("ERROR", "WARNING", "INFO")
    assert d["code"]["value"] and d["source"]["name"] == "tk-agent"


def validate_sarif(doc):
    cls = jsonschema.validators.validator_for(_SARIF)
    cls(_SARIF).validate(doc)
    for run in doc["runs"]:
        rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
        for res in run["results"]:
            assert res["ruleId"] in rules and rules[res["ruleIndex"]] == res["ruleId"]
            assert res["level"] in ("none", "note", "warning", "error")
            region = res["locations"][0]["physicalLocation"]["region"]
            assert region["startLine"] >= 1 and region["startColumn"] >= 1
            assert (region["endLine"], region["endColumn"]) >= (region["startLine"], region["startColumn"])
