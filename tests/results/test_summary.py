"""The one Summary: the pass-rate rule, the gate, and every report agreeing with it."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from builders import case

from openeval.report import render
from openeval.results.files import summary_document
from openeval.results.records import CaseResult, SuiteResult
from openeval.runner import run_suite

SUITES = Path(__file__).parents[1] / "data" / "suites"

RULES = [
    # id, cases, fail_under, expected pass rate, gate passed
    ("all-pass", [case("a", True, True), case("b", True, None)], None, 1.0, True),
    ("none-excluded", [case("a", True, None, None, False)], None, 0.5, False),
    ("errored-counts-one-failure", [case("a", True, True, True), case("b", error="boom")],
     None, 0.75, False),
    ("errored-fails-even-over-fail-under", [case("a", True, True, True), case("b", error="x")],
     0.5, 0.75, False),
    ("errored-check-is-judged-and-fails-the-gate", [case("a", True, True, True, "error")],
     0.5, 0.75, False),
    ("fail-under-reached", [case("a", True, True, True, False)], 0.75, 0.75, True),
    ("fail-under-missed", [case("a", True, True, False, False)], 0.75, 0.5, False),
    ("nothing-evaluated", [case("a", None, None)], None, None, False),
    ("nothing-evaluated-with-fail-under", [case("a", None)], 0.0, None, False),
    ("no-check-ran", [case("a")], None, None, False),
]


@pytest.mark.parametrize(
    ("cases", "fail_under", "rate", "gate"), [r[1:] for r in RULES], ids=[r[0] for r in RULES]
)
def test_pass_rate_and_gate_rules(
    cases: list[CaseResult], fail_under: float | None, rate: float | None, gate: bool
) -> None:
    suite = SuiteResult(cases=tuple(cases), fail_under=fail_under)
    assert suite.pass_rate == rate
    assert suite.gate_passed is gate
    if rate is None:
        assert suite.gate_reason == "no pass rate: nothing evaluated"


def test_the_totals_of_summary_json_add_up_to_its_pass_rate() -> None:
    # Before the shared Summary, suites/mixed said {passed: 18, failed: 0} beside 0.75.
    document = summary_document(run_suite(SUITES / "mixed"), [])
    totals = document["results"]
    judged = totals["passed"] + totals["failed"] + totals["errored"]
    assert (totals["passed"], totals["errored"]) == (18, 6)
    assert document["pass_rate"] == totals["passed"] / judged == 0.75
    statuses = ("passed_cases", "failed_cases", "errored_cases", "not_evaluated_cases")
    assert sum(document[k] for k in statuses) == document["cases"] == 9


def test_a_case_where_nothing_applied_reads_the_same_in_every_report() -> None:
    # Before, Markdown said "passed" and JUnit said "skipped" for the same case.
    suite = SuiteResult(cases=(case("judged", True), case("idle", None, None)))
    assert [c.status for c in suite.cases] == ["passed", "n.a."]
    assert suite.summary.not_evaluated_cases == 1 and suite.summary.passed_cases == 1
    markdown = render(suite, "markdown")
    assert "| idle | ○ n.a. |" in markdown and "1 passed, 0 failed, 0 errored, 1 n.a." in markdown
    junit = ET.fromstring(render(suite, "junit"))
    (testsuite,) = junit.iter("testsuite")
    assert testsuite.get("skipped") == "1" and testsuite.get("failures") == "0"
    idle = next(t for t in junit.iter("testcase") if t.get("name") == "idle")
    assert idle.find("skipped") is not None
    report = json.loads(render(suite, "json"))
    assert report["summary"]["not_evaluated_cases"] == 1
    assert [c["status"] for c in report["cases"]] == ["passed", "n.a."]
    github = render(suite, "github")
    assert "1 passed, 0 failed, 0 errored, 1 n.a." in github.splitlines()[0]


def test_every_report_states_the_same_counts_for_a_real_suite() -> None:
    suite = run_suite(SUITES / "mixed")
    s = suite.summary
    counts = f"{s.passed_cases} passed, {s.failed_cases} failed, {s.errored_cases} errored"
    assert counts in render(suite, "markdown")
    assert counts in render(suite, "github").splitlines()[0]
    (testsuite,) = ET.fromstring(render(suite, "junit")).iter("testsuite")
    assert (testsuite.get("errors"), testsuite.get("failures")) == (
        str(s.errored_cases), str(s.failed_cases)
    )
    assert json.loads(render(suite, "json"))["summary"]["errored_cases"] == s.errored_cases
