"""The agent's steps as the agent and trace checks read them (proposals/0041).

A trace check takes a :class:`CheckContext`, an :class:`AgentTrace`, a list of
:class:`TraceStep` or a list of span dicts. :func:`read_trace` turns each into a
:class:`TraceView`: the steps when the input has them (our model, with denials, turns and
timestamps), else the span dicts as given. :func:`tool_calls` gives the tool calls of either,
in one shape, so a check is written once.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from operator import attrgetter, itemgetter
from typing import Any

import orjson

from openeval.checks._context import CheckContext, as_context
from openeval.errors import TestCaseError
from openeval.jsonio import loads_exact
from openeval.models import AgentTrace, TraceStep, run_duration

CheckInput = str | AgentTrace | CheckContext
"""What a check of a reply or a conversation accepts as its first argument."""

TraceInput = CheckContext | AgentTrace | str | Sequence[TraceStep] | Sequence[Mapping[str, Any]]
"""What a trace check accepts as its first argument."""

DURATION_KEYS = ("duration_ms", "latency_ms", "elapsed_ms")
"""Metadata attributes read as the run's duration when its steps carry none."""

_CANONICAL_DEPTH = 64
"""Nesting below which tool inputs are compared as one opaque value (hostile input)."""


class TraceView:
    """A trace check's input, read: a context built on the steps, or span dicts as given.

    Read-only by convention; a plain class with slots, as :class:`Call`, because every trace
    check of every trace builds one.
    """

    __slots__ = ("context", "given_spans", "of_context", "steps")

    context: CheckContext
    """The context; for span dicts, an empty trace (its metadata is empty)."""
    steps: list[TraceStep] | None
    """The steps, when the input was a trace, a context or a list of steps."""
    given_spans: list[Mapping[str, Any]] | None
    """The span dicts, when the input was a list of them."""
    of_context: bool
    """The steps are the context's trace's steps (so what is derived from them may be shared
    through the context's memo)."""

    def __init__(self, context: CheckContext, steps: list[TraceStep] | None,
                 given_spans: list[Mapping[str, Any]] | None = None, *,
                 of_context: bool = False) -> None:
        self.context = context
        self.steps = steps
        self.given_spans = given_spans
        self.of_context = of_context

    @property
    def spans(self) -> list[Mapping[str, Any]]:
        """The spans: as given, else the context's view of the steps."""
        if self.given_spans is not None:
            return self.given_spans
        return list(self.context.spans)


class Call:
    """One tool call, from a ``tool_call`` step or a span of kind ``tool``. Read-only by
    convention: a trace's calls are built once and shared by its checks (see :func:`tool_calls`).

    A plain class with slots, not a frozen dataclass: a trace of ten calls builds ten of these
    for every trace scored, and a frozen dataclass costs five times as much to build.
    """

    __slots__ = ("_key", "args", "args_problem", "denied", "failed", "name", "position")

    position: int
    """The step's ``step_id``, or the span's 1-based position, for messages."""
    name: str
    """The tool's name; "" when the call has none."""
    args: Any
    """The arguments: a dict when they are a JSON object, else what the source held."""
    args_problem: str | None
    """Why the arguments are not a JSON object; None when they are."""
    failed: bool
    """The call ran and its tool reported an error."""
    denied: bool
    """The call never ran (a denial, a validation error)."""

    def __init__(self, position: int, name: str, args: Any, args_problem: str | None,
                 failed: bool, denied: bool) -> None:
        self.position = position
        self.name = name
        self.args = args
        self.args_problem = args_problem
        self.failed = failed
        self.denied = denied
        self._key: str | None = None

    @property
    def key(self) -> str:
        """The call as one comparable text: its name and canonical arguments (made once)."""
        key = self._key
        if key is None:
            key = self._key = call_key(self.name, self.args)
        return key

    def __repr__(self) -> str:
        return (f"Call(position={self.position!r}, name={self.name!r}, args={self.args!r}, "
                f"args_problem={self.args_problem!r}, failed={self.failed!r}, "
                f"denied={self.denied!r})")


