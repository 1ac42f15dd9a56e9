"""The Langfuse SDK's spans (``langfuse`` 3 to 5, OpenTelemetry-based), mapped onto a trace.

Every span the SDK writes says what it observes in ``langfuse.observation.type``, with the
content as JSON text in ``langfuse.observation.input`` / ``output``. ``generation`` spans are
model calls (the input a message list, or the OpenAI integration's ``{"messages", "tools"}``;
``model.name``; ``usage_details``); ``tool`` spans are tool runs (a decorated function's input
is ``{"args": [...], "kwargs": {...}}``); the ``agent`` span (or, without one, the root
``span`` / ``chain``) gives the task and the answer. ``level`` ``ERROR`` with its
``status_message`` is a failure. The mapping is in ``proposals/0130-otel-conventions.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from openeval.adapters._toolkit import Errors, token_counts
from openeval.adapters.otel.assemble import (
    AgentRun,
    ChatMessage,
    ModelCall,
    Record,
    ToolRun,
    build,
    json_value,
    openai_message,
    span_error,
    text_of,
    tool_definition,
    unique_definitions,
)
from openeval.adapters.otel.otlp import Span
from openeval.models import AgentTrace

TYPE_KEY = "langfuse.observation.type"
NAME = "langfuse"
_INPUT = "langfuse.observation.input"
_OUTPUT = "langfuse.observation.output"
_RUN_TYPES = frozenset({"span", "chain"})


def holds(spans: Sequence[Span]) -> bool:
    """Return True when the spans were written by the Langfuse SDK."""
    return any(TYPE_KEY in span.attributes for span in spans)


def _error(span: Span) -> str | None:
    if span.attributes.get("langfuse.observation.level") == "ERROR":
        message = span.attributes.get("langfuse.observation.status_message")
        return message if isinstance(message, str) and message else span_error(span) or "error"
    return span_error(span)


def _messages(value: Any) -> list[ChatMessage]:
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        value = value["messages"]
    if isinstance(value, str):
        return [ChatMessage(role="user", text=value)]
    if isinstance(value, dict):
        value = [value]
    out = [openai_message(m) for m in value] if isinstance(value, list) else []
    return [m for m in out if m is not None]


def _call_input(value: Any) -> Any:
    """Return a decorated function's arguments: its keyword arguments, else its positional
    ones under ``args``; any other input as it is."""
    if isinstance(value, dict) and set(value) == {"args", "kwargs"}:
        args, kwargs = value["args"], value["kwargs"]
        if isinstance(kwargs, dict) and (kwargs or not args):
            return kwargs
        return {"args": args}
    return value


def _task(value: Any) -> str | None:
    value = _call_input(value)
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        if isinstance(value.get("args"), list):
            return next((a for a in value["args"] if isinstance(a, str)), None)
        strings = [v for v in value.values() if isinstance(v, str)]
        return strings[0] if len(strings) == 1 else None
    return None


def _record(span: Span, root_ids: set[str], errors: Errors) -> Record | None:
    attrs = span.attributes
    kind = attrs.get(TYPE_KEY)
    if not isinstance(kind, str):
        return None
    if kind == "generation":
        given = json_value(span, _INPUT, errors)
        answer = json_value(span, _OUTPUT, errors)
        outputs = _messages(answer) if not isinstance(answer, str) else [
            ChatMessage(role="assistant", text=answer)]
        usage = json_value(span, "langfuse.observation.usage_details", errors)
        usage = usage if isinstance(usage, dict) else {}
        tokens = token_counts([
            ("input", usage.get("input", usage.get("prompt_tokens"))),
            ("output", usage.get("output", usage.get("completion_tokens"))),
        ])
        model = attrs.get("langfuse.observation.model.name")
        asked = any(m.calls for m in outputs)
        return ModelCall(
            span=span, inputs=_messages(given),
            outputs=[ChatMessage(role="assistant", text=m.text, calls=m.calls)
                     for m in outputs],
            finish_reason="tool_calls" if asked else None, provider=None,
            model=str(model) if model is not None else None, tokens=tokens,
        )
    if kind == "tool":
        return ToolRun(span=span, name=span.name, call_id=None,
                       arguments=_call_input(json_value(span, _INPUT, errors)),
                       result=attrs.get(_OUTPUT), error=_error(span))
    if kind == "agent" or (kind in _RUN_TYPES and span.span_id in root_ids):
        answer = json_value(span, _OUTPUT, errors)
        output = answer if isinstance(answer, str) else text_of(answer) or None
        return AgentRun(span=span, input=_task(json_value(span, _INPUT, errors)),
                        output=output, name=span.name)
    return None


def _definitions(spans: Sequence[Span], errors: Errors) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for span in spans:
        if span.attributes.get(TYPE_KEY) != "generation":
            continue
        given = json_value(span, _INPUT, errors)
        tools = given.get("tools") if isinstance(given, dict) else None
        for item in tools if isinstance(tools, list) else ():
            definition = tool_definition(item)
            if definition is not None:
                found.append(definition)
    return unique_definitions(found)


def trace_of_langfuse(spans: list[Span], errors: Errors, task_id: str) -> AgentTrace:
    """Return the AgentTrace of one trace's Langfuse SDK spans."""
    spans = sorted(spans, key=lambda s: (s.start_ns, s.span_id))
    ids = {s.span_id for s in spans}
    roots = {s.span_id for s in spans if s.parent_id not in ids}
    records = [r for r in (_record(span, roots, errors) for span in spans) if r is not None]
    return build(
        spans, records, errors, task_id, conventions=NAME,
        tool_definitions=_definitions(spans, errors),
        what="no Langfuse generation, tool or agent observation",
    )
