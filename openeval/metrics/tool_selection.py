"""Did the agent call the tools it should have? (``tool_selection_accuracy``)"""

from __future__ import annotations

from collections import Counter

from openeval.metrics._common import counted, expected_calls, join_bounded
from openeval.metrics.base import Measurement, Metric, not_applicable
from openeval.metrics.registry import register_metric
from openeval.models import AgentTrace, EvalTestCase


@register_metric
class ToolSelectionAccuracy(Metric):
    """Share of the expected tool calls that the agent executed, counted as a multiset.

    Score: for each expected tool name, the smaller of "times expected" and "times executed",
    summed and divided by the number of expected calls. Denied calls did not execute and do not
    count. Extra calls do not lower the score (step efficiency and step budget judge those) but
    are named in the details.

    Passes when the score reaches the pass line (default 1.0: every expected call made).
    Fails when an expected call is missing. Not applicable when the test case expects no calls.
    """

    name = "tool_selection_accuracy"
    default_threshold = 1.0

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return the multiset overlap of executed and expected tool names."""
        expected = Counter(call.tool for call in expected_calls(test_case))
        if not expected:
            return not_applicable("no expected tool calls")
        executed: Counter[str] = Counter()
        denied: Counter[str] = Counter()
        for step in trace.steps:
            if step.type == "tool_call" and step.tool_name is not None:
                (denied if step.denied else executed)[step.tool_name] += 1
        total = sum(expected.values())
        missing = expected - executed
        extra = executed - expected
        found = total - sum(missing.values())
        score = found / total
        if not missing and not extra:
            return Measurement(score, f"expected tool calls made: {total}/{total}")
        parts = [f"expected tool calls made: {found}/{total}"]
        if missing:
            parts.append("missing: " + counted(missing) + _denied_note(missing, denied))
        if extra:
            parts.append("extra: " + counted(extra))
        return Measurement(score, join_bounded(parts))


def _denied_note(missing: Counter[str], denied: Counter[str]) -> str:
    blocked = Counter({name: denied[name] for name in missing if denied[name]})
    return f" (denied: {counted(blocked)})" if blocked else ""
