"""Expectations per user turn of a multi-turn conversation (``turn_expectations``).

A test case's ``turns`` lists entries ``{"user": k, ...}``: what the agent should do in the
segment after the k-th user message (1-based) up to the next one. Each entry may hold
``expected_tool_calls`` (with every key of the case-level list), ``trajectory``,
``expected_output_contains`` (against the segment's last assistant text), ``max_steps`` and
``checks`` (built-in check entries, as in a test case's ``checks``); each is judged on the
segment alone, by the metric of the same expectation (``tool_selection_accuracy``,
``argument_correctness``, ``trajectory_match``, ``output_contains``, ``step_budget``) or by the
check. See proposals/0154-turn-expectations.md and proposals/0240-checks-per-turn.md; the shape
of each turn's record in the result's data is in docs/semantics.md#per-turn-expectations.
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
from openeval.models import AgentTrace, EvalTestCase, Message, TraceStep
from openeval.scores import Score, verdict

_JUDGED_BY = ("tool_selection_accuracy", "argument_correctness", "trajectory_match",
              "output_contains", "step_budget")
MAX_TURN_RECORDS = 40
"""Turn entries kept in the result's data (the count of the rest is kept too)."""
MAX_SUB_DETAILS = 200
"""Longest details kept per sub-result of a turn."""
CHECK_ENTRY_KEYS = ("check", "name", "threshold")
"""The keys of a turn's check entry that are not settings of the check."""


@dataclass(frozen=True)
class Segment:
    """The steps, messages and last assistant text of one user turn."""

    steps: tuple[TraceStep, ...]
    output: str
    messages: tuple[Message, ...] = ()
    """The user message that opens the turn and every message up to the next user message."""


def segments(trace: AgentTrace) -> list[Segment]:
    """Return one segment per user message of ``trace``, in order.

    A step belongs to the user turn whose assistant messages carry its model turn
    (``TraceStep.turn`` = ``Message.turn``). Raises OpenEvalError when the trace records no
    user messages or a tool call with no model turn, since no segment can then be told apart.
    """
    owner: dict[int, int] = {}
    outputs: list[str] = []
    said: list[list[Message]] = []
    for message in trace.messages:
        if message.role == "user":
            outputs.append("")
            said.append([])
        if not outputs:
            continue  # a system prompt before the first question belongs to no turn
        said[-1].append(message)
        if message.role == "assistant":
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
    return [Segment(tuple(s), o, tuple(m))
            for s, o, m in zip(found, outputs, said, strict=True)]


_NO_TURNS = "no turns in the test case"


