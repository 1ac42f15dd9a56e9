"""Did the agent get there without wasted calls? (``step_efficiency``)"""

from __future__ import annotations

from openeval.metrics._common import count_tool_calls, plural
from openeval.metrics.base import Measurement, Metric, not_applicable
from openeval.models import AgentTrace, EvalTestCase


class StepEfficiency(Metric):
    """Ratio of the optimal number of tool calls to the number the agent made, capped at 1.

    The optimum is the test case's ``optimal_steps``, else the number of expected tool calls.
    Every tool call counts, denied ones included (a blocked attempt still cost a step).
    Score: ``min(1, optimal / actual)``.

    Passes when the score reaches the pass line (default 0.5: at most twice the optimum).
    Fails when the agent used more calls than that. Not applicable when the optimum is unknown
    or zero, or when the agent made no tool call.
    """

    name = "step_efficiency"
    default_threshold = 0.5

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return ``min(1, optimal / actual)`` over tool calls."""
        optimal = test_case.optimal_steps
        source = "optimal_steps"
        if optimal is None:
            optimal = len(test_case.expected_tool_calls)
            source = "expected tool calls"
        if optimal <= 0:
            return not_applicable("optimal step count unknown: no optimal_steps, no expected calls")
        actual = count_tool_calls(trace.steps)
        if actual == 0:
            return not_applicable(f"no tool calls made (optimal {optimal} from {source})")
        score = min(1.0, optimal / actual)
        made = plural(actual, "tool call")
        if actual <= optimal:
            return Measurement(score, f"{made}, optimal {optimal} ({source})")
        extra = actual - optimal
        return Measurement(score, f"{made} for optimal {optimal} ({source}): {extra} extra")
