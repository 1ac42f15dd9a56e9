"""Did the agent stay within its step and time limits? (``step_budget``)"""

from __future__ import annotations

from openeval.metrics._common import count_tool_calls, plural
from openeval.metrics.base import Measurement, Metric, not_applicable
from openeval.models import AgentTrace, EvalTestCase


def _seconds(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".") + "s"


class StepBudget(Metric):
    """Whether the run kept within the test case's ``max_steps`` and ``timeout_seconds``.

    Steps are tool calls, denied ones included. The run's duration is the span of its step
    timestamps when at least two distinct positive ones exist, else the sum of the steps'
    ``latency_ms``, else unknown (:func:`openeval.models.run_duration`).
    Score: 1.0 within every limit that is set, else 0.0.

    Passes when no set limit is exceeded. Fails when the agent made more tool calls than
    ``max_steps`` or ran longer than ``timeout_seconds``; details give the figures.
    Not applicable when the test case sets neither limit, or sets only ``timeout_seconds``
    and the trace records no time (nothing judged is never a pass); beside ``max_steps``, an
    unknown duration is not checked, and the details and a note say so
    (proposals/0102-no-vacuous-passes.md). An error, never a pass, when ``timeout_seconds``
    is set and the duration would be measured with a negative or non-finite ``latency_ms``
    or a non-finite timestamp (the error names the step).
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
            calls = count_tool_calls(trace.steps)
            if calls > max_steps:
                over.append(f"{plural(calls, 'tool call')} > max_steps {max_steps}")
            else:
                within.append(f"{plural(calls, 'tool call')} <= max_steps {max_steps}")
        if timeout is not None:
            duration = trace.run_duration()
            if duration is None:
                unknown = (f"duration unknown (no timestamps or latency_ms): timeout_seconds "
                           f"{timeout:g} not checked")
                if max_steps is None:
                    return not_applicable(unknown)
                within.append(unknown)
                notes.append(f"timeout_seconds {timeout:g} not checked: the trace has no "
                             "timestamps or latency_ms")
            else:
                seconds = duration.seconds
                how = "timestamps" if duration.source == "timestamps" else "sum of latency_ms"
                sign = ">" if seconds > timeout else "<="
                text = f"ran {_seconds(seconds)} ({how}) {sign} timeout_seconds {timeout:g}"
                (over if seconds > timeout else within).append(text)
        if over:
            return Measurement(0.0, "; ".join(over + within))
        return Measurement(1.0, "; ".join(within), data={"notes": notes} if notes else {})
