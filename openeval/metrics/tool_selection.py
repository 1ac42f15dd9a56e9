"""Did the agent call the tools it should have? (``tool_selection_accuracy``)"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from openeval.matching.alignment import alignment_data, selection_rows
from openeval.matching.shared import counts_match
from openeval.metrics._common import (
    counted,
    expected_calls,
    join_bounded,
    with_unrecorded_note,
)
from openeval.metrics._rules import selection_by_rules
from openeval.metrics.arguments import constrained
from openeval.metrics.base import Measurement, Metric, not_applicable
from openeval.metrics.compiled import CompiledCase
from openeval.models import AgentTrace, EvalTestCase
from openeval.values import short_json


class ToolSelectionAccuracy(Metric):
    """Share of the expected tool calls that the agent executed, counted as a multiset.

    Score: for each expected tool name, the smaller of "times expected" and "times executed",
    summed and divided by the number of expected calls. Denied calls did not execute and do not
    count; nor do failed calls (``error`` set: the tool raised, the span ended in ERROR), which
    did not achieve their effect (docs/semantics.md#no-vacuous-passes); a failed call retried
    successfully counts once, as made. Extra calls do not lower the score (step efficiency and step
    budget judge those) but are named in the details, as are failed calls ("called but failed:
    <error>").

    Passes when the score reaches the pass line (default 1.0: every expected call made);
    extra calls are noted. Fails when an expected call is missing; the result's data then
    holds the expected and executed calls side by side, and when the trace could not show
    calls at all (an OTel trace recorded without message content), the details say so and how
    to record them. Not applicable when the test case expects no calls.

    When the expected calls carry order or count keys (``times``, ``optional``, ``after`` ...),
    the score is the share of expected calls whose count holds in the one assignment the call
    metrics share (:mod:`openeval.metrics._rules`): a second identical refund fails
    ``times: 1``; an optional call may be missing.
    """

    name = "tool_selection_accuracy"
    default_threshold = 1.0

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return the multiset overlap of executed and expected tool names."""
        return self.measure_compiled(trace, CompiledCase(test_case))

    def measure_compiled(self, trace: AgentTrace, case: CompiledCase) -> Measurement:
        """:meth:`measure`, the expected calls read once per case."""
        test_case = case.test_case
        if case.once(constrained):
            shared = counts_match(trace.steps, test_case)
            if shared is not None:
                return selection_by_rules(shared, trace, test_case)
        expected = case.derived(_expected_counts)
        if not expected:
            return not_applicable("no expected tool calls")
        # Counted in C, in the order the trace first names each tool.
        executed: dict[str, int] = Counter([
            step.tool_name for step in trace.steps
            if step.type == "tool_call" and step.tool_name is not None and not step.denied
            and step.error is None])
        # The multiset differences, each in the order its first side names the tools (as
        # Counter subtraction gives them); the calls found are the expected ones not missing.
        missing = {name: n - executed.get(name, 0) for name, n in expected.items()
                   if n > executed.get(name, 0)}
        extra = {name: n - expected.get(name, 0) for name, n in executed.items()
                 if n > expected.get(name, 0)}
        total = sum(expected.values())
        found = total - sum(missing.values())
        score = found / total
        if not missing and not extra:
            return Measurement(score, f"expected tool calls made: {total}/{total}")
        # Only a failing or untidy run pays for the details.
        parts = [f"expected tool calls made: {found}/{total}"]
        if missing:
            denied, failed = _denied_and_failed(trace)
            parts.append("missing: " + counted(missing) + _denied_note(missing, denied))
            parts += [
                f"{name}: called but failed: {short_json(failed[name])[1:-1]}"
                for name in missing if name in failed
            ]
        extras = "extra: " + counted(extra) if extra else ""
        if extra:
            parts.append(extras)
        if not missing:  # a pass with extra calls: worth a note, not a failure
            return Measurement(score, join_bounded(parts), data={"notes": [extras]})
        rows = selection_rows(trace.steps, [call.tool for call in case.once(expected_calls)])
        return Measurement(score, with_unrecorded_note(join_bounded(parts), score, trace),
                           data=alignment_data(rows))


def _expected_counts(case: CompiledCase) -> dict[str, int]:
    """How many times each tool is expected, in the order the case first names it."""
    expected: dict[str, int] = {}
    for call in case.once(expected_calls):
        expected[call.tool] = expected.get(call.tool, 0) + 1
    return expected


def _denied_and_failed(trace: AgentTrace) -> tuple[dict[str, int], dict[str, str]]:
    """How many times each tool was denied, and the first error each failed with."""
    denied: dict[str, int] = {}
    failed: dict[str, str] = {}
    for step in trace.steps:
        if step.type == "tool_call" and step.tool_name is not None:
            name = step.tool_name
            if step.denied:
                denied[name] = denied.get(name, 0) + 1
            elif step.error is not None:
                failed.setdefault(name, step.error)
    return denied, failed


def _denied_note(missing: Mapping[str, int], denied: dict[str, int]) -> str:
    blocked = {name: denied[name] for name in missing if denied.get(name)}
    return f" (denied: {counted(blocked)})" if blocked else ""
