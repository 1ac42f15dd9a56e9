"""The JSON report: the whole run as canonical JSON that matches the result files."""

from __future__ import annotations

import json
from pathlib import Path

from jsonschema import Draft202012Validator

from openeval.report import render
from openeval.results.files import write_results
from openeval.runner import run_suite
from openeval.schemas import load_schema

SUITES = Path(__file__).parents[1] / "data" / "suites"


def test_json_report_holds_summary_and_every_case(tmp_path: Path) -> None:
    suite = run_suite(SUITES / "mixed", fail_under=0.8)
    report = json.loads(render(suite, "json"))
    out = write_results(suite, tmp_path)
    summary = json.loads((out / "summary.json").read_text())
    names = summary.pop("result_files")
    summary.pop("result_digests")  # about the folder's files, as result_files is
    assert report["summary"] == summary
    assert report["cases"] == [json.loads((out / n).read_text()) for n in names]
    assert [c["case_id"] for c in report["cases"]] == [c.case_id for c in suite.cases]
    for document in report["cases"]:
        Draft202012Validator(load_schema("result")).validate(document)


def test_json_report_is_canonical() -> None:
    text = render(run_suite(SUITES / "legacy_021"), "json")
    assert text == render(run_suite(SUITES / "legacy_021"), "json")
    assert text.endswith("}\n")
    value = json.loads(text)
    assert text == json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    assert value["summary"]["pass_rate"] == run_suite(SUITES / "legacy_021").pass_rate
