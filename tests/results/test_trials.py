"""Trials: pass^k and pass@k against hand-computed values, the rules, and a case's verdict."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from builders import case

from openeval.results.records import CaseResult, SuiteResult
from openeval.results.trials import TrialsRule, TrialsSummary, TrialStats, pass_at_k, pass_hat_k

DATA = json.loads((Path(__file__).parents[1] / "data" / "results" / "trials_cases.json")
                  .read_text())


@pytest.mark.parametrize("row", DATA["estimators"], ids=[r["id"] for r in DATA["estimators"]])
def test_estimators_match_hand_computed_values(row: dict[str, Any]) -> None:
    n, c = row["n"], row["c"]
    assert [pass_hat_k(n, c, k) for k in range(1, n + 1)] == pytest.approx(row["pass_hat_k"])
    assert [pass_at_k(n, c, k) for k in range(1, n + 1)] == pytest.approx(row["pass_at_k"])
    stats = TrialStats.of(n, c)
    assert list(stats.pass_hat_k) == [pass_hat_k(n, c, k) for k in range(1, n + 1)]
    assert stats.to_dict()["passed"] == c


@pytest.mark.parametrize(("n", "c", "k"), [(3, 2, 0), (3, 2, 4), (3, 4, 1), (0, 0, 1)])
def test_estimators_refuse_k_outside_one_to_n(n: int, c: int, k: int) -> None:
    with pytest.raises(ValueError, match="1 <= k <= n"):
        pass_hat_k(n, c, k)
    with pytest.raises(ValueError, match="1 <= k <= n"):
        pass_at_k(n, c, k)


@pytest.mark.parametrize(
    "row", DATA["rules"], ids=[f"{r['rule']}-{r['c']}of{r['n']}" for r in DATA["rules"]]
)
def test_rule_verdicts(row: dict[str, Any]) -> None:
    rule = TrialsRule.parse(row["rule"])
    assert str(rule) == row["rule"]
    assert rule.passes(row["n"], row["c"]) is row["passes"]
    if rule.kind == "pass_at_k":
        # pass_at_k=K passes exactly when pass@K is 1.
        assert row["passes"] is (pass_at_k(row["n"], row["c"], rule.k or 1) == 1.0)


@pytest.mark.parametrize("text", DATA["bad_rules"])
def test_unknown_rules_say_what_is_expected(text: str) -> None:
    with pytest.raises(ValueError, match="expected 'all', 'majority' or 'pass_at_k=K'"):
        TrialsRule.parse(text)


def test_a_rule_needing_more_trials_says_so() -> None:
    assert TrialsRule.parse("pass_at_k=5").needs(3) == (
        "trials rule pass_at_k=5 needs at least 5 trials; this case has 3")
    assert TrialsRule.parse("pass_at_k=3").needs(3) is None
    assert TrialsRule.parse("majority").needs(1) is None


def with_trials(*trials: CaseResult, rule: str = "all", error: str | None = None
                ) -> CaseResult:
    named = tuple(
        CaseResult(f"task#trace-{i}.json", t.task_id, t.testcase_path, t.trace_path,
                   t.trace_format, t.checks, t.error, t.trace_task_id)
        for i, t in enumerate(trials, 1)
    )
    return CaseResult("task", "task", "task/testcase.json", None, None, error=error,
                      trials=named, trials_rule=rule)


STATUSES = [
    # id, trials, rule, case error, status
    ("all-pass", [case("t", True), case("t", True)], "all", None, "passed"),
    ("all-one-fails", [case("t", True), case("t", False)], "all", None, "failed"),
    ("majority-two-of-three", [case("t", True), case("t", True), case("t", False)], "majority",
     None, "passed"),
    ("an-errored-trial-errors-the-case-whatever-the-rule",
     [case("t", True), case("t", True), case("t", error="unreadable")], "majority", None,
     "error"),
    ("an-errored-check-errors-the-case", [case("t", True), case("t", "error")], "pass_at_k=2",
     None, "error"),
    ("every-trial-n.a.", [case("t", None), case("t", None)], "all", None, "n.a."),
    ("n.a.-trials-have-not-failed", [case("t", True), case("t", None)], "all", None, "passed"),
    ("rule-needs-more-trials", [case("t", True)], "pass_at_k=2", "needs at least 2", "error"),
]


@pytest.mark.parametrize(("trials", "rule", "error", "status"), [s[1:] for s in STATUSES],
                         ids=[s[0] for s in STATUSES])
def test_case_status_follows_the_rule(
    trials: list[CaseResult], rule: str, error: str | None, status: str
) -> None:
    result = with_trials(*trials, rule=rule, error=error)
    assert result.status == status
    assert result.trial_stats == TrialStats.of(len(trials), sum(t.passed for t in trials))
    assert [t.trial_label for t in result.trials] == [
        f"trace-{i}.json" for i in range(1, len(trials) + 1)]


def test_every_trial_counts_in_the_pass_rates_and_the_case_once() -> None:
    suite = SuiteResult(cases=(
        with_trials(case("t", True, True), case("t", True, False), case("t", False, False),
                    rule="majority"),
        case("single", True, True),
    ))
    s = suite.summary
    assert (s.cases, s.passed_cases, s.failed_cases) == (2, 1, 1)
    assert (s.results.passed, s.results.failed) == (5, 3)
    assert s.per_check["m1"].passed == 2 and s.per_check["m1"].failed == 2
    assert s.trials == TrialsSummary.of([TrialStats.of(3, 1)])
    assert suite.cases[0].verdict_cell("m0") == "2/3"
    assert suite.cases[0].verdict_cell("m9") is None


def test_an_unscored_trial_counts_as_one_errored_result() -> None:
    suite = SuiteResult(cases=(with_trials(case("t", True), case("t", error="gone")),))
    assert suite.summary.results.errored == 1
    assert suite.summary.results.passed == 1
    assert suite.gate_passed is False and suite.gate_reason == "1 case(s) errored"


def test_suite_means_cover_the_cases_with_at_least_k_trials() -> None:
    summary = TrialsSummary.of([TrialStats.of(2, 1), TrialStats.of(3, 3)])
    assert summary is not None
    assert [(m.k, m.cases) for m in summary.by_k] == [(1, 2), (2, 2), (3, 1)]
    assert summary.by_k[0].pass_hat_k == pytest.approx((0.5 + 1.0) / 2)
    assert summary.by_k[1].pass_hat_k == pytest.approx((0.0 + 1.0) / 2)
    assert summary.by_k[1].pass_at_k == pytest.approx((1.0 + 1.0) / 2)
    assert summary.by_k[2].pass_at_k == 1.0
    assert (summary.trials, summary.passed_trials) == (5, 4)
    assert TrialsSummary.of([]) is None


def test_a_registered_rule_is_parsed_judged_and_listed_in_errors() -> None:
    from openeval.results import registry
    from openeval.results.trials import RuleDefinition

    rule = registry.register(RuleDefinition(
        "at_most_k_failed", True, "'at_most_k_failed=K'", lambda n, c, k: n - c <= (k or 0)))
    try:
        parsed = TrialsRule.parse("at_most_k_failed=2")
        assert (str(parsed), parsed.passes(5, 3), parsed.passes(5, 2)) == (
            "at_most_k_failed=2", True, False)
        with pytest.raises(ValueError, match=re.escape("'majority', 'pass_at_k=K' (K a whole "
                                                       "number from 1) or 'at_most_k_failed=K'")):
            TrialsRule.parse("at_most_k_failed")  # it takes a K
    finally:
        registry.REGISTRY.unregister(rule.name)
    assert "at_most_k_failed" not in registry.names()