@register_metric
class TurnExpectations(Metric):
    """The share of the test case's ``turns`` entries whose every expectation holds.

    Each entry ``{"user": k, ...}`` is judged on the segment after the k-th user message up to
    the next: its ``expected_tool_calls`` (tool selection and, with arguments, argument
    correctness), ``trajectory``, ``expected_output_contains`` (against the segment's last
    assistant text) and ``max_steps``, each by the metric of the same name on the segment, and
    its ``checks``, each check on the segment as if it were the whole trace. An entry holds
    when every expectation that applies passes; an entry whose expectations are all n.a. on
    its segment judged nothing and is n.a.: it counts neither way.
    Score: entries that hold over entries judged.

    Passes when every judged entry holds (pass line 1.0). Fails otherwise; details name the
    first failing turn and the expectation or check that failed (a ``k`` beyond the
    conversation fails its entry: "the conversation has 2 user turns"), and the result's data
    holds each turn's sub-results (docs/semantics.md#per-turn-expectations). Not applicable
    when the test case has no ``turns``, or when no entry judged anything. A trace without
    user messages, or whose calls carry no model turn, is an error: its turns cannot be told
    apart; so is a turn's check that cannot judge its segment.
    """

    name = "turn_expectations"
    default_threshold = 1.0

    def not_applicable_to(self, test_case: EvalTestCase) -> Measurement | None:
        """Return "not applicable" when the test case has no ``turns``."""
        return None if test_case.turns else not_applicable(_NO_TURNS)

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return the share of judged turn entries that hold."""
        if not test_case.turns:
            return not_applicable(_NO_TURNS)
        check_turns(test_case.turns)
        parts = segments(trace)
        held = judged = 0
        first: str | None = None
        records: list[dict[str, Any]] = []
        for n, entry in enumerate(test_case.turns):
            ok, why, results = _judge(n, entry, parts, trace, test_case.task_id)
            record: dict[str, Any] = {"user": entry["user"], "passed": ok, "results": results}
            if why:
                record["why"] = why[:MAX_SUB_DETAILS]
            records.append(record)
            if ok is None:
                continue
            judged += 1
            held += ok
            if not ok and first is None:
                first = f"turns[{n}] (user turn {entry['user']}): {why}"
        total = len(test_case.turns)
        data: dict[str, Any] = {"turns": records[:MAX_TURN_RECORDS]}
        if total > MAX_TURN_RECORDS:
            data["turns_cut"] = {"turns": total, "kept": MAX_TURN_RECORDS}
        if not judged:
            return not_applicable(
                "no turn entry judged anything: every expectation of "
                + ("the entry" if total == 1 else f"the {total} entries")
                + " is n.a. on its segment")
        head = f"turn expectations held: {held}/{judged}"
        if judged < total:
            head += f" ({total - judged} n.a.)"
        if held == judged:
            return Measurement(1.0, head, data=data)
        return Measurement(held / judged, join_bounded([head, first or ""]), data=data)


def _judge(
    n: int, entry: Mapping[str, Any], parts: Sequence[Segment], trace: AgentTrace,
    task_id: str,
) -> tuple[bool | None, str, list[dict[str, Any]]]:
    """Return whether entry ``n`` holds (None: it judged nothing), why not, and its
    sub-results in judging order: the metrics, then the checks."""
    from openeval.metrics.registry import metric_class

    k = entry["user"]
    if k > len(parts):
        return False, f"the conversation has {plural(len(parts), 'user turn')}", []
    segment = parts[k - 1]
    opening = segment.messages[0].content if segment.messages else ""
    sub_trace = AgentTrace(task_id=task_id, input=opening, steps=list(segment.steps),
                           final_output=segment.output, messages=list(segment.messages),
                           signals=trace.signals, tool_definitions=trace.tool_definitions)
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
                        "details": result.details[:MAX_SUB_DETAILS]})
        if result.passed is False and not why:
            why = f"{name}: {result.details}"
    for i, check in enumerate(entry.get("checks", [])):
        label, passed, details = _run_check(check, sub_trace, sub_case,
                                            where=f"turns[{n}].checks[{i}]")
        if passed is None:
            continue
        results.append({"check": label, "passed": passed,
                        "details": details[:MAX_SUB_DETAILS]})
        if passed is False and not why:
            why = f"checks[{i}] ({label}): {details}" if details else f"checks[{i}] ({label})"
    if not results:
        return None, "nothing to judge: every expectation is n.a. on this segment", []
    return not why, why, results


def _run_check(
    entry: Mapping[str, Any], trace: AgentTrace, test_case: EvalTestCase, *, where: str,
) -> tuple[str, bool | None, str]:
    """Return the name, verdict (None: n.a.) and details of a built-in check on a segment.

    Raises OpenEvalError naming ``where`` when the entry is malformed or the check cannot
    judge the segment: an error, never a pass or a quiet n.a.
    """
    from openeval.checks._context import CheckContext
    from openeval.checks.registry import compile_settings, get

    kind = str(entry["check"])
    label = str(entry.get("name", kind))
    settings = {key: value for key, value in entry.items() if key not in CHECK_ENTRY_KEYS}
    arguments = compile_settings(kind, settings, location=where)
    context = CheckContext(trace=trace, test_case=test_case, params=dict(settings))
    try:
        returned = get(kind)(context, **arguments)
    except OpenEvalError as exc:
        raise OpenEvalError(f"{where} ({label}): {exc}") from None
    scores = [returned] if isinstance(returned, Score) else returned
    if not isinstance(scores, list) or not all(isinstance(s, Score) for s in scores):
        raise OpenEvalError(f"{where} ({label}): the check returned "
                            f"{type(returned).__name__}, expected Scores")
    found = verdict(scores, entry.get("threshold"))
    details = "; ".join(s.comment for s in scores if s.comment)
    return label, None if found == "n.a." else found == "pass", details
