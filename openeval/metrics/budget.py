"""Did the agent stay within its step and time limits? (``step_budget``)"""

from __future__ import annotations

import math

from openeval.errors import OpenEvalError
from openeval.metrics._common import plural
from openeval.metrics.base import Measurement, Metric, not_applicable
from openeval.models import AgentTrace, EvalTestCase, TraceStep


def run_duration(steps: list[TraceStep]) -> tuple[float, str] | None:
    """Return ``(seconds, how it was measured)`` for a run, or None when it cannot be known.

    The span from the earliest to the latest step timestamp when at least two steps carry
    distinct non-zero timestamps (0.0 means "no timestamp"); else the sum of ``latency_ms`` of
    the steps that have one; else None.

    Raises OpenEvalError naming the step when a figure it would measure with is not one: a
    timestamp that is not finite, or a ``latency_ms`` that is negative or not finite (summed,
    a negative latency would cancel real time and let a slow run pass its timeout).
    """
    for step in steps:
        if not math.isfinite(step.timestamp):
            raise OpenEvalError(_not_a_duration(step, "timestamp", step.timestamp, "seconds"))
    earliest = latest = 0.0
    stamped = False
    latency_ms = 0.0
    timed = False
    for step in steps:
        stamp = step.timestamp
        if stamp:
            if not stamped:
                earliest = latest = stamp
                stamped = True
            elif stamp < earliest:
                earliest = stamp
            elif stamp > latest:
                latest = stamp
        if step.latency_ms is not None:
            latency_ms += step.latency_ms
            timed = True
    if latest > earliest:
        return latest - earliest, "timestamps"
    if timed:
        for step in steps:
            value = step.latency_ms
            if value is not None and not (math.isfinite(value) and value >= 0):
                raise OpenEvalError(_not_a_duration(step, "latency_ms", value, "0 ms or more"))
        return latency_ms / 1000.0, "sum of latency_ms"
    return None


def _not_a_duration(step: TraceStep, field: str, value: float, expected: str) -> str:
    return (f"step {step.step_id}: {field} is {value!r}, not a duration (expected {expected}): "
            "the run's duration cannot be known, so timeout_seconds is not checked")


def _seconds(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".") + "s"


class StepBudget(Metric):
    """Whether the run kept within the test case's ``max_steps`` and ``timeout_seconds``.

    Steps are tool calls, denied ones included. The run's duration is the span of its step
    timestamps when at least two distinct non-zero ones exist, else the sum of the steps'
    ``latency_ms``, else unknown: an unknown duration is not checked, and the details and a
    note say so.
    Score: 1.0 within every limit that is set, else 0.0.

    Passes when no set limit is exceeded. Fails when the agent made more tool calls than
    ``max_steps`` or ran longer than ``timeout_seconds``; details give the figures.
    Not applicable when the test case sets neither limit. An error, never a pass, when
    ``timeout_seconds`` is set and the duration would be measured with a negative or
    non-finite ``latency_ms`` or a non-finite timestamp (the error names the step).
    """

    name = "step_budget"
    default_threshold = 1.0

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return 1.0 when the run kept to every limit set, else 0.0."""
        max_steps = test_case.max_steps
        timeout = test_case.timeout_seconds
        if max_steps is None and timeout is None:
            return not_applicable("no max_steps or timeout_seconds set")
        over: list[str] = []
        within: list[str] = []
        notes: list[str] = []
        if max_steps is not None:
            calls = sum(1 for step in trace.steps if step.type == "tool_call")
            if calls > max_steps:
                over.append(f"{plural(calls, 'tool call')} > max_steps {max_steps}")
            else:
                within.append(f"{plural(calls, 'tool call')} <= max_steps {max_steps}")
        if timeout is not None:
            duration = run_duration(trace.steps)
            if duration is None:
                within.append(
                    f"duration unknown (no timestamps or latency_ms): timeout_seconds {timeout:g} "
                    "not checked"
                )
                notes.append(f"timeout_seconds {timeout:g} not checked: the trace has no "
                             "timestamps or latency_ms")
            else:
                seconds, how = duration
                sign = ">" if seconds > timeout else "<="
                text = f"ran {_seconds(seconds)} ({how}) {sign} timeout_seconds {timeout:g}"
                (over if seconds > timeout else within).append(text)
        if over:
            return Measurement(0.0, "; ".join(over + within))
        return Measurement(1.0, "; ".join(within), data={"notes": notes} if notes else {})