def read_context(value: Any, check: str) -> CheckContext:
    """Return a text, trace or context as a context; raise TestCaseError naming ``check``."""
    if isinstance(value, (CheckContext, AgentTrace, str)):
        return as_context(value)
    raise TestCaseError(
        f"{check}: got {type(value).__name__}; expected a text, an AgentTrace or a CheckContext"
    )


def read_trace(value: Any, check: str) -> TraceView:
    """Return ``value`` read as a trace; raise TestCaseError naming ``check`` when it is not one."""
    if type(value) is CheckContext:  # what the scorer passes: as_context would return it
        return TraceView(value, list(value.trace.steps), None, of_context=True)
    if isinstance(value, (CheckContext, AgentTrace, str)):
        context = as_context(value)
        return TraceView(context, list(context.steps), of_context=True)
    if isinstance(value, (list, tuple)):
        if all(isinstance(item, TraceStep) for item in value):
            steps = list(value)
            return TraceView(as_context(AgentTrace(task_id="", steps=steps)), steps)
        if all(isinstance(item, Mapping) for item in value):
            return TraceView(as_context(""), None, list(value))
        odd = next((i for i, v in enumerate(value) if not isinstance(v, (TraceStep, Mapping))),
                   None)
        what = "a mix of steps and span dicts" if odd is None else (
            f"item {odd} is {type(value[odd]).__name__}")
        raise TestCaseError(
            f"{check}: expected a list of TraceStep or a list of span dicts; {what}"
        )
    raise TestCaseError(
        f"{check}: got {type(value).__name__}; expected a CheckContext, an AgentTrace, a text, "
        "a list of TraceStep or a list of span dicts"
    )


def tool_calls(view: TraceView) -> list[Call]:
    """Return the tool calls of a trace, in order.

    From steps: every ``tool_call`` step (an unpaired ``tool_result`` is not a call). From span
    dicts: every span of kind ``tool``, named by ``tool_name``, else ``name``, with ``input`` as
    its arguments (JSON text is parsed).
    """
    steps = view.steps
    if steps is not None:
        if view.of_context:
            # Several checks read the calls of one trace: built once, keys computed once.
            context = view.context
            return list(context.memo.get(context.trace, "tool_calls",
                                         lambda: _step_calls(steps)))
        return _step_calls(steps)
    calls = []
    for index, span in enumerate(view.spans, 1):
        if span.get("kind") == "tool":
            calls.append(_span_call(index, span))
    return calls


def _step_calls(steps: Sequence[TraceStep]) -> list[Call]:
    calls: list[Call] = []
    for step in steps:
        if step.type != "tool_call":
            continue
        args = step.tool_args
        if type(args) is dict and not step.error and not step.denied:
            # The usual call, as _step_call makes it without a call of its own: arguments
            # that are an object, no error, not denied (proposals/0301-score-read-and-rows.md).
            name = step.tool_name
            calls.append(Call(step.step_id, name if isinstance(name, str) else "", args, None,
                              False, False))
        else:
            calls.append(_step_call(step))
    return calls


def _step_call(step: TraceStep) -> Call:
    args: Any = step.tool_args
    problem = None
    if args is None:
        # Adapters keep arguments that are not a JSON object as raw text in `content` and say
        # why in `error` (adapters/tool_args.py); None with neither is a call with no arguments.
        if step.content or step.error:
            problem = step.error or "arguments are not a JSON object"
            args = step.content
        else:
            args = {}
    elif not isinstance(args, dict):
        problem = "arguments are not a JSON object"
    failed = bool(step.error) and not step.denied and problem is None
    name = step.tool_name if isinstance(step.tool_name, str) else ""
    return Call(step.step_id, name, args, problem, failed, bool(step.denied))


def _span_call(position: int, span: Mapping[str, Any]) -> Call:
    name = span.get("tool_name") or span.get("name") or ""
    if not isinstance(name, str):
        name = ""
    raw = span.get("input")
    args: Any = raw
    problem = None
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        args = {}
    elif isinstance(raw, str):
        try:
            args = loads_exact(raw)
        except orjson.JSONDecodeError:
            args = raw
            problem = "arguments are not JSON"
        else:
            if not isinstance(args, dict):
                problem = "arguments are not a JSON object"
    elif not isinstance(raw, Mapping):
        problem = "arguments are not a JSON object"
    return Call(position, name, args, problem, span_failed(span), False)


