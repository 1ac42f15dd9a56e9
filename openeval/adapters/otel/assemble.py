"""One trace out of the spans of a conventions family that is not the GenAI one.

OpenInference, the Vercel AI SDK and the Langfuse SDK each spell a model call, a tool run and
an agent run their own way, but say the same things. Their modules (:mod:`.openinference`,
:mod:`.vercel`, :mod:`.langfuse`) read each span into the neutral records below; :func:`build`
turns the records of one trace into an AgentTrace by the rules every adapter follows (model
turns numbered through :class:`~openeval.adapters._toolkit.Turns`, calls paired with their
results by call id, the root agent's answer as the final output). The mapping of each family
is in ``proposals/0130-otel-conventions.md``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from openeval.adapters._toolkit import Errors, Turns, require_activity
from openeval.adapters.otel.otlp import Span
from openeval.adapters.tool_args import parse_tool_args
from openeval.jsonio import (
    MAX_JSON_DEPTH,
    depth_message,
    dump_json_compact,
    loads_exact,
    too_deep,
)
from openeval.models import AgentTrace, MessageRole, TraceStep

_ROLES: dict[str, MessageRole] = {
    "system": "system", "developer": "system", "user": "user", "human": "user",
    "assistant": "assistant", "ai": "assistant", "model": "assistant", "tool": "tool",
    "function": "tool",
}


@dataclass(frozen=True)
class CallAsked:
    """One tool call a model asked for."""

    call_id: str | None
    name: str
    arguments: Any
    """JSON text or a parsed value; None when the source did not record them."""


@dataclass(frozen=True)
class ChatMessage:
    """One message of a model call's input or output, whatever the family wrote."""

    role: str
    text: str = ""
    calls: tuple[CallAsked, ...] = ()
    call_id: str | None = None
    """For a tool message: the call it answers."""
    name: str | None = None


@dataclass(frozen=True)
class ModelCall:
    """A span that is one model call."""

    span: Span
    inputs: list[ChatMessage]
    outputs: list[ChatMessage]
    finish_reason: str | None = None
    provider: str | None = None
    model: str | None = None
    tokens: dict[str, int] | None = None


@dataclass(frozen=True)
class ToolRun:
    """A span that is one tool execution."""

    span: Span
    name: str
    call_id: str | None
    arguments: Any
    """JSON text or a parsed value; None when the source did not record them."""
    result: Any = None
    error: str | None = None


@dataclass(frozen=True)
class AgentRun:
    """A span that is one agent invocation (its input and answer, when recorded)."""

    span: Span
    input: str | None
    output: str | None
    name: str | None = None


Record = ModelCall | ToolRun | AgentRun


@dataclass
class _State:
    turns: Turns = field(default_factory=Turns)
    steps: list[TraceStep] = field(default_factory=list)
    requested: dict[str, CallAsked] = field(default_factory=dict)
    requested_turn: dict[str, int] = field(default_factory=dict)
    responses: dict[str, str] = field(default_factory=dict)
    history: int = 0


def result_text(value: Any) -> str | None:
    """Return a tool result as the trace holds it: text as is, anything else as JSON."""
    if value is None or isinstance(value, str):
        return value
    return dump_json_compact(value)


