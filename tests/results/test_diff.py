"""Baseline comparison: every transition kind, score drops, matching, and old baselines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from builders import case

from openeval.errors import SuiteError
from openeval.results.diff import TRIALS_SCORE, ScoreDrop, diff_results
from openeval.results.files import read_results
from openeval.results.records import CaseResult, CheckResult, CheckSpec, SuiteResult
from openeval.runner import run_suite
from openeval.scores import Score

DATA = Path(__file__).parents[1] / "data"
TRANSITIONS = json.loads((DATA / "results" / "diff_cases.json").read_text())


def build(case_id: str, spec: list[Any] | dict[str, str]) -> CaseResult:
    if isinstance(spec, dict):
        return case(case_id, error=spec["error"])
    return case(case_id, *spec)


@pytest.mark.parametrize("row", TRANSITIONS, ids=[r["id"] for r in TRANSITIONS])
def test_every_transition(row: dict[str, Any]) -> None:
    keep = case("steady", True)
    base = SuiteResult(cases=(build("x", row["base"]), keep))
    head = SuiteResult(cases=(build("x", row["head"]), keep))
    diff = diff_results(base, head)
    change = diff.changes[0]
    assert change.kind == row["kind"]
    assert change.worse is row["worse"]
    assert list(change.checks_worse) == row.get("checks_worse", [])
    assert list(change.checks_better) == row.get("checks_better", [])
    assert (change.base_status, change.head_status) == (base.cases[0].status,
                                                        head.cases[0].status)
    assert [c.case_id for c in diff.regressions] == (["x"] if row["worse"] else [])
    assert diff.changes[1].kind == "unchanged"


def test_cases_that_appear_and_disappear_are_listed_but_are_not_regressions() -> None:
    base = SuiteResult(cases=(case("kept", True), case("gone", True)))
    head = SuiteResult(cases=(case("new", False), case("kept", True)))
    diff = diff_results(base, head)
    assert [(c.case_id, c.kind) for c in diff.changes] == [
        ("new", "appeared"), ("kept", "unchanged"), ("gone", "disappeared")]
    assert diff.regressions == ()
    assert (diff.matched, diff.base_cases, diff.head_cases) == (1, 2, 2)
    assert diff.counts() == {"regressed": 0, "improved": 0, "still_failing": 0, "unchanged": 1,
                             "appeared": 1, "disappeared": 1}


def test_pass_rates_are_compared_over_the_matched_cases() -> None:
    base = SuiteResult(cases=(case("a", True, True), case("b", True, True),
                              case("gone", False, False)))
    head = SuiteResult(cases=(case("a", True, False), case("b", True, True),
                              case("new", False, False)))
    diff = diff_results(base, head)
    rates = {r.name: (r.base, r.head, r.delta) for r in diff.per_check}
    assert rates == {"m0": (1.0, 1.0, 0.0), "m1": (1.0, 0.5, -0.5)}
    assert diff.pass_rate.base == pytest.approx(4 / 6) and diff.pass_rate.head == 0.5


def scored(case_id: str, value: float | bool, *, higher: bool | None = True,
           family: str = "check", threshold: float | None = 0.5) -> CaseResult:
    kind = "NUMERIC" if not isinstance(value, bool) else "BOOLEAN"
    score = Score(value, kind, None, "s", higher)  # type: ignore[arg-type]
    verdict = "pass"
    if kind == "NUMERIC" and threshold is not None:
        meets = value >= threshold if higher is not False else value <= threshold
        verdict = "pass" if meets else "fail"
    spec = CheckSpec("k", "s", family, threshold=threshold)  # type: ignore[arg-type]
    return CaseResult(case_id, case_id, None, None, None, (CheckResult(spec, verdict, (score,)),))


DROPS = [
    # id, base, head, options, expected drop
    ("a-drop-beyond-the-tolerance", 0.9, 0.8, {}, ScoreDrop("s", 0.9, 0.8)),
    ("exactly-the-tolerance-is-allowed", 0.9, 0.85, {}, None),
    ("a-rise-is-no-drop", 0.6, 0.9, {}, None),
    ("lower-is-better-rises", 0.1, 0.3, {"higher": False, "threshold": 0.5},
     ScoreDrop("s", 0.1, 0.3)),
    ("lower-is-better-falls", 0.3, 0.1, {"higher": False, "threshold": 0.5}, None),
    ("no-direction-no-judgement", 0.9, 0.6, {"higher": None}, None),
    ("a-metric-without-direction-is-higher-better", 0.9, 0.6,
     {"higher": None, "family": "metric"}, ScoreDrop("s", 0.9, 0.6)),
    ("a-verdict-that-changed-is-a-check-regression-not-a-drop", 0.9, 0.2, {}, None),
    ("booleans-are-verdicts-not-scores", True, False, {"threshold": None}, None),
]


@pytest.mark.parametrize(("base", "head", "options", "drop"), [d[1:] for d in DROPS],
                         ids=[d[0] for d in DROPS])
def test_score_drops_where_the_verdict_held(
    base: float, head: float, options: dict[str, Any], drop: ScoreDrop | None
) -> None:
    diff = diff_results(SuiteResult(cases=(scored("x", base, **options),)),
                        SuiteResult(cases=(scored("x", head, **options),)))
    assert diff.changes[0].score_drops == ((drop,) if drop else ())
    assert diff.changes[0].worse is (drop is not None or diff.changes[0].kind == "regressed")


def test_a_larger_tolerance_lets_the_drop_pass() -> None:
    base, head = SuiteResult(cases=(scored("x", 0.9),)), SuiteResult(cases=(scored("x", 0.8),))
    assert diff_results(base, head, tolerance=0.1).regressions == ()
    assert diff_results(base, head, tolerance=0.09).regressions != ()


def trials(case_id: str, *verdicts: bool, rule: str = "majority") -> CaseResult:
    runs = tuple(
        CaseResult(f"{case_id}#trace-{i}.json", case_id, None, None, "native",
                   case(case_id, v).checks)
        for i, v in enumerate(verdicts, 1)
    )
    return CaseResult(case_id, case_id, None, None, None, trials=runs, trials_rule=rule)


def test_a_case_with_trials_compares_its_share_of_passing_trials() -> None:
    base = SuiteResult(cases=(trials("t", True, True, True),))
    head = SuiteResult(cases=(trials("t", True, True, False),))
    change = diff_results(base, head).changes[0]
    assert change.kind == "unchanged"  # the majority held
    assert change.score_drops == (ScoreDrop(TRIALS_SCORE, 1.0, 2 / 3),)
    assert change.worse


def task(case_id: str, task_id: str, passed: bool) -> CaseResult:
    made = case("x", passed)
    return CaseResult(case_id, task_id, None, None, None, made.checks)


OLD_RESULTS = {"read_from": "openeval-core 0.2.1 results"}


def test_cases_left_over_are_paired_by_a_task_id_unique_on_both_sides_for_old_results() -> None:
    base = SuiteResult(cases=(task("refund", "refund-7", True), task("a", "dup", True),
                              task("b", "dup", True)), metadata=OLD_RESULTS)
    head = SuiteResult(cases=(task("suite/refund", "refund-7", False), task("c", "dup", True)))
    diff = diff_results(base, head)
    assert diff.matched == 1 and diff.matched_by_task_id == 1
    refund = diff.changes[0]
    assert (refund.case_id, refund.kind, refund.base_case_id) == (
        "suite/refund", "regressed", "refund")
    # "dup" names two baseline cases: no guess is made.
    assert [c.kind for c in diff.changes[1:]] == ["appeared", "disappeared", "disappeared"]


def test_a_baseline_of_another_suite_is_refused() -> None:
    base = SuiteResult(cases=(case("a", True), case("b", True), case("c", True), case("d", True)))
    head = SuiteResult(cases=(case("x", True),))
    with pytest.raises(SuiteError) as caught:
        diff_results(base, head)
    assert str(caught.value) == (
        "the baseline shares no case with this run: 0 of 1 cases matched (baseline: 4 cases "
        "(a, b, c and 1 more); this run: 1 cases (x)); is it the results of another suite?")


def test_a_baseline_written_by_openeval_0_2_1_lines_up_by_task_id() -> None:
    base = read_results(DATA / "results" / "openeval_021")
    head = run_suite(DATA / "suites" / "legacy_021")
    diff = diff_results(base, head)
    assert diff.matched == 2 and diff.matched_by_task_id == 2
    kinds = {c.case_id: (c.kind, c.base_case_id) for c in diff.changes}
    assert kinds["testcases/lookup.json"] == ("unchanged", "lookup")
    assert kinds["testcases/refund.json"][0] == "still_failing"
    assert kinds["orphan"] == ("disappeared", None)


def test_a_baseline_of_schema_version_1_compares_cleanly_with_today() -> None:
    base = read_results(DATA / "results" / "openeval_v1")
    head = run_suite(DATA / "suites" / "mixed")
    diff = diff_results(base, head)
    assert diff.matched == len(head.cases) == 9
    assert diff.regressions == ()
    assert {c.kind for c in diff.changes} <= {"unchanged", "still_failing"}


def test_the_same_diff_twice_is_the_same_value() -> None:
    base = SuiteResult(cases=(case("a", True, True), case("b", False)))
    head = SuiteResult(cases=(case("a", True, False), case("c", True)))
    assert diff_results(base, head) == diff_results(base, head)
    assert diff_results(base, head).to_dict() == diff_results(base, head).to_dict()
