"""The OpenInference conventions (Arize Phoenix and its instrumentors), mapped onto a trace.

Every span says what it is in ``openinference.span.kind``: ``LLM`` spans are model calls, with
their conversation flattened into ``llm.input_messages.{i}.message.*`` and
``llm.output_messages.{i}.message.*`` (tool calls under ``...tool_calls.{j}.tool_call.*``),
the offered tools in ``llm.tools.{i}.tool.json_schema`` and the counts in
``llm.token_count.*``; ``TOOL`` spans are tool runs (``tool.name``, ``input.value`` the
arguments, ``output.value`` the result); ``AGENT`` spans give the task and the answer
(``input.value`` / ``output.value``). ``CHAIN``, ``RETRIEVER`` and the rest are not agent steps.
The mapping is in ``proposals/0130-otel-conventions.md``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from openeval.adapters._toolkit import Errors, token_counts
from openeval.adapters.otel.assemble import (
    AgentRun,
    CallAsked,
    ChatMessage,
    ModelCall,
    Record,
    ToolRun,
    build,
    json_value,
    span_error,
    text_of,
    tool_definition,
    unique_definitions,
)
from openeval.adapters.otel.otlp import Span
from openeval.models import AgentTrace

KIND_KEY = "openinference.span.kind"
NAME = "openinference"

_MESSAGE = re.compile(r"llm\.(input|output)_messages\.(\d{1,6})\.message\.(.+)")
_CALL = re.compile(r"tool_calls\.(\d{1,6})\.tool_call\.(id|function\.name|function\.arguments)")
_CONTENT = re.compile(r"contents\.(\d{1,6})\.message_content\.text")
_TOOL = re.compile(r"llm\.tools\.(\d{1,6})\.tool\.json_schema")


def holds(spans: Sequence[Span]) -> bool:
    """Return True when the spans follow the OpenInference conventions."""
    return any(KIND_KEY in span.attributes for span in spans)


def _kind(span: Span) -> str:
    kind = span.attributes.get(KIND_KEY)
    return kind.upper() if isinstance(kind, str) else ""


def _messages(span: Span, side: str) -> list[ChatMessage]:
    """Return the flattened messages of one side (``input`` / ``output``) of an LLM span."""
    fields: dict[int, dict[str, Any]] = {}
    for key, value in span.attributes.items():
        match = _MESSAGE.fullmatch(key)
        if match is None or match.group(1) != side:
            continue
        fields.setdefault(int(match.group(2)), {})[match.group(3)] = value
    return [_message(fields[i]) for i in sorted(fields)]


def _message(fields: dict[str, Any]) -> ChatMessage:
    calls: dict[int, dict[str, Any]] = {}
    parts: dict[int, str] = {}
    for key, value in fields.items():
        if (call := _CALL.fullmatch(key)) is not None:
            calls.setdefault(int(call.group(1)), {})[call.group(2)] = value
        elif (part := _CONTENT.fullmatch(key)) is not None and isinstance(value, str):
            parts[int(part.group(1))] = value
    content = fields.get("content")
    text = text_of(content) if content is not None else "\n".join(
        parts[i] for i in sorted(parts) if parts[i])
    asked = tuple(
        CallAsked(
            call_id=str(c["id"]) if c.get("id") is not None else None,
            name=str(c.get("function.name") or ""),
            arguments=c.get("function.arguments"),
        )
        for _, c in sorted(calls.items())
    )
    role, call_id, name = fields.get("role"), fields.get("tool_call_id"), fields.get("name")
    return ChatMessage(
        role=role if isinstance(role, str) else "",
        text=text,
        calls=asked,
        call_id=str(call_id) if call_id is not None else None,
        name=name if isinstance(name, str) else None,
    )


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else text_of(value) or None


def _record(span: Span) -> Record | None:
    attrs = span.attributes
    kind = _kind(span)
    if kind == "LLM":
        tokens = token_counts([("input", attrs.get("llm.token_count.prompt")),
                               ("output", attrs.get("llm.token_count.completion"))])
        provider = attrs.get("llm.provider", attrs.get("llm.system"))
        model, finish = attrs.get("llm.model_name"), attrs.get("llm.finish_reason")
        return ModelCall(
            span=span, inputs=_messages(span, "input"), outputs=_messages(span, "output"),
            finish_reason=str(finish) if finish is not None else None,
            provider=str(provider) if provider is not None else None,
            model=str(model) if model is not None else None, tokens=tokens,
        )
    if kind == "TOOL":
        name = attrs.get("tool.name")
        call_id = attrs.get("tool_call.id", attrs.get("tool.id"))
        return ToolRun(
            span=span, name=name if isinstance(name, str) and name else span.name,
            call_id=str(call_id) if call_id is not None else None,
            arguments=attrs.get("input.value"), result=attrs.get("output.value"),
            error=span_error(span),
        )
    if kind == "AGENT":
        name = attrs.get("agent.name")
        return AgentRun(span=span, input=_text(attrs.get("input.value")),
                        output=_text(attrs.get("output.value")),
                        name=name if isinstance(name, str) else span.name)
    return None


def _definitions(spans: Sequence[Span], errors: Errors) -> list[dict[str, Any]]:
    found: list[tuple[int, int, dict[str, Any]]] = []
    for s, span in enumerate(spans):
        for key in span.attributes:
            match = _TOOL.fullmatch(key)
            if match is None:
                continue
            definition = tool_definition(json_value(span, key, errors))
            if definition is not None:
                found.append((s, int(match.group(1)), definition))
    return unique_definitions(d for _, _, d in sorted(found, key=lambda f: (f[0], f[1])))


def trace_of_openinference(spans: list[Span], errors: Errors, task_id: str) -> AgentTrace:
    """Return the AgentTrace of one trace's OpenInference spans."""
    spans = sorted(spans, key=lambda s: (s.start_ns, s.span_id))
    records = [r for r in (_record(span) for span in spans) if r is not None]
    return build(
        spans, records, errors, task_id, conventions=NAME,
        tool_definitions=_definitions(spans, errors),
        what="no OpenInference LLM, TOOL or AGENT span",
    )
