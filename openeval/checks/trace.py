"""Checks of the agent's trace as a whole: how many steps, which failed, loops, duration.

Each takes a :class:`~openeval.checks.CheckContext`, an :class:`~openeval.models.AgentTrace`,
a list of :class:`~openeval.models.TraceStep` or a list of span dicts. Steps are read as our
model has them (denials, turns, timestamps); span dicts as the reference's span shape (name, kind,
tool_name, input, output, duration_ms, error, status). How each check maps spans to steps is
in proposals/0041-check-library-agent-and-safety.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

from openeval.checks import _settings, text, util
from openeval.checks._steps import (
    DURATION_KEYS,
    TraceInput,
    number,
    read_trace,
    repeats,
    run_duration_ms,
    span_failed,
    spans_duration_ms,
    step_failure,
)
from openeval.scores import Scores

SpanKind = Literal["llm", "tool", "agent", "span"]
"""A kind of step ``span_count`` can count."""
SPAN_KINDS: tuple[str, ...] = get_args(SpanKind)
"""The kinds a span can have; our steps map thought -> llm, tool steps -> tool, output -> span."""

_NAMED_LIMIT = 5
"""Most failed steps or repeated calls a comment names."""


@util.declares("span_count", "within_span_limit")
def span_count(
    ctx: TraceInput, *, kind: SpanKind | None = None, max_spans: int | None = None,
    name: str = "span_count",
) -> Scores:
    """Count the agent's steps, optionally of one kind, and check them against a limit.

    On a trace every step is one span: a thought is ``llm``, a tool call or unpaired tool
    result is ``tool``, an output is ``span`` (there are no ``agent`` steps in our model). A
    text or a trace with no steps counts 0.

    Args:
        ctx: A context, a trace, a list of steps or a list of span dicts.
        kind: Count only spans of this kind: ``llm``, ``tool``, ``agent`` or ``span``. None:
            every span.
        max_spans: Most spans allowed. None: not checked.
        name: Name of the primary score.

    Returns:
        span_count (NUMERIC, lower is better): the count.
        within_span_limit (BOOLEAN): the count is at most ``max_spans``; only when it is set,
            so without a limit the check is a measurement with no verdict.
    """
    check = "span_count"
    wanted = None if kind is None else _settings.choice(kind, "", SPAN_KINDS, check, "kind")
    limit = None if max_spans is None else _settings.integer(max_spans, 0, check, "max_spans")
    primary = _settings.score_name(name, check, check)
    spans = read_trace(ctx, check).spans
    count = len(spans) if wanted is None else sum(1 for s in spans if s.get("kind") == wanted)
    what = "span" if wanted is None else f"{wanted} span"
    counted = f"{count} {what}{'' if count == 1 else 's'}"
    scores = Scores([util.numeric_score(primary, count, counted, higher_is_better=False)])
    if limit is not None:
        within = count <= limit
        scores.append(util.boolean_score(
            "within_span_limit", within, f"{counted} {'<=' if within else '>'} {limit}"))
    return scores


@util.declares("no_errors", "error_count")
def error_spans(ctx: TraceInput, *, max_errors: int = 0, name: str = "no_errors") -> Scores:
    """Count the agent's steps that failed, and pass while there are at most ``max_errors``.

    A step failed when its tool reported an error or the call was denied
    (docs/semantics.md#no-vacuous-passes: neither achieved its effect). A span dict failed when its
    ``error`` is set or its ``status`` is ``error``. The comment names the first failures.

    Args:
        ctx: A context, a trace, a list of steps or a list of span dicts.
        max_errors: Most failed steps allowed.
        name: Name of the primary score.

    Returns:
        no_errors (BOOLEAN): at most ``max_errors`` steps failed.
        error_count (NUMERIC, lower is better): failed steps.
    """
    check = "error_spans"
    limit = _settings.integer(max_errors, 0, check, "max_errors")
    primary = _settings.score_name(name, "no_errors", check)
    view = read_trace(ctx, check)
    failures: list[str] = []
    if view.steps is not None:
        for step in view.steps:
            why = step_failure(step)
            if why is not None:
                label = f" {step.tool_name}" if step.tool_name else ""
                failures.append(f"step {step.step_id}{label}: {_short(why)}")
    else:
        for position, span in enumerate(view.spans, 1):
            if span_failed(span):
                called = span.get("tool_name") or span.get("name")
                shown = f" {_short(called)}" if isinstance(called, str) and called else ""
                failures.append(f"span {position}{shown}: {_short(_describe_error(span))}")
    count = len(failures)
    ok = count <= limit
    if count:
        named = util.join_problems(failures, _NAMED_LIMIT)
        comment = f"{count} failed (at most {limit} allowed): {named}"
    else:
        comment = "no step failed"
    return Scores([
        util.boolean_score(primary, ok, comment),
        util.numeric_score("error_count", count, f"{count} failed", higher_is_better=False),
    ])


@_settings.read_once
def _repeat_settings(
    max_repeats: Any, consecutive_only: Any, name: Any
) -> tuple[int, bool, str]:
    check = "repeated_tool_calls"
    limit = _settings.integer(max_repeats, 2, check, "max_repeats", minimum=1)
    in_a_row = _settings.boolean(consecutive_only, False, check, "consecutive_only")
    return limit, in_a_row, _settings.score_name(name, "tool_loop", check)


@util.declares("tool_loop", "most_repeated")
def repeated_tool_calls(
    ctx: TraceInput, *, max_repeats: int = 2, consecutive_only: bool = False,
    name: str = "tool_loop",
) -> Scores:
    """Detect the agent making the same tool call, with the same input, again and again.

    Two calls are the same when their tool names are equal and their arguments are equal JSON
    values (``1`` equals ``1.0``). Denied and failed calls count: the agent made them; but a
    call made again right after the same call failed or was denied is a retry, not a repeat
    (once per call: later retries count). A trace with no tool calls has nothing to judge:
    n.a.

    Args:
        ctx: A context, a trace, a list of steps or a list of span dicts.
        max_repeats: The most times the same call may be made; one more is a loop (at
            least 1).
        consecutive_only: Count only calls repeated back to back.
        name: Name of the primary score.

    Returns:
        tool_loop (BOOLEAN, lower is better): some call was made more than ``max_repeats``
            times; ``n.a.`` (no other score) when there are no tool calls.
        most_repeated (NUMERIC, lower is better): the most times one call was made (in a row,
            with ``consecutive_only``).
    """
    check = "repeated_tool_calls"
    limit, in_a_row, primary = _repeat_settings(max_repeats, consecutive_only, name)
    most, call = repeats(read_trace(ctx, check), in_a_row=in_a_row)
    if call is None:
        return Scores([util.not_judged(primary, "no tool calls")])
    loop = most > limit
    how = " in a row" if in_a_row else ""
    shown = call.name or "(unnamed tool)"
    comment = (f"{shown} made {most} times{how} with the same input "
               f"({'a loop' if loop else 'within'}: at most {limit} allowed)")
    return Scores([
        util.boolean_score(primary, loop, comment, higher_is_better=False),
        util.numeric_score("most_repeated", most, comment, higher_is_better=False),
    ])


@util.declares("total_duration_ms", "within_duration")
def total_duration(
    ctx: TraceInput, *, max_duration_ms: float | None = None, name: str = "total_duration_ms"
) -> Scores:
    """Measure how long the agent ran, and check it against a limit.

    On steps, the rule of the ``step_budget`` metric: the span from the earliest to the latest
    step timestamp when two steps carry distinct ones, else the sum of the steps'
    ``latency_ms``. On span dicts, the rule of docs/semantics.md#span-dicts: the longest ``agent``
    span when there is one, else the sum of every span's ``duration_ms`` (spans can overlap, so the
    sum is an upper bound). With neither, the trace's ``duration_ms`` metadata attribute.

    A duration that cannot be known has nothing to judge: n.a., with no figure (never 0, which
    a threshold would pass) and ``within_duration`` left out, the comment saying the limit was
    not checked (proposals/0102-no-vacuous-passes.md). A step timestamp or ``latency_ms`` that
    is not a duration is an error naming the step.

    Args:
        ctx: A context, a trace, a list of steps or a list of span dicts.
        max_duration_ms: Longest time allowed, in milliseconds. None: not checked.
        name: Name of the primary score.

    Returns:
        total_duration_ms (NUMERIC, lower is better): the duration; ``n.a.`` when unknown.
        within_duration (BOOLEAN): at most ``max_duration_ms``; only when it is set and the
            duration is known.
    """
    check = "total_duration"
    limit = _settings.optional_number(max_duration_ms, check, "max_duration_ms")
    primary = _settings.score_name(name, "total_duration_ms", check)
    view = read_trace(ctx, check)
    measured = (run_duration_ms(view.steps) if view.steps is not None
                else spans_duration_ms(view.spans))
    if measured is None:
        found = number(text.metadata_number(view.context, *DURATION_KEYS))
        if found is not None and found >= 0:
            measured = found, "the trace's duration_ms attribute"
    if measured is None:
        comment = "duration unknown: no step timestamps, latency_ms or duration_ms"
        if limit is not None:
            comment += f"; max_duration_ms {limit:g} not checked"
        return Scores([util.not_judged(primary, comment)])
    duration, how = measured
    comment = f"{duration:g} ms ({how})"
    scores = Scores([util.numeric_score(primary, duration, comment, higher_is_better=False)])
    if limit is not None:
        within = duration <= limit
        scores.append(util.boolean_score(
            "within_duration", within, f"{comment} {'<=' if within else '>'} {limit:g} ms"))
    return scores


def _describe_error(span: Mapping[str, Any]) -> str:
    error = span.get("error")
    if isinstance(error, str) and error:
        return error
    if isinstance(error, Mapping):
        message = error.get("message") or error.get("type")
        if isinstance(message, str) and message:
            return message
    return "status error" if error in (None, False, "") else "error"


def _short(value: str, limit: int = 80) -> str:
    flat = " ".join(value.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
