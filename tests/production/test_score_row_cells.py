"""A row's status and cells, made in one loop per result, are what the rule says: the status
is error over failed over passed over n.a., a cell's scores are named (``score_i`` when a
score has no name, a later name over an earlier one) and only a failed or errored check keeps
its details (proposals/0316-score-checks-glue.md). Every verdict list up to three long."""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest

from openeval.production.rows import _check_cell, _status
from openeval.production.summary import ScoreSummary
from openeval.results.records import CheckResult, CheckSpec
from openeval.scores import Score

VERDICTS = ("pass", "fail", "error", "n.a.")
SPEC = CheckSpec(name="c", kind="pii_leak", family="check")


def _rule(verdicts: tuple[str, ...]) -> str:
    seen = set(verdicts)
    if "error" in seen:
        return "error"
    if "fail" in seen:
        return "failed"
    return "passed" if "pass" in seen else "n.a."


@pytest.mark.parametrize("verdicts", [v for n in range(4) for v in product(VERDICTS, repeat=n)])
def test_the_status_is_the_rule(verdicts: tuple[str, ...]) -> None:
    results = tuple(CheckResult(SPEC, verdict) for verdict in verdicts)  # type: ignore[arg-type]
    assert _status(results) == _rule(verdicts)


SCORES: dict[str, tuple[tuple[Score, ...], dict[str, Any]]] = {
    "none": ((), {}),
    "named": ((Score(True, "BOOLEAN", None, "a"), Score(2.0, "NUMERIC", None, "b")),
              {"a": True, "b": 2.0}),
    "unnamed": ((Score(1.0), Score(0.5)), {"score_0": 1.0, "score_1": 0.5}),
    "a name twice keeps the last": ((Score(1.0, name="a"), Score(0.5, name="a")), {"a": 0.5}),
    "mixed": ((Score(1.0), Score(0.5, name="x")), {"score_0": 1.0, "x": 0.5}),
}


@pytest.mark.parametrize("verdict", VERDICTS)
@pytest.mark.parametrize("name", sorted(SCORES))
def test_a_cell_holds_its_scores_and_details_when_failed(verdict: Any, name: str) -> None:
    scores, expected = SCORES[name]
    cell = _check_cell(CheckResult(SPEC, verdict, scores, "why"))
    want: dict[str, Any] = {"verdict": verdict, "scores": expected}
    if verdict in ("fail", "error"):
        want["details"] = "why"
    assert cell == want and list(cell) == list(want)


def test_the_summary_counts_each_verdict_of_each_check() -> None:
    summary = ScoreSummary()
    for n, verdicts in enumerate(product(VERDICTS, repeat=2)):
        checks = {f"c{i}": {"verdict": v, "scores": {}} for i, v in enumerate(verdicts)}
        summary.add({"trace_id": f"t{n}", "status": _rule(verdicts), "checks": checks})
    counts = summary.checks["c0"]
    assert (counts.passed, counts.failed, counts.errored, counts.not_applicable) == (4, 4, 4, 4)
    assert counts.failing_traces == ["t4", "t5", "t6", "t7"]
    assert counts.errored_traces == ["t8", "t9", "t10", "t11"]
