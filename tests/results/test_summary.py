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


GATES = [
    # id, cases, fail_under, fail_under_cases, gates, gate passed, reason
    ("metric-gate-reached", [case("a", True, False), case("b", True, True)], 0.5, None,
     [("m0", 1.0)], True, "pass rate 75.0% reaches --fail-under 0.5; gate m0: 100.0% reaches "
     "100.0% (--fail-under-metric m0=1)"),
    ("metric-gate-missed", [case("a", True, False), case("b", True, True)], 0.5, None,
     [("m1", 0.9)], False, "gate m1: 50.0% is under 90.0% (--fail-under-metric m1=0.9)"),
    ("gates-add-to-every-case-must-pass", [case("a", True, False)], None, None,
     [("m0", 1.0)], False, "1 case(s) failed"),
    ("two-gates-both-named-when-failing", [case("a", False, False), case("b", True, True)],
     0.0, None, [("m0", 0.9), ("m1", 0.9)], False,
     "gate m0: 50.0% is under 90.0% (--fail-under-metric m0=0.9); gate m1: 50.0% is under "
     "90.0% (--fail-under-metric m1=0.9)"),
    ("gate-on-a-name-with-nothing-judged", [case("a", True, None)], None, None, [("m1", 0.5)],
     False, "gate m1: no judged result, needs 50.0% (--fail-under-metric m1=0.5)"),
    ("gate-on-an-unknown-name", [case("a", True)], None, None, [("speed", 0.5)], False,
     "gate speed: no judged result, needs 50.0% (--fail-under-metric speed=0.5)"),
    ("errored-case-fails-however-good-the-gates", [case("a", True), case("b", error="x")],
     0.0, 0.0, [("m0", 0.0)], False, "1 case(s) errored"),
    ("case-floor-reached", [case("a", True), case("b", False), case("c", True)], None,
     0.6, [], True, "case pass rate 66.7% reaches --fail-under-cases 0.6"),
    ("case-floor-missed", [case("a", True), case("b", False), case("c", True)], None, 0.7,
     [], False, "case pass rate 66.7% is under --fail-under-cases 0.7"),
    ("both-floors-must-hold", [case("a", True, True), case("b", True, False)], 0.7, 0.6, [],
     False, "case pass rate 50.0% is under --fail-under-cases 0.6"),
    ("n.a.-cases-leave-the-case-floor", [case("a", True), case("b", None)], None, 1.0, [],
     True, "case pass rate 100.0% reaches --fail-under-cases 1"),
]


@pytest.mark.parametrize(
    ("cases", "fail_under", "fail_under_cases", "gates", "passed", "reason"),
    [g[1:] for g in GATES], ids=[g[0] for g in GATES],
)
def test_gate_verdicts(
    cases: list[CaseResult], fail_under: float | None, fail_under_cases: float | None,
    gates: list[tuple[str, float]], passed: bool, reason: str,
) -> None:
    suite = SuiteResult(cases=tuple(cases), fail_under=fail_under, gates=tuple(gates),
                        fail_under_cases=fail_under_cases)
    assert suite.gate_passed is passed
    assert suite.gate_reason == reason
    assert [g.name for g in suite.summary.gates] == [name for name, _ in gates]
    document = suite.summary.to_dict()
    assert [(g["name"], g["line"]) for g in document["gates"]] == gates
    assert document["fail_under_cases"] == fail_under_cases


def test_every_report_shows_each_gate_with_figure_line_and_verdict() -> None:
    suite = SuiteResult(cases=(case("a", True, False), case("b", True, True)), fail_under=0.5,
                        gates=(("m0", 1.0), ("m1", 0.9)), fail_under_cases=0.5)
    markdown = render(suite, "markdown")
    assert "| m0 | 100.0% | 100.0% | `--fail-under-metric m0=1` | ✅ passed |" in markdown
    assert "| m1 | 50.0% | 90.0% | `--fail-under-metric m1=0.9` | ❌ failed |" in markdown
    assert "`--fail-under-cases 0.5`" in markdown
    properties = {p.get("name"): p.get("value") for p in
                  ET.fromstring(render(suite, "junit")).iter("property")}
    assert properties["gate:m0"] == "passed: 1.0 (needs 1.0)"
    assert properties["gate:m1"] == "failed: 0.5 (needs 0.9)"
    assert properties["fail_under_cases"] == "0.5"
    report = json.loads(render(suite, "json"))
    assert report["summary"]["gates"][1] == {"name": "m1", "figure": 0.5, "line": 0.9,
                                             "passed": False}
    github = render(suite, "github").splitlines()
    assert "1 of 2 metric gates passed" in github[0]
    assert github[1] == ("::error title=OpenEval gate%3A m1::gate m1: 50.0%25 is under "
                         "90.0%25 (--fail-under-metric m1=0.9)")
