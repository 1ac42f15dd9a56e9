"""CheckResult.to_dict's one-dict form is the spec's object merged with the result's keys."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from openeval.results.records import CaseResult, CheckResult, CheckSpec, check_result, scored_case
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


@pytest.mark.parametrize("warnings", [(), ("the trace's task id 'x' differs",)])
@pytest.mark.parametrize("checks", [(), (check_result(SPECS[0], "pass", SCORES[1], "ok"),)])
def test_a_scored_case_is_the_dataclass_one(warnings: tuple[str, ...],
                                            checks: tuple[CheckResult, ...]) -> None:
    fields = ("case-1", "task-1", "s/case-1/testcase.json", "s/case-1/trace.json", "native",
              checks, "task-1", warnings, None)
    fast = scored_case(*fields)
    built = CaseResult(*fields[:6], trace_task_id=fields[6], warnings=warnings)
    assert fast == built and vars(fast) == vars(built)
    assert list(vars(fast)) == list(vars(built))
    assert fast.to_dict() == built.to_dict() and fast.status == built.status
