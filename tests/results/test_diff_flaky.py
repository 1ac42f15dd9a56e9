"""Flaky cases across runs (``history``) and by their trials; pairing by case path; the
baseline gate's policy on cases that disappeared or became flaky."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from builders import case

from openeval.results.diff import BaselinePolicy, diff_results
from openeval.results.records import CaseResult, SuiteResult
from openeval.results.trials import DEFAULT_FLAKY_BAND

ROWS = json.loads((Path(__file__).parents[1] / "data" / "results" / "history_cases.json")
                  .read_text())


def run_of(verdict: Any) -> SuiteResult:
    """One run holding case ``x`` with ``verdict`` (a list: trials), beside a steady case."""
    steady = case("steady", True)
    if verdict is None:
        return SuiteResult(cases=(steady,))
    if isinstance(verdict, list):
        trials = tuple(case(f"x#trace-{i}.json", v) for i, v in enumerate(verdict, 1))
        x = CaseResult("x", "x", "x/testcase.json", None, None, trials=trials,
                       trials_rule="majority", flaky_band=DEFAULT_FLAKY_BAND)
    elif verdict == "error":
        x = case("x", error="unreadable")
    else:
        x = case("x", verdict)
    return SuiteResult(cases=(x, steady))


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_a_case_is_flaky_when_its_verdict_flips_back(row: dict[str, Any]) -> None:
    # The rows list history oldest first; diff_results takes it newest first.
    history = [run_of(v) for v in reversed(row["history"])]
    diff = diff_results(run_of(row["base"]), run_of(row["head"]), history=history)
    x = diff.changes[0]
    assert (x.flaky, x.new_flaky) == (row["flaky"], row["new"])
    assert diff.history == len(history)
    assert [c.case_id for c in diff.new_flaky] == (["x"] if row["new"] else [])
    assert BaselinePolicy(fail_on_new_flaky=True).fails(diff) is (
        row["new"] or bool(diff.regressions))
    assert BaselinePolicy(allow_regressions=True).fails(diff) is False


def test_a_deleted_failing_case_and_a_new_passing_one_with_its_task_id_are_not_one_case(
) -> None:
    failing = CaseResult("billing/refund-old", "refund", None, None, None,
                         case("a", False).checks)
    passing = CaseResult("billing/refund-new", "refund", None, None, None,
                         case("a", True).checks)
    base = SuiteResult(cases=(failing, case("steady", True)))
    head = SuiteResult(cases=(passing, case("steady", True)))
    diff = diff_results(base, head)
    assert [(c.case_id, c.kind) for c in diff.changes] == [
        ("billing/refund-new", "appeared"), ("steady", "unchanged"),
        ("billing/refund-old", "disappeared")]
    assert diff.matched_by_task_id == 0 and diff.counts()["improved"] == 0
    assert [c.case_id for c in diff.removed] == ["billing/refund-old"]
    assert BaselinePolicy().failures(diff) == [
        "1 case(s) of the baseline disappeared (--allow-removed accepts that)"]
    assert not BaselinePolicy(allow_removed=True).fails(diff)
    assert diff.to_dict()["removed"] == ["billing/refund-old"]
