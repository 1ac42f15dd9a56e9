"""The scorer's loop over library checks, and the records it builds without their dataclass
``__init__``, against the general path (proposals/0300-score-loop-once-per-check.md)."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openeval.checks._context import CheckContext, TraceMemo, scorer_context
from openeval.checks.registry import CHECKS
from openeval.errors import TestCaseError
from openeval.models import AgentTrace, EvalTestCase, TraceStep
from openeval.results.records import CheckResult, CheckSpec, check_result
from openeval.scores import Score, Scores
from openeval.scoring.plan import CasePlan
from openeval.scoring.scorer import _marked, _run_isolated, score


def _raises_case_error(context: CheckContext) -> list[Score]:
    raise TestCaseError("bad input: line 3")


def _crashes(context: CheckContext) -> list[Score]:
    raise ValueError("boom")


def _crashes_silently(context: CheckContext) -> list[Score]:
    raise KeyError


def _returns_a_number(context: CheckContext) -> float:
    return 0.5


def _returns_one_score(context: CheckContext) -> Score:
    return Score(2.0, "NUMERIC", "two", "n")


def _reads_earlier(context: CheckContext) -> list[Score]:
    return [Score(float(len(context.scores)), "NUMERIC", f"{sorted(context.scores)}", "seen")]


OWN_CHECKS = {
    "loop_case_error": _raises_case_error,
    "loop_crash": _crashes,
    "loop_crash_silent": _crashes_silently,
    "loop_number": _returns_a_number,
    "loop_one_score": _returns_one_score,
    "loop_reads_earlier": _reads_earlier,
}


@pytest.fixture(autouse=True)
def _own_checks() -> Iterator[None]:
    for name, function in OWN_CHECKS.items():
        CHECKS.register(name, function)
    yield
    for name in OWN_CHECKS:
        CHECKS.unregister(name)


def _spec(kind: str, threshold: float | None = None, family: str = "check",
          name: str | None = None) -> CheckSpec:
    return CheckSpec(kind, name or kind, family, {}, threshold, arguments={})  # type: ignore[arg-type]


LIBRARY = [_spec("pii_leak"), _spec("repeated_tool_calls"), _spec("length_budget"),
           _spec("tool_call_validity")]
PLANS: dict[str, list[CheckSpec]] = {
    "the four cheap checks": LIBRARY,
    "a pass line of 0 (marked)": [_spec("repeated_tool_calls", 0.0, name="r0"),
                                  _spec("loop_one_score", 0.0), _spec("loop_one_score", -1.0,
                                                                      name="neg")],
    "a pass line above 0": [_spec("loop_one_score", 1.5), _spec("loop_one_score", 3.0,
                                                                 name="high")],
    "an OpenEvalError": [_spec("loop_case_error"), *LIBRARY],
    "a crash": [_spec("loop_crash"), _spec("loop_crash_silent")],
    "not a list of scores": [_spec("loop_number"), _spec("loop_one_score")],
    "earlier scores": [*LIBRARY, _spec("loop_reads_earlier")],
    "with a metric": [_spec("tool_selection_accuracy", 0.5, "metric"), *LIBRARY,
                      _spec("loop_reads_earlier")],
    "metrics only": [_spec("tool_selection_accuracy", 0.5, "metric")],
}

TRACE = AgentTrace(
    task_id="t",
    input="reach me at jo@example.com",
    steps=[
        TraceStep(step_id=1, type="tool_call", tool_name="search", tool_args={"q": 1}),
        TraceStep(step_id=2, type="tool_call", tool_name="search", tool_args={"q": 1.0}),
        TraceStep(step_id=3, type="tool_call", tool_name="mail", tool_args={"to": "x"},
                  error="timeout"),
        TraceStep(step_id=4, type="output", content="mail jo@example.com"),
    ],
    final_output="write to jo@example.com",
)


def _general(trace: AgentTrace, plan: CasePlan) -> tuple[CheckResult, ...]:
    """The scorer's loop as it was: every entry through _run_isolated, every result marked."""
    results: list[CheckResult] = []
    earlier: dict[str, Scores] = {}
    memo = TraceMemo()
    keep = any(spec.family != "metric" for spec in plan.checks)
    for spec in plan.checks:
        result = _marked(_run_isolated(spec, trace, plan, earlier, memo))
        if keep:
            earlier[spec.name] = Scores(result.scores)
        results.append(result)
    return tuple(results)