def repeats(view: TraceView, *, in_a_row: bool) -> tuple[int, Call | None]:
    """Return :func:`most_repeated` of the tool calls of ``view``: counted once per trace
    (and kind of count) when the view is a context's, since ``tool_call_validity`` and
    ``repeated_tool_calls`` count the same calls the same way."""
    if view.of_context and view.steps is not None:
        context = view.context
        return context.memo.get(
            context.trace, "most_repeated_in_a_row" if in_a_row else "most_repeated",
            lambda: most_repeated(tool_calls(view), in_a_row=in_a_row))
    return most_repeated(tool_calls(view), in_a_row=in_a_row)


def most_repeated(calls: Sequence[Call], *, in_a_row: bool) -> tuple[int, Call | None]:
    """Return the most times one call was made, and (the first instance of) that call.

    Two calls are the same when :attr:`Call.key` is equal. A call made right after the same
    call failed or was denied is a retry and does not count, once per call: the first retry
    is excused, later ones count (an agent hammering a broken tool still loops).
    ``in_a_row`` counts only back-to-back calls. Ties go to the call made first.
    """
    # Two scans of an attribute in C, not a generator over the calls: once per trace.
    if not in_a_row and not any(map(_FAILED, calls)) and not any(map(_DENIED, calls)):
        return _most_common(calls)
    return _walk(calls, in_a_row=in_a_row)


_FAILED = attrgetter("failed")
_DENIED = attrgetter("denied")


def _walk(calls: Sequence[Call], *, in_a_row: bool) -> tuple[int, Call | None]:
    """:func:`most_repeated` for any calls: one walk, excusing retries as it goes."""
    counts: dict[str, int] = {}
    first: dict[str, Call] = {}
    # key -> (the last such call failed, a retry of it was excused already)
    last: dict[str, tuple[bool, bool]] = {}
    best, best_key = 0, None
    previous: str | None = None
    for call in calls:
        key = call.key
        if in_a_row and key != previous:
            counts[key] = 0
            last.pop(key, None)
        before = last.get(key)
        retry = before is not None and before[0] and not before[1]
        if not retry:
            counts[key] = counts.get(key, 0) + 1
        first.setdefault(key, call)
        last[key] = (call.failed or call.denied, retry or (before is not None and before[1]))
        if in_a_row and counts[key] > best:
            best, best_key = counts[key], key
        previous = key
    if not in_a_row:
        for key, count in counts.items():  # first-seen order: the earlier call wins a tie
            if count > best:
                best, best_key = count, key
    return best, (first[best_key] if best_key is not None else None)


def _most_common(calls: Sequence[Call]) -> tuple[int, Call | None]:
    """:func:`most_repeated` of calls none of which failed or was denied, counted all
    together: with no retry to excuse, the count of a call is the number of its key, and the
    first of equal counts in first-seen order wins (``max`` keeps the first), as in the
    general walk."""
    if not calls:
        return 0, None
    keys: list[str] = []
    for call in calls:  # Call.key without the property's call: this runs once per trace
        key = call._key
        if key is None:
            key = call._key = call_key(call.name, call.args)
        keys.append(key)
    if len(set(keys)) == len(keys):
        return 1, calls[0]
    best_key, best = max(Counter(keys).items(), key=itemgetter(1))
    return best, calls[keys.index(best_key)]


def span_failed(span: Mapping[str, Any]) -> bool:
    """Return whether a span failed: its ``error`` is set, or its ``status`` reads as an error."""
    error = span.get("error")
    if error is not None and error is not False and error != "" and error != {}:
        return True
    status = span.get("status")
    if isinstance(status, Mapping):
        status = status.get("code", status.get("status_code"))
    return isinstance(status, str) and status.strip().lower() in (
        "error", "status_code_error", "failed", "failure")


def step_failure(step: TraceStep) -> str | None:
    """Return why a step failed (its error, or that it was denied), or None when it did not.

    A denied call and a call whose tool reported an error both count
    (docs/semantics.md#no-vacuous-passes): neither achieved its effect.
    """
    if step.denied:
        return f"denied: {step.error}" if step.error else "denied"
    if step.error:
        return step.error
    return None


