"""The scorer asks a metric once whether the test case alone makes it not applicable
(:meth:`~openeval.metrics.base.Metric.not_applicable_to`, proposals/0271), and gives the
same result as the metric's own ``measure``; a user's subclass that changes ``measure`` is
still measured."""

from __future__ import annotations

import pytest

from openeval.metrics.base import Measurement, case_decides
from openeval.metrics.goal import GoalCompletionRate
from openeval.metrics.registry import REGISTRY, metric_class, metric_names
from openeval.metrics.state_diff import StateDiff
from openeval.models import AgentTrace, EvalTestCase, TraceStep
from openeval.scoring import compile_plan, score

TRACE = AgentTrace(task_id="t", steps=[
    TraceStep(step_id=1, type="tool_call", tool_name="f", tool_args={"a": 1})])
BARE = EvalTestCase(task_id="t", expected_tool_calls=[{"tool": "f", "args": {"a": 1}}])


@pytest.mark.parametrize("name", metric_names())
def test_not_applicable_to_agrees_with_measure(name: str) -> None:
    cls = metric_class(name)
    metric = cls() if cls.default_threshold is None else cls(threshold=cls.default_threshold)
    blank = metric.not_applicable_to(BARE)
    if blank is not None:
        assert not blank.applicable
        assert metric.measure(TRACE, BARE) == blank


def test_the_plan_gives_the_measured_result() -> None:
    plan = compile_plan(BARE)
    results = {r.spec.name: r for r in score(TRACE, plan)}
    for name in ("state_diff", "turn_expectations", "goal_completion_rate"):
        cls = metric_class(name)
        found = cls().measure(TRACE, BARE)
        assert results[name].verdict == "n.a."
        assert results[name].details == found.details


def test_a_subclass_that_changes_measure_is_measured() -> None:
    class Strict(StateDiff):
        """State diff that judges even without a state (a test's metric)."""

        name = "strict_state_diff"

        def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
            return Measurement(0.0, "judged anyway")

    assert case_decides(StateDiff) and case_decides(GoalCompletionRate)
    assert not case_decides(Strict)
    REGISTRY.register(Strict.name, Strict)
    try:
        plan = compile_plan(BARE, metrics=[Strict.name])
        (result,) = score(TRACE, plan)
        assert (result.verdict, result.details) == ("fail", "judged anyway")
    finally:
        REGISTRY.unregister(Strict.name)