@pytest.mark.parametrize("specs", PLANS.values(), ids=list(PLANS))
def test_the_loop_gives_the_general_results(specs: list[CheckSpec]) -> None:
    test_case = EvalTestCase(task_id="t", expected_tool_calls=[{"name": "search"}])
    plan = CasePlan(test_case=test_case, checks=tuple(specs))
    found = score(TRACE, plan)
    assert found == _general(TRACE, plan)
    assert [r.to_dict() for r in found] == [r.to_dict() for r in _general(TRACE, plan)]
    assert all(type(r.data) is dict for r in found)


def test_the_table_reaches_every_branch() -> None:
    verdicts = {r.verdict for specs in PLANS.values()
                for r in score(TRACE, CasePlan(EvalTestCase(task_id="t"), tuple(specs)))}
    assert verdicts >= {"pass", "fail", "error", "n.a."}


def test_a_scorer_context_is_the_dataclass_one() -> None:
    memo = TraceMemo()
    test_case = EvalTestCase(task_id="t")
    for case, scores in ((None, {}), (test_case, {"a": Scores([Score(1.0)])})):
        fast = scorer_context(TRACE, case, {"k": 1}, scores, memo)
        built = CheckContext(trace=TRACE, test_case=case, params={"k": 1}, scores=scores,
                             memo=memo)
        assert fast == built
        assert vars(fast) == vars(built)
        assert fast.spans == built.spans and fast.input == built.input


@pytest.mark.parametrize("verdict", ["pass", "fail", "n.a.", "error"])
def test_a_check_result_is_the_dataclass_one(verdict: Any) -> None:
    spec = _spec("pii_leak", 0.5)
    scores = (Score(True, "BOOLEAN", "ok", "clean"),)
    fast = check_result(spec, verdict, scores, "why")
    built = CheckResult(spec, verdict, scores, "why")
    assert fast == built and vars(fast) == vars(built)
    assert fast.to_dict() == built.to_dict()
    assert fast.data is not check_result(spec, verdict, scores, "why").data  # never shared
    data = {"notes": ["extra: send_email"]}
    kept = check_result(spec, verdict, scores, "why", data)
    assert kept == CheckResult(spec, verdict, scores, "why", data)
    assert vars(kept) == vars(CheckResult(spec, verdict, scores, "why", data))
    assert kept.data is data  # as the dataclass keeps it: the scorer bounded it already


@dataclass(frozen=True)
class _GeneratedScore:
    """Score's fields with the dataclass's generated ``__init__``: the general path."""

    value: Any
    data_type: Any = "NUMERIC"
    comment: str | None = None
    name: str | None = None
    higher_is_better: bool | None = None

    def __post_init__(self) -> None:
        Score.__post_init__(self)  # type: ignore[arg-type]


def _outcome(make: Any, args: tuple[Any, ...]) -> Mapping[str, Any] | str:
    try:
        return vars(make(*args))
    except ValueError as exc:
        return f"ValueError: {exc}"


VALUES = st.one_of(st.booleans(), st.integers(), st.floats(), st.text(max_size=3), st.none())


@given(VALUES, st.sampled_from(["NUMERIC", "BOOLEAN", "CATEGORICAL", "numeric", "OTHER"]),
       st.none() | st.text(max_size=3), st.none() | st.booleans())
def test_a_score_is_built_as_the_dataclass_builds_it(
    value: Any, data_type: str, name: str | None, higher: bool | None,
) -> None:
    args = (value, data_type, "c", name, higher)
    assert _outcome(Score, args) == _outcome(_GeneratedScore, args)


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan, 1, True, "x"])
def test_a_numeric_score_refuses_what_it_refused(value: Any) -> None:
    args = (value, "NUMERIC", None, "n", None)
    assert _outcome(Score, args) == _outcome(_GeneratedScore, args)


def test_cases_share_the_result_a_metric_cannot_judge_and_it_is_the_built_one() -> None:
    from openeval.scoring import compile_plan

    case = EvalTestCase(task_id="t", expected_output_contains=["x"])
    trace = AgentTrace(task_id="t", final_output="x", steps=[])
    first, second = score(trace, compile_plan(case)), score(trace, compile_plan(case))
    judged_none = [(a, b) for a, b in zip(first, second, strict=True) if a.verdict == "n.a."]
    assert judged_none  # trajectory_match, state_diff ... have nothing to judge here
    for a, b in judged_none:
        assert a is b
        assert a == check_result(a.spec, "n.a.", (), a.details) and a.data == {}
