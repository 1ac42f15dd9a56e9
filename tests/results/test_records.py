"""CheckResult.to_dict's one-dict form is the spec's object merged with the result's keys."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any

import pytest

from openeval.results.records import (
    CaseResult,
    CheckResult,
    CheckSpec,
    check_result,
    kept_check_result,
)
from openeval.scores import Score


@dataclass(frozen=True)
class _NamedSpec(CheckSpec):
    """A subclass with its own object: written through its own to_dict."""

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "extra": "kept"}


SPECS = [
    CheckSpec("tool_selection_accuracy", "tool_selection_accuracy", "metric", threshold=1.0),
    CheckSpec("pii_leak", "no_pii", "check", settings={"kinds": ["email"]}, threshold=None),
    CheckSpec("checks/mine.py", "mine", "code", settings={"k": 1}, threshold=0.5),
    _NamedSpec("pii_leak", "named", "check"),
]
SCORES = [(), (Score(0.5, "NUMERIC", None, "x", True),),
          (Score(True, "BOOLEAN", "ok", "clean", False), Score("a", "CATEGORICAL", None, "c"))]


def _general(result: CheckResult) -> dict[str, Any]:
    document: dict[str, Any] = {
        **result.spec.to_dict(), "verdict": result.verdict, "details": result.details,
        "scores": [s.to_dict() for s in result.scores],
    }
    if result.data:
        document["data"] = dict(result.data)
    return document


@pytest.mark.parametrize("spec", SPECS, ids=[s.name for s in SPECS])
@pytest.mark.parametrize("scores", SCORES, ids=["none", "one", "two"])
@pytest.mark.parametrize("data", [None, {"notes": ["extra: a"]}])
def test_a_result_object_is_the_spec_merged(spec: CheckSpec, scores: tuple[Score, ...],
                                            data: dict[str, Any] | None) -> None:
    result = check_result(spec, "pass" if scores else "n.a.", scores, "why", data)
    found = result.to_dict()
    assert found == _general(result)
    assert list(found) == list(_general(result))  # the same key order too
    assert found["settings"] is not spec.settings  # a copy, as CheckSpec.to_dict makes



@pytest.mark.parametrize("data", [None, {"notes": ["extra: a"]}])
def test_a_kept_result_is_the_dataclass_one(data: dict[str, Any] | None) -> None:
    spec = SPECS[0]
    kept = kept_check_result(spec, "pass", SCORES[1], "why", data)
    built = CheckResult(spec, "pass", SCORES[1], "why", {} if data is None else data)
    assert kept == built and vars(kept) == vars(built)
    assert list(vars(kept)) == list(vars(built))
    if data is None:
        assert kept.data is not kept_check_result(spec, "pass", (), "why").data  # not shared
    else:
        assert kept.data is data
    # Stored as the dataclass stores it (the class's shared keys), not in a dict of its own.
    assert sys.getsizeof(vars(kept_check_result(spec, "pass", (), "why"))) == sys.getsizeof(
        vars(CheckResult(spec, "pass", (), "why")))


def _status_as_written(case: CaseResult) -> str:
    """The status rule step by step, as it read before the verdicts were gathered once."""
    if case.errored:
        return "error"
    if case.trials:
        if all(_status_as_written(t) == "n.a." for t in case.trials):
            return "n.a."
        from openeval.results.trials import TrialsRule

        passed = sum(_status_as_written(t) in ("passed", "n.a.") for t in case.trials)
        return "passed" if TrialsRule.parse(case.trials_rule or "all").passes(
            len(case.trials), passed) else "failed"
    verdicts = {c.verdict for c in case.checks}
    if "fail" in verdicts:
        return "failed"
    return "passed" if "pass" in verdicts else "n.a."


def _case(verdicts: list[str], **fields: Any) -> CaseResult:
    checks = tuple(check_result(SPECS[0], v, (), "d") for v in verdicts)  # type: ignore[arg-type]
    return CaseResult("c", "t", None, None, None, checks=checks, **fields)


STATUS_CASES = [
    _case([]), _case(["pass"]), _case(["n.a.", "n.a."]), _case(["pass", "fail"]),
    _case(["fail", "error", "pass"]), _case(["pass"], error="unreadable"),
    _case([], trials=(_case(["pass"]), _case(["fail"])), trials_rule="majority"),
    _case([], trials=(_case(["pass"]), _case(["error"])), trials_rule="all"),
    _case([], trials=(_case(["n.a."]), _case([])), trials_rule="all"),
    _case([], trials=(_case(["pass"]), _case(["pass"])), trials_rule="pass_at_k=1"),
]


@pytest.mark.parametrize("case", STATUS_CASES)
def test_a_case_status_follows_the_rule(case: CaseResult) -> None:
    assert case.status == _status_as_written(case)
    assert case.errored == (case.status == "error")