def seconds(nanos: int) -> float:
    """Return a span time in seconds, via whole microseconds (1.21 s stays 1.21)."""
    return (nanos // 1000) / 1e6


def latency_ms(span: Span) -> float | None:
    """Return a span's duration in milliseconds, or None when its times do not say."""
    if span.start_ns and span.end_ns >= span.start_ns:
        return (span.end_ns - span.start_ns) / 1e6
    return None


def span_error(span: Span) -> str | None:
    """Return why a span failed: its status message, else its exception event, else "error"."""
    if not span.failed:
        return None
    if span.status_message:
        return span.status_message
    for event in span.events:
        if event.name == "exception":
            message = event.attributes.get("exception.message")
            if isinstance(message, str) and message:
                return message
    return "error"


def _say(state: _State, message: ChatMessage) -> None:
    role = _ROLES.get(message.role.lower())
    if role is None or role == "assistant":
        return
    if role == "tool":
        asked = state.requested.get(message.call_id) if message.call_id else None
        state.turns.say("tool", message.text, name=message.name or (asked.name if asked else None))
        return
    state.turns.say(role, message.text)


def _is_assistant(message: ChatMessage) -> bool:
    return _ROLES.get(message.role.lower()) == "assistant"


def _model_step(call: ModelCall, state: _State) -> TraceStep:
    turn = state.turns.start()
    inputs = call.inputs
    last = max((i for i, m in enumerate(inputs) if _is_assistant(m)), default=-1)
    start = last + 1 if last >= 0 else min(state.history, len(inputs))
    for message in inputs[last + 1:]:
        if message.call_id is not None and _ROLES.get(message.role.lower()) == "tool":
            state.responses.setdefault(message.call_id, message.text)
    for message in inputs[start:]:
        _say(state, message)
    state.history = len(inputs)
    asked = False
    for message in call.outputs:
        for request in message.calls:
            asked = True
            if request.call_id is not None:
                state.requested.setdefault(request.call_id, request)
                state.requested_turn.setdefault(request.call_id, turn)
    text = "\n".join(m.text for m in call.outputs if m.text)
    state.turns.say("assistant", text, turn=turn)
    error = span_error(call.span)
    state.turns.answer(text, asked_for_tools=asked or error is not None)
    return TraceStep(
        step_id=0, type="thought", content=text, timestamp=seconds(call.span.start_ns),
        error=error, finish_reason=call.finish_reason, provider=call.provider,
        model=call.model, tokens=call.tokens, latency_ms=latency_ms(call.span), turn=turn,
    )


def _tool_step(
    name: str, arguments: Any, result: str | None, error: str | None, span: Span | None,
    turn: int | None, timestamp: float,
) -> TraceStep:
    if arguments is None:
        args, content, args_error = None, "", None
    else:
        parsed = parse_tool_args(arguments)
        args, content, args_error = parsed.args, parsed.raw, parsed.error
    return TraceStep(
        step_id=0, type="tool_call", content=content, tool_name=name, tool_args=args,
        tool_result=result, timestamp=timestamp, error=args_error or error,
        latency_ms=latency_ms(span) if span is not None else None, turn=turn,
    )


def _run_step(run: ToolRun, state: _State) -> TraceStep:
    asked = state.requested.get(run.call_id) if run.call_id else None
    turn = state.requested_turn.get(run.call_id) if run.call_id else None
    if turn is None and state.turns.count:
        turn = state.turns.count - 1
    arguments = run.arguments if run.arguments is not None else (asked.arguments if asked else None)
    result = result_text(run.result)
    step = _tool_step(run.name or (asked.name if asked else ""), arguments, result,
                      run.error, run.span, turn, seconds(run.span.start_ns))
    state.turns.acted()
    return step


def _requested_steps(records: Sequence[Record], state: _State) -> list[TraceStep]:
    """With no tool span recorded, the calls come from the model's outputs, each right after
    the model turn that asked for it, paired with its result by call id."""
    steps: list[TraceStep] = []
    thoughts = iter(s for s in state.steps if s.type == "thought")
    for record in records:
        if not isinstance(record, ModelCall):
            continue
        thought = next(thoughts)
        steps.append(thought)
        for message in record.outputs:
            for request in message.calls:
                result = state.responses.get(request.call_id) if request.call_id else None
                steps.append(_tool_step(request.name, request.arguments, result, None, None,
                                        thought.turn, thought.timestamp))
    return steps


def _causal_order(records: Iterable[Record]) -> list[Record]:
    """Return the records by start time, with each tool run after the model call that asked
    for it: clocks of millisecond precision (JavaScript's) give both the same start."""
    ordered = sorted(records, key=lambda r: (r.span.start_ns, r.span.span_id))
    asked_by: dict[str, int] = {}
    for record in ordered:
        if isinstance(record, ModelCall):
            for message in record.outputs:
                for call in message.calls:
                    if call.call_id is not None:
                        asked_by.setdefault(call.call_id, id(record))
    out: list[Record] = []
    placed: set[int] = set()
    waiting: dict[int, list[Record]] = {}
    for record in ordered:
        asker = asked_by.get(record.call_id) if (
            isinstance(record, ToolRun) and record.call_id is not None) else None
        if asker is not None and asker not in placed:
            waiting.setdefault(asker, []).append(record)
            continue
        out.append(record)
        placed.add(id(record))
        out.extend(waiting.pop(id(record), []))
    for rest in waiting.values():
        out.extend(rest)
    return out


def _root_agent(agents: list[AgentRun]) -> AgentRun | None:
    ids = {a.span.span_id for a in agents}
    return next((a for a in agents if a.span.parent_id not in ids), None)


def build(
    spans: Sequence[Span], records: Iterable[Record], errors: Errors, task_id: str, *,
    conventions: str, tool_definitions: list[dict[str, Any]], what: str,
) -> AgentTrace:
    """Return the AgentTrace of one trace's records (any order: they are sorted by time).

    ``what`` says, in a refusal, which spans were looked for and not found.
    """
    ordered = _causal_order(records)
    state = _State()
    runs: list[tuple[TraceStep, ToolRun]] = []
    for record in ordered:
        if isinstance(record, ModelCall):
            state.steps.append(_model_step(record, state))
        elif isinstance(record, ToolRun):
            step = _run_step(record, state)
            state.steps.append(step)
            runs.append((step, record))
    for step, run in runs:  # results the model was sent later, for runs that recorded none
        if step.tool_result is None and run.call_id is not None:
            step.tool_result = state.responses.get(run.call_id)
    if not runs:
        state.steps = _requested_steps(ordered, state)
    for number, step in enumerate(state.steps, start=1):
        step.step_id = number
    otel: dict[str, Any] = {
        "conventions": conventions,
        "trace_ids": sorted({s.trace_id for s in spans if s.trace_id}),
    }
    service = next((s.resource.get("service.name") for s in spans if s.resource), None)
    if isinstance(service, str):
        otel["service_name"] = service
    task_input = state.turns.first_user_text
    final_output = state.turns.final_output
    root = _root_agent([r for r in ordered if isinstance(r, AgentRun)])
    if root is not None:
        if root.name:
            otel["agent_name"] = root.name
        task_input = root.input or task_input
        if root.output is not None:
            final_output = root.output
        if not state.turns.messages:
            if root.input:
                state.turns.say("user", root.input)
            if root.output is not None:
                state.turns.say("assistant", root.output)
    trace = AgentTrace(
        task_id=task_id, input=task_input, steps=state.steps, final_output=final_output,
        metadata={"otel": otel}, messages=state.turns.messages,
        signals=[],  # these conventions have no denial or replay field
        tool_definitions=tool_definitions,
    )
    found = f"among its {len(spans)} spans" if spans else "(it holds no span)"
    return require_activity(trace, errors, f"{what} {found}")


def tool_definition(value: Any) -> dict[str, Any] | None:
    """Return ``{name, description, parameters}`` of a tool as a schema gives it (OpenAI's
    ``{"type": "function", "function": {...}}``, or the function object itself), or None."""
    if isinstance(value, dict) and isinstance(value.get("function"), dict):
        value = value["function"]
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    out: dict[str, Any] = {"name": value["name"]}
    if isinstance(value.get("description"), str):
        out["description"] = value["description"]
    parameters = value.get("parameters", value.get("inputSchema", value.get("input_schema")))
    if isinstance(parameters, dict):
        out["parameters"] = parameters
    return out


def unique_definitions(definitions: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return tool definitions with each name once (the first seen), in order."""
    seen: set[str] = set()
    out: list[dict[str, Any]] = []
    for definition in definitions:
        if definition["name"] not in seen:
            seen.add(definition["name"])
            out.append(definition)
    return out


def json_value(span: Span, key: str, errors: Errors) -> Any:
    """Return attribute ``key`` with JSON text parsed; text that is not JSON stays text.

    Parsed values are held to the project's depth bound, and a value past it is refused
    naming the span and the attribute.
    """
    value = span.attributes.get(key)
    if not isinstance(value, str) or value[:1] not in ("{", "["):
        return value
    try:
        parsed = loads_exact(value)
    except orjson.JSONDecodeError:
        return value
    deep = too_deep(parsed, MAX_JSON_DEPTH)
    if deep is not None:
        where = f"{span.where}.attributes[{key}]"
        raise errors(depth_message(MAX_JSON_DEPTH), f"{where}: {deep}" if deep else where)
    return parsed


def text_of(value: Any) -> str:
    """Return message content as text: a string, or the text parts of a content list."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(
            t for part in value if isinstance(part, dict)
            for t in (part.get("text"), part.get("content")) if isinstance(t, str) and t
        )
    return ""


def openai_message(message: Any) -> ChatMessage | None:
    """Return a Chat Completions message (``role``, ``content``, ``tool_calls``,
    ``tool_call_id``) as a chat message, or None when it is not one."""
    if not isinstance(message, dict) or not isinstance(message.get("role"), str):
        return None
    calls: list[CallAsked] = []
    for call in message.get("tool_calls") or ():
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            call_id = call.get("id")
            calls.append(CallAsked(call_id=str(call_id) if call_id is not None else None,
                                   name=str(function.get("name") or ""),
                                   arguments=function.get("arguments")))
    call_id = message.get("tool_call_id")
    name = message.get("name")
    return ChatMessage(role=message["role"], text=text_of(message.get("content")),
                       calls=tuple(calls), call_id=str(call_id) if call_id is not None else None,
                       name=name if isinstance(name, str) else None)
