"""Did the agent stay within its step and time limits? (``step_budget``)"""

from __future__ import annotations

from openeval.metrics._common import plural
from openeval.metrics.base import Measurement, Metric, not_applicable
from openeval.metrics.registry import register_metric
from openeval.models import AgentTrace, EvalTestCase


def _seconds(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".") + "s"


@register_metric
class StepBudget(Metric):
    """Whether the run kept within the test case's ``max_steps`` and ``timeout_seconds``.

    Steps are tool calls, denied ones included. The run's duration is the span of its step
    timestamps when at least two distinct positive ones exist, else the sum of the steps'
    ``latency_ms``, else unknown (:func:`openeval.models.run_duration`).
    Score: 1.0 within every limit that is set, else 0.0.

    Passes when no set limit is exceeded. Fails when the agent made more tool calls than
    ``max_steps`` or ran longer than ``timeout_seconds``, or when ``timeout_seconds`` is set
    and the trace records no time to check it against (a limit the case asks for and the
    trace cannot show fails, as an expected state the trace does not record does); details
    give the figures. Not applicable when the test case sets neither limit. An error, never
    a pass, when ``timeout_seconds`` is set and the duration would be measured with a
    negative or non-finite ``latency_ms`` or a non-finite timestamp (the error names the
    step).
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
        if max_steps is not None:
            calls = sum(1 for step in trace.steps if step.type == "tool_call")
            if calls > max_steps:
                over.append(f"{plural(calls, 'tool call')} > max_steps {max_steps}")
            else:
                within.append(f"{plural(calls, 'tool call')} <= max_steps {max_steps}")
        if timeout is not None:
            duration = trace.run_duration()
            if duration is None:
                over.append(f"timeout_seconds {timeout:g} cannot be checked: the trace records "
                            "no timestamps or latency_ms (remove the limit, or record times)")
            else:
                seconds = duration.seconds
                how = "timestamps" if duration.source == "timestamps" else "sum of latency_ms"
                sign = ">" if seconds > timeout else "<="
                text = f"ran {_seconds(seconds)} ({how}) {sign} timeout_seconds {timeout:g}"
                (over if seconds > timeout else within).append(text)
        if over:
            return Measurement(0.0, "; ".join(over + within))
        return Measurement(1.0, "; ".join(within))
