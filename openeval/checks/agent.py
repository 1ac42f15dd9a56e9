"""Checks of the agent's tool calls and of its token and latency budget.

Tool calls are the trace's ``tool_call`` steps (our model pairs a call with its result, its
error and whether it was denied); a list of span dicts gives them as spans of kind ``tool``.
``tool_trajectory`` uses the same matching engine as the ``trajectory_match`` metric, so a
check and a metric never disagree on the same calls.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast, get_args

from openeval.checks import _settings, text, util
from openeval.checks._context import as_context
from openeval.checks._steps import (
    DURATION_KEYS,
    Call,
    TraceInput,
    TraceView,
    finite_total,
    number,
    read_trace,
    repeats,
    run_duration_ms,
    spans_duration_ms,
    tool_calls,
)
from openeval.models import AgentTrace, TraceStep
from openeval.scores import Scores

TrajectoryMode = Literal["strict", "in_order", "unordered", "subset", "superset"]
"""How ``tool_trajectory`` compares the calls with ``expected``."""
TRAJECTORY_MODES: tuple[str, ...] = get_args(TrajectoryMode)
"""How ``tool_trajectory`` compares: the reference's four modes and ``in_order``."""

_NAMED_LIMIT = 5

# Token counts: the keys our steps use first, then the names other sources give the same figure.
_OUTPUT_TOKEN_KEYS = ("output", "completion", "output_tokens", "completion_tokens")
_INPUT_TOKEN_KEYS = ("input", "prompt", "input_tokens", "prompt_tokens")
_OUTPUT_TOKEN_ATTRIBUTES = (
    "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens", "output_tokens",
    "completion_tokens", "llm.token_count.completion", "usage.output_tokens",
)
_INPUT_TOKEN_ATTRIBUTES = (
    "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens", "input_tokens",
    "prompt_tokens", "llm.token_count.prompt", "usage.input_tokens",
)
_TTFT_ATTRIBUTES = ("time_to_first_token_ms", "ttft_ms", "first_token_ms")


def _label(call: Call) -> str:
    return f"step {call.position} {call.name or '(no tool name)'}"


@_settings.read_once
def _validity_settings(
    allowed_tools: Any, required_args: Any, max_identical_calls: Any, name: Any
) -> tuple[frozenset[str], Mapping[str, tuple[str, ...]], int, str]:
    check = "tool_call_validity"
    allowed = frozenset(_settings.strings(allowed_tools, (), check, "allowed_tools"))
    required = _required_args(required_args, check)
    limit = _settings.integer(max_identical_calls, 2, check, "max_identical_calls", minimum=1)
    return allowed, required, limit, _settings.score_name(name, "tool_calls_valid", check)


@util.declares("tool_calls_valid", "tool_call_loop")
def tool_call_validity(
    ctx: TraceInput, *, allowed_tools: Sequence[str] = (),
    required_args: Mapping[str, Sequence[str]] | None = None, max_identical_calls: int = 2,
    name: str = "tool_calls_valid",
) -> Scores:
    """Check that every tool call is well formed and allowed, and that none is repeated.

    A call is well formed when it names a tool and its arguments are a JSON object (a source
    that could not parse them keeps the raw text, and this check fails on it); it is allowed
    when its tool is in ``allowed_tools`` (empty: any tool) and it carries the arguments
    ``required_args`` lists for its tool. Denied calls are checked too: the model still made
    them. A trace with no tool calls has nothing to judge: n.a. (``tool_calls_valid`` is
    ``n.a.``, no loop score). The same call made more than ``max_identical_calls`` times is a
    loop; a call repeated after the same call failed or was denied is a retry, not a repeat
    (once per call: later retries count).

    Args:
        ctx: A context, a trace, a list of steps or a list of span dicts.
        allowed_tools: Tool names allowed. Empty: any tool.
        required_args: ``{tool name: [argument names]}`` every call of that tool must carry.
        max_identical_calls: The most times the same call (name and equal arguments) may be
            made; one more is a loop (at least 1). Retries of a failed call do not count.
        name: Name of the primary score.

    Returns:
        tool_calls_valid (BOOLEAN): every call is well formed and allowed.
        tool_call_loop (BOOLEAN, lower is better): some call was made more than
            ``max_identical_calls`` times. Not returned when there are no calls.
    """
    check = "tool_call_validity"
    allowed, required, limit, primary = _validity_settings(
        allowed_tools, required_args, max_identical_calls, name)
    view = read_trace(ctx, check)
    calls = tool_calls(view)
    if not calls:
        return Scores([util.not_judged(primary, "no tool calls to check")])
    problems: list[str] = []
    for call in calls:
        if not call.name:
            problems.append(f"step {call.position}: the call names no tool")
        elif allowed and call.name not in allowed:
            problems.append(f"{_label(call)}: not in allowed_tools")
        if call.args_problem is not None:
            problems.append(f"{_label(call)}: {call.args_problem}")
        elif call.name in required:
            missing = [arg for arg in required[call.name] if arg not in call.args]
            if missing:
                problems.append(f"{_label(call)}: missing required {', '.join(missing)}")
    most, looping = repeats(view, in_a_row=False)
    loop = most > limit
    shown = looping.name if looping is not None else ""
    loop_comment = (f"{shown or '(no tool name)'} called {most} times with the same "
                    f"arguments ({'a loop' if loop else 'within'}: at most {limit} allowed)")
    valid_comment = (util.join_problems(problems, _NAMED_LIMIT) if problems
                     else f"{len(calls)} calls well formed and allowed")
    return Scores([
        util.boolean_score(primary, not problems, valid_comment),
        util.boolean_score("tool_call_loop", loop, loop_comment, higher_is_better=False),
    ])


