"""Did the agent pass the right arguments? (``argument_correctness``)"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from openeval.metrics._assignment import max_weight_assignment
from openeval.metrics._common import (
    ExpectedCall,
    describe_difference,
    expected_calls,
    join_bounded,
)
from openeval.metrics.base import Measurement, Metric, not_applicable
from openeval.metrics.registry import register_metric
from openeval.models import AgentTrace, EvalTestCase
from openeval.values import first_difference, json_equal

_NO_ARGS: Mapping[str, Any] = {}
_ABSENT = object()
_SCALARS = frozenset({str, int, float, bool, type(None)})


@register_metric
class ArgumentCorrectness(Metric):
    """Share of the expected argument values that the agent's executed calls carried.

    Each expected call is paired with at most one executed (non-denied) call of the same tool,
    and no executed call serves two expected ones; among all such pairings the one that matches
    the most key-value pairs is used (an exact assignment, so repeated tools are judged fairly).
    A pair matches when the executed call has the key with an equal JSON value: ``1`` equals
    ``1.0``, but ``"1"`` and ``true`` do not. An expected call left unpaired matches nothing.
    Score: matching pairs over all expected pairs.

    Passes when the score reaches the pass line (default 1.0: every expected value seen).
    Fails on a wrong, missing or uncalled argument; details name each one.
    Not applicable when no expected call lists any arguments.
    """

    name = "argument_correctness"
    default_threshold = 1.0

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return the share of expected key-value pairs matched under the best pairing."""
        wanted = [call for call in expected_calls(test_case) if call.args]
        total = sum(len(call.args) for call in wanted)
        if not total:
            return not_applicable("no expected arguments")
        by_tool: dict[str, list[ExpectedCall]] = {}
        for call in wanted:
            by_tool.setdefault(call.tool, []).append(call)
        executed: dict[str, list[Mapping[str, Any]]] = {name: [] for name in by_tool}
        denied: Counter[str] = Counter()
        for step in trace.steps:
            if step.type != "tool_call" or step.tool_name not in executed:
                continue
            if step.denied:
                denied[step.tool_name] += 1
            else:
                executed[step.tool_name].append(step.tool_args or _NO_ARGS)

        partner: dict[int, Mapping[str, Any] | None] = {}
        matched = 0
        for tool, calls in by_tool.items():
            actual = executed[tool]
            wanted_items = [tuple(call.args.items()) for call in calls]
            weights = [[_matches(items, args) for args in actual] for items in wanted_items]
            for call, row, col in zip(
                calls, weights, max_weight_assignment(weights), strict=True
            ):
                partner[call.position] = None if col is None else actual[col]
                matched += 0 if col is None else row[col]

        if matched == total:
            return Measurement(1.0, f"expected argument values matched: {total}/{total}")
        problems: list[str] = []
        seen: Counter[str] = Counter()
        for call in wanted:
            seen[call.tool] += 1
            label = call.tool if len(by_tool[call.tool]) == 1 else f"{call.tool}#{seen[call.tool]}"
            args = partner[call.position]
            if args is None:
                blocked = f" ({denied[call.tool]} denied)" if denied[call.tool] else ""
                problems.append(f"{label}: not called{blocked}")
            else:
                problems.extend(_differences(label, call.args, args))
        head = f"expected argument values matched: {matched}/{total}"
        return Measurement(matched / total, join_bounded([head, *problems]))


def _matches(expected: tuple[tuple[str, Any], ...], actual: Mapping[str, Any]) -> int:
    count = 0
    for key, value in expected:
        got = actual.get(key, _ABSENT)
        if got is _ABSENT:
            continue
        kind = type(value)
        # Same plain scalar type: == is JSON equality; skipping the call matters on long traces.
        if kind is type(got) and kind in _SCALARS:
            count += value == got
        elif json_equal(value, got):
            count += 1
    return count


def _differences(label: str, expected: Mapping[str, Any], actual: Mapping[str, Any]) -> list[str]:
    out: list[str] = []
    for key in sorted(expected, key=str):
        if key not in actual:
            out.append(f"{label}.{key}: missing")
            continue
        found = first_difference(expected[key], actual[key], f"{label}.{key}")
        if found is not None:
            path, want, got = found
            out.append(describe_difference(path, want, got))
    return out

