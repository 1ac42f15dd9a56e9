"""The OpenTelemetry GenAI semantic conventions, mapped onto an AgentTrace.

Reads decoded :class:`~openeval.adapters.otel.otlp.Span` s of one trace: ``execute_tool``
spans become ``tool_call`` steps, ``chat`` (and ``text_completion`` / ``generate_content``)
spans become ``thought`` steps, one model turn each, and ``invoke_agent`` spans give the task
input, the final output and the agent name. The conversation comes from the model spans'
``gen_ai.input.messages`` / ``gen_ai.output.messages``. Other spans are not agent steps and are
dropped. The mapping and its judgement calls are in ``proposals/0014-otel-adapter.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from openeval.adapters._toolkit import Errors, Turns, require_activity, token_counts
from openeval.adapters.otel.assemble import tool_definition, unique_definitions
from openeval.adapters.otel.dialects import content_off_note, parsed
from openeval.adapters.otel.mcp import NO_ARGUMENTS, one_span_per_call
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

MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
AGENT_OPERATION = "invoke_agent"
TOOL_OPERATION = "execute_tool"
_ROLES: dict[str, MessageRole] = {
    "system": "system", "user": "user", "assistant": "assistant", "tool": "tool",
}


def operation(span: Span) -> str:
    """Return the GenAI operation of ``span`` (``chat``, ``execute_tool`` ...)."""
    op = span.attributes.get("gen_ai.operation.name")
    if isinstance(op, str) and op:
        return op
    # Instrumentations that predate the attribute still name spans "<operation> <target>".
    return span.name.split(" ", 1)[0]


@dataclass
class _Mapping:
    """What later spans need from earlier ones while one trace is mapped."""

    errors: Errors
    steps: list[TraceStep] = field(default_factory=list)
    turns: Turns = field(default_factory=Turns)
    requested: dict[str, Any] = field(default_factory=dict)
    """Tool-call arguments the model asked for, by call id (fills opt-in content gaps)."""
    requested_turn: dict[str, int] = field(default_factory=dict)
    """The model turn that asked for each call id."""
    call_names: dict[str, str] = field(default_factory=dict)
    """The tool name of each call id the model asked for (names tool messages)."""
    responses: dict[str, Any] = field(default_factory=dict)
    """Tool results sent back to the model, by call id."""
    history: int = 0
    """Input messages the last model span was given."""


# --------------------------------------------------------------------------- messages


def messages_of(span: Span, key: str, errors: Errors) -> list[dict[str, Any]]:
    """Return the GenAI messages in attribute ``key`` (JSON text or structured), [] if absent."""
    value = span.attributes.get(key)
    if value is None:
        return []
    where = f"{span.where}.attributes[{key}]"
    if isinstance(value, str):
        try:
            value = loads_exact(value)
        except orjson.JSONDecodeError as exc:
            raise errors(f"expected JSON text of a message list: {exc.msg}", where) from None
        deep = too_deep(value, MAX_JSON_DEPTH)
        if deep is not None:
            raise errors(depth_message(MAX_JSON_DEPTH), f"{where}: {deep}" if deep else where)
    if not isinstance(value, list) or not all(isinstance(m, dict) for m in value):
        raise errors("expected a list of message objects", where)
    return value


def _parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    parts = message.get("parts")
    if isinstance(parts, list):
        return [p for p in parts if isinstance(p, dict)]
    content = message.get("content")
    # Pre-"parts" instrumentations wrote OpenAI-style {"role", "content": "..."} messages.
    return [{"type": "text", "content": content}] if isinstance(content, str) else []


def _text(message: dict[str, Any]) -> str:
    return "\n".join(
        p["content"]
        for p in _parts(message)
        if p.get("type") == "text" and isinstance(p.get("content"), str) and p["content"]
    )


def _first_text(messages: list[dict[str, Any]], role: str) -> str | None:
    for message in messages:
        if message.get("role") == role:
            text = _text(message)
            if text:
                return text
    return None


def _last_assistant(messages: list[dict[str, Any]]) -> str | None:
    """Return the text of the last assistant message (``""`` if it has none), or None."""
    for message in reversed(messages):
        if message.get("role") == "assistant":
            return _text(message)
    return None


def _result_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return dump_json_compact(value)


def _say(mapping: _Mapping, message: dict[str, Any]) -> None:
    """Add one input message (system, user, tool) of a model span to the conversation."""
    role = _ROLES.get(str(message.get("role")))
    if role is None or role == "assistant":
        return  # assistant messages come from the model spans' outputs, with their turn
    parts = _parts(message)
    answers_only = bool(parts) and all(p.get("type") == "tool_call_response" for p in parts)
    if role != "tool" and not answers_only:
        # (Bedrock and Anthropic send tool results in a "user" message: those are tool
        # messages of the conversation, not something the user said.)
        mapping.turns.say(role, _text(message))
        return
    for part in parts:
        if part.get("type") == "tool_call_response":
            call_id = part.get("id")
            name = mapping.call_names.get(call_id) if isinstance(call_id, str) else None
            mapping.turns.say("tool", _result_text(_response(part)) or "", name=name)


def _response(part: dict[str, Any]) -> Any:
    # Pydantic AI's instrumentation names the tool's answer "result" where the conventions
    # say "response".
    return part.get("response", part.get("result"))


def _system_instructions(span: Span) -> str | None:
    value = span.attributes.get("gen_ai.system_instructions")
    if isinstance(value, str):
        try:
            value = loads_exact(value)
        except orjson.JSONDecodeError:
            return value  # plain text instructions
    if isinstance(value, list):
        return "\n".join(
            p["content"] for p in value
            if isinstance(p, dict) and isinstance(p.get("content"), str)
        )
    return None


# --------------------------------------------------------------------------- steps


def _tool_args(raw: Any) -> tuple[dict[str, Any] | None, str, str | None]:
    """Return ``(tool_args, content, error)``; None when the span did not record arguments.

    Argument capture is opt-in in the GenAI conventions, so an absent attribute means
    "unknown", not "no arguments".
    """
    if raw is None:
        return None, "", None
    parsed = parse_tool_args(raw)
    return parsed.args, parsed.raw, parsed.error


def _seconds(nanos: int) -> float:
    # Via whole microseconds, so 1.21 s prints as 1.21 and not 1.2099999.
    return (nanos // 1000) / 1e6


def _latency_ms(span: Span) -> float | None:
    if span.start_ns and span.end_ns >= span.start_ns:
        return (span.end_ns - span.start_ns) / 1e6
    return None


def _model_step(span: Span, mapping: _Mapping) -> TraceStep:
    """Map one model span: its thought step, its messages, the calls it asked for."""
    errors, attrs = mapping.errors, span.attributes
    turn = mapping.turns.start()
    inputs = messages_of(span, "gen_ai.input.messages", errors)
    outputs = messages_of(span, "gen_ai.output.messages", errors)
    if turn == 0 and (instructions := _system_instructions(span)):
        mapping.turns.say("system", instructions)
    # The input repeats the conversation so far: what is new follows the model's last turn
    # in it or, when the instrumentation leaves model turns out, the previous span's input.
    last_assistant = max(
        (i for i, m in enumerate(inputs) if m.get("role") == "assistant"), default=-1
    )
    start = last_assistant + 1 if last_assistant >= 0 else min(mapping.history, len(inputs))
    for message in inputs[start:]:
        _say(mapping, message)
    mapping.history = len(inputs)
    asked = False
    for message in outputs:
        for part in _parts(message):
            if part.get("type") == "tool_call" and isinstance(part.get("id"), str):
                asked = True
                mapping.requested.setdefault(part["id"], part.get("arguments"))
                mapping.requested_turn.setdefault(part["id"], turn)
                if isinstance(part.get("name"), str):
                    mapping.call_names.setdefault(part["id"], part["name"])
    # Tool results sent back to the model: only those after its last turn are new here.
    for message in inputs[last_assistant + 1 :]:
        for part in _parts(message):
            if part.get("type") == "tool_call_response" and isinstance(part.get("id"), str):
                mapping.responses.setdefault(part["id"], _response(part))
    reasons = attrs.get("gen_ai.response.finish_reasons")
    if isinstance(reasons, str):
        reasons = [reasons]
    finish = reasons[0] if isinstance(reasons, list) and reasons else None
    if finish is None and outputs:
        finish = outputs[-1].get("finish_reason")
    tokens = token_counts(
        [("input", attrs.get("gen_ai.usage.input_tokens")),
         ("output", attrs.get("gen_ai.usage.output_tokens"))]
    )
    provider = attrs.get("gen_ai.provider.name", attrs.get("gen_ai.system"))
    model = attrs.get("gen_ai.response.model", attrs.get("gen_ai.request.model"))
    text = "\n".join(t for t in (_text(m) for m in outputs) if t)
    mapping.turns.say("assistant", text, turn=turn)
    mapping.turns.answer(text, asked_for_tools=asked or span.failed)
    return TraceStep(
        step_id=0,
        type="thought",
        content=text,
        timestamp=_seconds(span.start_ns),
        error=(span.status_message or "error") if span.failed else None,
        finish_reason=str(finish) if finish is not None else None,
        provider=str(provider) if provider is not None else None,
        model=str(model) if model is not None else None,
        tokens=tokens,
        latency_ms=_latency_ms(span),
        turn=turn,
    )


def _tool_step(span: Span, turn: int | None) -> tuple[TraceStep, str | None]:
    attrs = span.attributes
    name = attrs.get("gen_ai.tool.name")
    if not isinstance(name, str) or not name:
        prefix, _, rest = span.name.partition(" ")
        name = rest if prefix == TOOL_OPERATION and rest else span.name
    call_id = attrs.get("gen_ai.tool.call.id")
    args, content, args_error = _tool_args(attrs.get("gen_ai.tool.call.arguments"))
    error_type = attrs.get("error.type")
    error = None
    if span.failed:
        error = span.status_message or (str(error_type) if error_type is not None else "error")
    elif error_type is not None:
        error = str(error_type)
    step = TraceStep(
        step_id=0,
        type="tool_call",
        content=content,
        tool_name=name,
        tool_args=args,
        tool_result=_result_text(attrs.get("gen_ai.tool.call.result")),
        timestamp=_seconds(span.start_ns),
        error=args_error or error,
        latency_ms=_latency_ms(span),
        turn=turn,
    )
    return step, str(call_id) if call_id is not None else None


def trace_of_spans(spans: list[Span], errors: Errors, task_id: str) -> AgentTrace:
    """Return the AgentTrace of the spans of one trace, in the GenAI conventions."""
    spans, mcp_only = one_span_per_call(spans)
    spans = sorted(spans, key=lambda s: (s.start_ns, s.span_id))
    mapping = _Mapping(errors)
    tool_ids: list[tuple[TraceStep, str | None]] = []
    for span in spans:
        op = operation(span)
        if op in MODEL_OPERATIONS:
            mapping.steps.append(_model_step(span, mapping))
        elif op == TOOL_OPERATION:
            call_id = span.attributes.get("gen_ai.tool.call.id")
            requested = mapping.requested_turn.get(str(call_id)) if call_id is not None else None
            latest = mapping.turns.count - 1 if mapping.turns.count else None
            step, call_id = _tool_step(span, requested if requested is not None else latest)
            tool_ids.append((step, call_id))
            mapping.steps.append(step)
            mapping.turns.acted()
    _fill_from_messages(tool_ids, mapping)
    _add_requested_only(spans, tool_ids, mapping)
    for number, step in enumerate(mapping.steps, start=1):
        step.step_id = number

    agents = [s for s in spans if operation(s) == AGENT_OPERATION]
    root = _root_agent(agents)
    otel: dict[str, Any] = {"trace_ids": sorted({s.trace_id for s in spans if s.trace_id})}
    service = next((s.resource.get("service.name") for s in spans if s.resource), None)
    if isinstance(service, str):
        otel["service_name"] = service
    task_input = mapping.turns.first_user_text
    final_output = mapping.turns.final_output
    if root is not None:
        agent_name = root.attributes.get("gen_ai.agent.name")
        if isinstance(agent_name, str):
            otel["agent_name"] = agent_name
        agent_in = messages_of(root, "gen_ai.input.messages", errors)
        agent_out = messages_of(root, "gen_ai.output.messages", errors)
        task_input = _first_text(agent_in, "user") or task_input
        answer = _last_assistant(agent_out)
        if answer is not None:  # the agent's own answer wins over its last model turn's
            final_output = answer
        if not mapping.turns.messages:  # content capture was off on the model spans
            for message in agent_in:
                _say(mapping, message)
            if answer is not None:
                mapping.turns.say("assistant", answer)
    metadata: dict[str, Any] = {"otel": otel}
    if not tool_ids and not _holds_content(spans):
        metadata[NOT_RECORDED_KEY] = {"tool_calls": _no_content_note(mapping.steps)}
    elif any(step.type == "tool_call" and step.tool_args is None for step in mapping.steps):
        note = content_off_note(spans) or (NO_ARGUMENTS if mcp_only else None)
        if note is not None:
            metadata[NOT_RECORDED_KEY] = {"tool_args": note}
    trace = AgentTrace(
        task_id=task_id,
        input=task_input,
        steps=mapping.steps,
        final_output=final_output,
        metadata=metadata,
        messages=mapping.turns.messages,
        signals=[],  # OTel GenAI spans have no denial or replay field
        tool_definitions=_tool_definitions(spans),
    )
    found = f"among its {len(spans)} spans" if spans else "(it holds no span)"
    return require_activity(
        trace, errors, f"no GenAI span (chat, execute_tool, invoke_agent with content) {found}"
    )


def _tool_definitions(spans: list[Span]) -> list[dict[str, Any]]:
    """Return the tools offered: ``gen_ai.tool.definitions`` (a model span's list), else each
    tool span's own ``gen_ai.tool.json_schema`` (Strands), by name, first seen first."""
    found: list[dict[str, Any]] = []
    for span in spans:
        listed = parsed(span.attributes.get("gen_ai.tool.definitions"))
        for item in listed if isinstance(listed, list) else ():
            definition = tool_definition(item)
            if definition is not None:
                found.append(definition)
        schema = parsed(span.attributes.get("gen_ai.tool.json_schema"))
        name = span.attributes.get("gen_ai.tool.name")
        if isinstance(schema, dict) and isinstance(name, str) and name:
            own: dict[str, Any] = {"name": name}
            description = span.attributes.get("gen_ai.tool.description")
            if isinstance(description, str):
                own["description"] = description
            own["parameters"] = schema
            found.append(own)
    return unique_definitions(found)


NOT_RECORDED_KEY = "not_recorded"
"""Metadata naming what the source left out, read by the call metrics (their ``_common``)."""
_CONTENT_KEYS = ("gen_ai.input.messages", "gen_ai.output.messages")
_ASKED_FOR_TOOLS = frozenset({"tool_calls", "tool_call", "tool_use", "function_call"})


def _holds_content(spans: list[Span]) -> bool:
    """Return True when a model or agent span carries messages (content capture was on)."""
    return any(
        key in span.attributes
        for span in spans if operation(span) in MODEL_OPERATIONS | {AGENT_OPERATION}
        for key in _CONTENT_KEYS
    )


def _no_content_note(steps: list[TraceStep]) -> str:
    """Say why a trace with model spans but no content and no execute_tool span shows no call.

    This is what opentelemetry-instrumentation-openai-v2 records by default: the chat spans
    keep model, tokens and finish reasons, and leave out every message and tool call.
    """
    asked = sum(step.finish_reason in _ASKED_FOR_TOOLS for step in steps)
    turns = f"; {asked} model turn(s) ended asking for tools" if asked else ""
    return (
        "this trace holds no message content, so it cannot show which tools were called"
        f"{turns}: enable content capture with "
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (or record execute_tool "
        "spans) and record the run again"
    )


def _root_agent(agents: list[Span]) -> Span | None:
    """Return the outermost ``invoke_agent`` span: the first not nested in another agent span."""
    agent_ids = {a.span_id for a in agents}
    return next((a for a in agents if a.parent_id not in agent_ids), None)


def _fill_from_messages(tool_ids: list[tuple[TraceStep, str | None]], mapping: _Mapping) -> None:
    """Fill arguments and results that a tool span left out (content capture is opt-in)."""
    for step, call_id in tool_ids:
        if call_id is None:
            continue
        if step.tool_args is None and not step.content and call_id in mapping.requested:
            step.tool_args, step.content, args_error = _tool_args(mapping.requested[call_id])
            step.error = step.error or args_error
        if step.tool_result is None and call_id in mapping.responses:
            step.tool_result = _result_text(mapping.responses[call_id])


def _add_requested_only(
    spans: list[Span], tool_ids: list[tuple[TraceStep, str | None]], mapping: _Mapping
) -> None:
    """When no ``execute_tool`` spans were recorded, take tool calls from the model's messages.

    Each requested call becomes a ``tool_call`` step right after the model turn that asked for
    it, paired with its result by call id.
    """
    if tool_ids:
        return
    steps: list[TraceStep] = []
    model_steps = iter(s for s in mapping.steps if s.type == "thought")
    for span in spans:
        if operation(span) not in MODEL_OPERATIONS:
            continue
        thought = next(model_steps)
        steps.append(thought)
        for message in messages_of(span, "gen_ai.output.messages", mapping.errors):
            for part in _parts(message):
                if part.get("type") != "tool_call":
                    continue
                args, content, error = _tool_args(part.get("arguments"))
                call_id = part.get("id")
                name = part.get("name")
                steps.append(
                    TraceStep(
                        step_id=0,
                        type="tool_call",
                        content=content,
                        tool_name=str(name) if name is not None else "",
                        tool_args=args,
                        tool_result=_result_text(mapping.responses.get(call_id))
                        if isinstance(call_id, str)
                        else None,
                        timestamp=thought.timestamp,
                        error=error,
                        turn=thought.turn,
                    )
                )
    mapping.steps = steps