def _required_args(value: Any, check: str) -> dict[str, tuple[str, ...]]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _settings.bad_setting(check, "required_args",
                                    "an object {tool name: [argument names]}", value)
    return {str(tool): _settings.strings(names, (), check, f"required_args.{tool}")
            for tool, names in value.items()}


def tools_used(ctx: TraceInput) -> list[str]:
    """Return the names of the tools the agent called, in order, denied calls included.

    Our traces hold every call as a step, so there is no second place to look (the reference's
    live span, whose output carried the calls, is a trace here). A call with no name gives "".

    Args:
        ctx: A context, a trace, a list of steps or a list of span dicts.

    Returns:
        A list of tool names.
    """
    return [call.name for call in tool_calls(read_trace(ctx, "tools_used"))]


@util.declares("trajectory_match", "tool_correctness")
def tool_trajectory(
    ctx: TraceInput | Sequence[str], *, expected: Sequence[str] = (),
    mode: TrajectoryMode = "strict",
    name: str = "trajectory_match",
) -> Scores:
    """Check the agent's tool calls against the tool names you expect.

    Calls compare by tool name, with the engine of the ``trajectory_match`` metric
    (docs/semantics.md#trajectory-matching): denied calls are left out, repeated names count, and
    calls made in one model turn have no order among themselves. ``tool_correctness`` is the share
    of expected calls that were made (as a multiset; denied and failed calls do not count, as in
    ``tool_selection_accuracy``), 1 when nothing is expected.

    Args:
        ctx: A context, a trace, a list of steps, a list of span dicts, or a list of tool
            names.
        expected: The tool names you expect, in order.
        mode: ``strict``: the same calls in the same order. ``in_order``: every expected call
            in order, others may come between. ``unordered``: the same calls in any order.
            ``subset``: every call is an expected one. ``superset``: every expected call
            happened, extra calls allowed.
        name: Name of the primary score.

    Returns:
        trajectory_match (BOOLEAN): the calls meet ``mode``.
        tool_correctness (NUMERIC, 0 to 1): the share of expected calls made.
    """
    check = "tool_trajectory"
    wanted = _settings.strings(expected, (), check, "expected")
    if not all(wanted):
        raise _settings.bad_setting(check, "expected", "non-empty tool names", "")
    how = _settings.choice(mode, "strict", TRAJECTORY_MODES, check, "mode")
    primary = _settings.score_name(name, "trajectory_match", check)
    steps = _trajectory_steps(ctx, check)
    # The metric's engine, imported here: the checks package must not load it up front.
    from openeval.matching.trajectory import TrajectoryMode, TrajectorySpec, match_trajectory

    spec = TrajectorySpec(mode=cast(TrajectoryMode, how), args="ignore")  # checked just above
    result = match_trajectory(steps, [{"tool": tool} for tool in wanted], spec)
    made = Counter(step.tool_name or "" for step in steps
                   if step.type == "tool_call" and not step.denied and not step.error)
    needed = Counter(wanted)
    found = sum(min(count, made[tool]) for tool, count in needed.items())
    share = found / len(wanted) if wanted else 1.0
    missing = needed - made
    if not wanted:
        correctness = "nothing expected"
    elif missing:
        correctness = (f"{found} of {len(wanted)} expected calls made; missing: "
                       f"{_counted(missing)}")
    else:
        correctness = f"all {len(wanted)} expected calls made"
    return Scores([
        util.boolean_score(primary, bool(result.matched), str(result.details)),
        util.numeric_score("tool_correctness", share, correctness),
    ])


def _trajectory_steps(ctx: Any, check: str) -> list[TraceStep]:
    """Return the steps to match: the trace's, or tool calls built from names or spans."""
    if isinstance(ctx, (list, tuple)) and ctx and all(isinstance(v, str) for v in ctx):
        return [TraceStep(step_id=i, type="tool_call", tool_name=tool)
                for i, tool in enumerate(ctx, 1)]
    view = read_trace(ctx, check)
    if view.steps is not None:
        return view.steps
    return [
        TraceStep(step_id=call.position, type="tool_call", tool_name=call.name,
                  tool_args=call.args if isinstance(call.args, dict) else None,
                  error="the span reported an error" if call.failed else None)
        for call in tool_calls(view)
    ]


def _counted(names: Counter[str]) -> str:
    return ", ".join(tool if n == 1 else f"{tool} x{n}" for tool, n in sorted(names.items()))


