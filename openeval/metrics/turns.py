"""Expectations per user turn of a multi-turn conversation (``turn_expectations``).

A test case's ``turns`` lists entries ``{"user": k, ...}``: what the agent should do in the
segment after the k-th user message (1-based) up to the next one. Each entry may hold
``expected_tool_calls`` (with every key of the case-level list), ``trajectory``,
``expected_output_contains`` (against the segment's last assistant text) and ``max_steps``;
each is judged by the metric of the same expectation on the segment alone
(``tool_selection_accuracy``, ``argument_correctness``, ``trajectory_match``,
``output_contains``, ``step_budget``). See proposals/0154-turn-expectations.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openeval.errors import OpenEvalError
from openeval.matching.validate import check_turns
from openeval.metrics._common import join_bounded, plural
from openeval.metrics.base import Measurement, Metric, not_applicable
from openeval.metrics.registry import register_metric
from openeval.models import AgentTrace, EvalTestCase, TraceStep

_JUDGED_BY = ("tool_selection_accuracy", "argument_correctness", "trajectory_match",
              "output_contains", "step_budget")


@dataclass(frozen=True)
class Segment:
    """The steps and last assistant text of one user turn."""

    steps: tuple[TraceStep, ...]
    output: str


def segments(trace: AgentTrace) -> list[Segment]:
    """Return one segment per user message of ``trace``, in order.

    A step belongs to the user turn whose assistant messages carry its model turn
    (``TraceStep.turn`` = ``Message.turn``). Raises OpenEvalError when the trace records no
    user messages or a tool call with no model turn, since no segment can then be told apart.
    """
    owner: dict[int, int] = {}
    outputs: list[str] = []
    for message in trace.messages:
        if message.role == "user":
            outputs.append("")
        elif message.role == "assistant" and outputs:
            if message.turn is not None:
                owner.setdefault(message.turn, len(outputs) - 1)
            if message.content:
                outputs[-1] = message.content
    if not outputs:
        raise OpenEvalError("turns need the conversation's user messages, and this trace "
                            "records none")
    found: list[list[TraceStep]] = [[] for _ in outputs]
    for step in trace.steps:
        if step.turn is None:
            if step.type == "tool_call":
                raise OpenEvalError(
                    f"turns need the model turn of each call, and step {step.step_id} "
                    f"({step.tool_name}) has none")
            continue
        at = owner.get(step.turn)
        if at is not None:
            found[at].append(step)
    return [Segment(tuple(s), o) for s, o in zip(found, outputs, strict=True)]


@register_metric
class TurnExpectations(Metric):
    """The share of the test case's ``turns`` entries whose every expectation holds.

    Each entry ``{"user": k, ...}`` is judged on the segment after the k-th user message up to
    the next: its ``expected_tool_calls`` (tool selection and, with arguments, argument
    correctness), ``trajectory``, ``expected_output_contains`` (against the segment's last
    assistant text) and ``max_steps``, each by the metric of the same name on the segment.
    Score: entries that hold over entries.

    Passes when every entry holds (pass line 1.0). Fails otherwise; details name the first
    failing turn and why (a ``k`` beyond the conversation fails its entry: "the conversation
    has 2 user turns"), and the result's data holds each turn's sub-results. Not applicable
    when the test case has no ``turns``. A trace without user messages, or whose calls carry no
    model turn, is an error: its turns cannot be told apart.
    """

    name = "turn_expectations"
    default_threshold = 1.0

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return the share of turn entries that hold."""
        if not test_case.turns:
            return not_applicable("no turns in the test case")
        check_turns(test_case.turns)
        parts = segments(trace)
        held = 0
        first: str | None = None
        records: list[dict[str, Any]] = []
        for n, entry in enumerate(test_case.turns):
            ok, why, results = _judge(entry, parts, test_case.task_id)
            held += ok
            records.append({"user": entry["user"], "passed": ok, "results": results,
                            **({"why": why[:200]} if why else {})})
            if not ok and first is None:
                first = f"turns[{n}] (user turn {entry['user']}): {why}"
        total = len(test_case.turns)
        head = f"turn expectations held: {held}/{total}"
        data = {"turns": records[:40]}
        if held == total:
            return Measurement(1.0, head, data=data)
        return Measurement(held / total, join_bounded([head, first or ""]), data=data)


def _judge(
    entry: Mapping[str, Any], parts: Sequence[Segment], task_id: str,
) -> tuple[bool, str, list[dict[str, Any]]]:
    from openeval.metrics.registry import metric_class

    k = entry["user"]
    if k > len(parts):
        return False, f"the conversation has {plural(len(parts), 'user turn')}", []
    segment = parts[k - 1]
    sub_trace = AgentTrace(task_id=task_id, steps=list(segment.steps),
                           final_output=segment.output)
    sub_case = EvalTestCase(
        task_id=task_id,
        expected_tool_calls=list(entry.get("expected_tool_calls", [])),
        trajectory=entry.get("trajectory"),
        expected_output_contains=list(entry.get("expected_output_contains", [])),
        max_steps=entry.get("max_steps"),
    )
    results: list[dict[str, Any]] = []
    why = ""
    for name in _JUDGED_BY:
        result = metric_class(name)().score(sub_trace, sub_case)
        if result.passed is None:
            continue
        results.append({"metric": name, "passed": result.passed,
                        "details": result.details[:200]})
        if result.passed is False and not why:
            why = f"{name}: {result.details}"
    return not why, why, results