def call_key(name: str, args: Any) -> str:
    """Return a call as one text, so equal calls (JSON equality: 1 == 1.0) have equal keys."""
    if type(args) is dict:
        # Most arguments are written as they are: one dump, then a look at its text, instead
        # of a walk in Python. Only a text free of what the general form rewrites (a whole
        # float: ".0" or "e+"; NaN and infinity: "null"; nesting past the depth cap) is taken.
        # The look is at the decoded text: a search in a str is several times quicker than
        # in bytes, and these ASCII marks are in one exactly when they are in the other.
        try:
            text = orjson.dumps(args, option=orjson.OPT_SORT_KEYS).decode()
        except TypeError:  # a non-str key, an int past 64 bits: the general form decides
            pass
        else:
            if (".0" not in text and "e+" not in text and "null" not in text
                    and (len(text) <= _CANONICAL_DEPTH  # too short to nest past the cap
                         or text.count("{") + text.count("[") <= _CANONICAL_DEPTH)):
                return f"{name}\x00{text}"
    return general_call_key(name, args)


def general_call_key(name: str, args: Any) -> str:
    """:func:`call_key` for any arguments: JSON-equal values rewritten to one form first."""
    try:
        canonical = orjson.dumps(
            args if _plain(args, 0) else _canonical(args, 0),
            option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS,
        ).decode()
    except (TypeError, orjson.JSONEncodeError):
        canonical = "<unserialisable>"
    return f"{name}\x00{canonical}"


def _plain(value: Any, depth: int) -> bool:
    """True when :func:`_canonical` would give ``value`` back as it is (JSON-native types
    only: no float, no int past 64 bits, no tuple, no subclass, no key but a str, not too
    deep), so it is written as it is, without the copy."""
    if depth > _CANONICAL_DEPTH:
        return False
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return True
    if kind is int:
        return bool(-(2**63) <= value < 2**64)
    if kind is dict:
        return all(type(k) is str and _plain(v, depth + 1) for k, v in value.items())
    if kind is list:
        return all(_plain(v, depth + 1) for v in value)
    return False


def _canonical(value: Any, depth: int) -> Any:
    if depth > _CANONICAL_DEPTH:
        return "<nested too deeply>"
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 2**63:
            return int(value)
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**64 else f"int:{value}"
    if isinstance(value, Mapping):
        return {str(k): _canonical(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(v, depth + 1) for v in value]
    return repr(value)[:200]


def number(value: Any) -> float | None:
    """Return ``value`` as a finite float when it is a number (a bool is not), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    result = float(value)
    return result if math.isfinite(result) else None


def run_duration_ms(steps: Sequence[TraceStep]) -> tuple[float, str] | None:
    """Return ``(milliseconds, how it was measured)`` for a run, or None when unknown.

    The rule of :func:`openeval.models.run_duration`, which every duration limit shares; it
    raises OpenEvalError naming a step whose timestamp or ``latency_ms`` is not a duration.
    """
    found = run_duration(list(steps))
    if found is None:
        return None
    how = "step timestamps" if found.source == "timestamps" else "sum of latency_ms"
    return found.milliseconds, how


def finite_total(values: Iterable[float | None]) -> float | None:
    """Return the sum of the non-negative numbers among ``values``; None when there are none.

    A sum too large for a float (hostile input) is None too: no figure rather than infinity.
    """
    kept = [v for v in values if v is not None and v >= 0]
    if not kept:
        return None
    total = math.fsum(kept)
    return total if math.isfinite(total) else None


def spans_duration_ms(spans: Sequence[Mapping[str, Any]]) -> tuple[float, str] | None:
    """Return ``(milliseconds, how)`` for span dicts (docs/semantics.md#span-dicts), or None when
    unknown.

    The longest ``agent`` span when there is one, else the sum of every span's
    ``duration_ms`` (spans can overlap, so the sum is an upper bound).
    """
    agents = [v for v in (number(s.get("duration_ms")) for s in spans
                          if s.get("kind") == "agent") if v is not None and v >= 0]
    if agents:
        return max(agents), "longest agent span"
    total = finite_total(number(s.get("duration_ms")) for s in spans)
    if total is not None:
        return total, "sum of span duration_ms, an upper bound"
    return None