@util.declares("within_budget", "budget_used")
def token_latency_budget(
    ctx: TraceInput | Mapping[str, Any], *, max_output_tokens: int | None = 2000,
    max_input_tokens: int | None = None, max_duration_ms: float | None = 30000,
    max_time_to_first_token_ms: float | None = 5000, name: str = "within_budget",
) -> Scores:
    """Check that the run stays inside its token, duration and time-to-first-token limits.

    Token figures are the totals of the steps' ``tokens`` (``{"input": n, "output": n}``);
    when no step reports tokens, the trace's metadata attributes (``gen_ai.usage.*``,
    ``output_tokens`` ...). The duration follows ``total_duration``. Time to first token is
    read only from metadata (``time_to_first_token_ms``): our steps do not record it, so
    without that attribute it is not checked. A limit whose figure is not reported is not
    checked and the comment says so; a run that reports no figure for any set limit has
    nothing to judge: n.a., with no ``budget_used``.

    Args:
        ctx: A context, a trace, a list of steps, a list of span dicts, or a metadata dict.
        max_output_tokens: Most output tokens. None: not checked.
        max_input_tokens: Most input tokens. None: not checked.
        max_duration_ms: Longest run, in milliseconds. None: not checked.
        max_time_to_first_token_ms: Longest wait for the first token. None: not checked.
        name: Name of the primary score.

    Returns:
        within_budget (BOOLEAN): no limit was passed; ``n.a.`` when no limit could be
            checked.
        budget_used (NUMERIC, lower is better): the largest share of any checked limit; above
            1 is over. Not returned when no checked limit has a figure.
    """
    check = "token_latency_budget"
    limits = {
        "output tokens": _settings.optional_number(
            max_output_tokens, check, "max_output_tokens", above=True),
        "input tokens": _settings.optional_number(
            max_input_tokens, check, "max_input_tokens", above=True),
        "duration ms": _settings.optional_number(
            max_duration_ms, check, "max_duration_ms", above=True),
        "time to first token ms": _settings.optional_number(
            max_time_to_first_token_ms, check, "max_time_to_first_token_ms", above=True),
    }
    primary = _settings.score_name(name, "within_budget", check)
    figures = _budget_figures(ctx, check)
    over: list[str] = []
    within: list[str] = []
    unknown: list[str] = []
    shares: list[float] = []
    for what, limit in limits.items():
        if limit is None:
            continue
        figure = figures.get(what)
        if figure is None:
            unknown.append(what)
            continue
        shares.append(figure / limit)
        (over if figure > limit else within).append(
            f"{what} {figure:g} {'>' if figure > limit else '<='} {limit:g}")
    parts = over + within
    if unknown:
        parts.append(f"not reported, not checked: {', '.join(unknown)}")
    if not shares:
        comment = ("every limit is None: nothing checked" if not unknown else
                   f"the trace reports no figure for a set limit ({', '.join(unknown)}): "
                   "nothing checked")
        return Scores([util.not_judged(primary, comment)])
    comment = "; ".join(parts)
    used = max(shares)
    return Scores([
        util.boolean_score(primary, not over, comment),
        util.numeric_score("budget_used", used, f"largest share of a limit: {used:.2f}",
                           higher_is_better=False),
    ])


def _budget_figures(ctx: Any, check: str) -> dict[str, float]:
    if isinstance(ctx, Mapping):
        view = TraceView(as_context(AgentTrace(task_id="", metadata=dict(ctx))), [])
    else:
        view = read_trace(ctx, check)
    figures: dict[str, float] = {}
    token_sources: Sequence[Any] = (
        [step.tokens for step in view.steps] if view.steps is not None
        else [span.get("tokens") for span in view.spans])
    for what, keys, attributes in (
        ("output tokens", _OUTPUT_TOKEN_KEYS, _OUTPUT_TOKEN_ATTRIBUTES),
        ("input tokens", _INPUT_TOKEN_KEYS, _INPUT_TOKEN_ATTRIBUTES),
    ):
        total = finite_total(_token_count(tokens, keys) for tokens in token_sources)
        if total is None:
            total = _attribute(view, attributes)
        if total is not None:
            figures[what] = total
    duration = (run_duration_ms(view.steps) if view.steps is not None
                else spans_duration_ms(view.spans))
    figure = duration[0] if duration is not None else _attribute(view, DURATION_KEYS)
    if figure is not None:
        figures["duration ms"] = figure
    ttft = _attribute(view, _TTFT_ATTRIBUTES)
    if ttft is not None:
        figures["time to first token ms"] = ttft
    return figures


def _token_count(tokens: Any, keys: Sequence[str]) -> float | None:
    if not isinstance(tokens, Mapping):
        return None
    for key in keys:
        value = number(tokens.get(key))
        if value is not None:
            return value
    return None


def _attribute(view: TraceView, names: Sequence[str]) -> float | None:
    value = number(text.metadata_number(view.context, *names))
    return value if value is not None and value >= 0 else None
