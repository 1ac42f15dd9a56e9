"""Helpers the metrics share: reading expected calls, and writing bounded one-line details."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter
from typing import Any, NamedTuple

from openeval.errors import TestCaseError
from openeval.models import AgentTrace, EvalTestCase, TraceStep
from openeval.values import MISSING, short_json, short_pair

DETAILS_LIMIT = 300
"""Longest details line a metric writes; longer lists end in ``+N more``."""


class ExpectedCall(NamedTuple):
    """One entry of ``expected_tool_calls``, checked: a tool name and its (maybe empty) args."""

    tool: str
    args: Mapping[str, Any]
    position: int
    """Position in ``expected_tool_calls``, for messages."""


def expected_calls(test_case: EvalTestCase) -> list[ExpectedCall]:
    """Return the test case's expected calls, checked.

    Raises TestCaseError naming the JSON path when an entry is not ``{"tool": str, "args": {}}``
    (a test case built in Python skips the file schema, so the check is repeated here).
    """
    calls: list[ExpectedCall] = []
    for index, entry in enumerate(test_case.expected_tool_calls):
        where = f"expected_tool_calls[{index}]"
        # type() first: the Mapping ABC check is slow, and nearly every entry is a dict.
        if type(entry) is not dict and not isinstance(entry, Mapping):
            raise TestCaseError("expected an object {\"tool\": ..., \"args\": {...}}",
                                location=where)
        tool = entry.get("tool")
        if not isinstance(tool, str) or not tool:
            raise TestCaseError("expected a non-empty tool name", location=f"{where}.tool")
        args = entry.get("args")
        if args is None:
            args = {}
        elif type(args) is not dict and not isinstance(args, Mapping):
            raise TestCaseError("expected a JSON object of arguments", location=f"{where}.args")
        calls.append(ExpectedCall(tool, args, index))
    return calls


step_type = attrgetter("type")
step_denied = attrgetter("denied")
step_divergent = attrgetter("divergent")
"""Step fields read by ``map`` (a loop in C): the metrics walk every step of every trace."""


def count_tool_calls(steps: Sequence[TraceStep]) -> int:
    """Return how many of ``steps`` are tool calls (denied ones included)."""
    return list(map(step_type, steps)).count("tool_call")


def counted(names: Mapping[str, int]) -> str:
    """Return ``a, b x2, c``: the names of a multiset in sorted order, counts above one shown."""
    return ", ".join(name if n == 1 else f"{name} x{n}" for name, n in sorted(names.items()))


def join_bounded(parts: Iterable[str], limit: int = DETAILS_LIMIT, sep: str = "; ") -> str:
    """Return ``parts`` joined by ``sep``, cut after whole parts to stay near ``limit`` chars.

    Parts left out are counted in a final ``+N more``; the first part is always kept.
    """
    items = list(parts)
    out: list[str] = []
    size = 0
    for i, part in enumerate(items):
        extra = len(part) + (len(sep) if out else 0)
        if out and size + extra > limit:
            out.append(f"+{len(items) - i} more")
            break
        out.append(part)
        size += extra
    return sep.join(out)


def plural(count: int, noun: str) -> str:
    """Return ``1 tool call`` or ``3 tool calls``: the count with the noun in agreement."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def ratio(found: int, total: int) -> float:
    """Return ``found / total`` as a float; 1.0 when ``total`` is zero."""
    return found / total if total else 1.0


def describe_difference(path: str, expected: Any, actual: Any) -> str:
    """Return ``path: expected X, got Y``, or ``path: missing`` / ``path: unexpected Y``."""
    if actual is MISSING:
        return f"{path}: missing"
    if expected is MISSING:
        return f"{path}: unexpected {short_json(actual)}"
    want, got = short_pair(expected, actual)
    return f"{path}: expected {want}, got {got}"


NOT_RECORDED_KEY = "not_recorded"
"""Trace metadata an adapter fills when its source recorded the run without something a metric
judges: ``{"tool_calls": "why, and how to record them"}`` (an OTel trace without message
content and without ``execute_tool`` spans)."""

NO_STATE_NOTE = (
    "the trace holds no final state (message lists, span exports and Fixtura recordings "
    "record none): wrap the trace file as {\"actual_state\": {...}, <its payload key>: ...} "
    "or pass actual_state= to its from_* reader"
)
"""Why an expected final state found nothing, said when the trace's state is empty."""


def unrecorded_calls(trace: AgentTrace) -> str | None:
    """Return why ``trace`` shows no tool call although its agent may have made some (its
    adapter's ``not_recorded`` note ``tool_calls``), or why its calls show no arguments (the
    note ``tool_args``: content capture was off), or None when it says nothing of the kind."""
    notes = trace.metadata.get(NOT_RECORDED_KEY)
    if not isinstance(notes, Mapping):
        return None
    calls = [step for step in trace.steps if step.type == "tool_call"]
    if not calls:
        note = notes.get("tool_calls")
    elif any(step.tool_args is None for step in calls):
        note = notes.get("tool_args")
    else:
        return None
    return note if isinstance(note, str) and note else None


def with_unrecorded_note(details: str, score: float, trace: AgentTrace) -> str:
    """Return ``details`` of a call metric, followed by :func:`unrecorded_calls`'s note when
    the score fell short and the trace could not show the calls: "not called" alone would
    send a reader looking for a bug in the agent instead of in the recording."""
    if score >= 1.0:
        return details
    note = unrecorded_calls(trace)
    return details if note is None else f"{details}; {note}"
