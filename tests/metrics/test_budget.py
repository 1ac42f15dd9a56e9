"""``step_budget`` fails closed on durations that are not durations.

Summed, a negative ``latency_ms`` cancels real time: a run of 12 s with one step claiming
-10 s passed ``timeout_seconds: 5``. Such a figure (or a non-finite one, or a non-finite
timestamp) makes the check an error naming the step, through the real scorer.
"""

from __future__ import annotations

import math

import pytest

from openeval.models import AgentTrace, EvalTestCase, TraceStep
from openeval.scoring import compile_plan, score


def verdict(steps: list[TraceStep], **limits: float) -> tuple[str, str]:
    test_case = EvalTestCase.from_dict({"task_id": "t", "metrics": ["step_budget"], **limits})
    [result] = score(AgentTrace(task_id="t", steps=steps), compile_plan(test_case))
    return result.verdict, result.details


def call(step_id: int, **fields: float) -> TraceStep:
    return TraceStep(step_id=step_id, type="tool_call", tool_name="search", **fields)


@pytest.mark.parametrize(("field", "value"), [
    ("latency_ms", -10_000.0), ("latency_ms", math.nan), ("latency_ms", math.inf),
    ("latency_ms", -math.inf), ("timestamp", math.nan), ("timestamp", math.inf),
])
def test_a_figure_that_is_not_a_duration_is_an_error_never_a_pass(field: str,
                                                                   value: float) -> None:
    steps = [call(1, latency_ms=12_000.0), call(2, **{field: value})]
    found, details = verdict(steps, timeout_seconds=5, max_steps=10)
    assert found == "error"
    assert details.startswith(f"step 2: {field} is {value!r}, not a duration"), details


def test_good_latencies_are_still_summed() -> None:
    assert verdict([call(1, latency_ms=2_000.0), call(2, latency_ms=0.0)],
                   timeout_seconds=5) == ("pass", "ran 2s (sum of latency_ms) <= timeout_seconds 5")


def test_a_bad_latency_is_not_read_when_the_timestamps_say_it_all() -> None:
    steps = [call(1, timestamp=100.0, latency_ms=-5.0), call(2, timestamp=112.0)]
    assert verdict(steps, timeout_seconds=5)[0] == "fail"
