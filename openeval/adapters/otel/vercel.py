"""The Vercel AI SDK's telemetry (``ai`` 3-6, ``LegacyOpenTelemetry`` in 7), mapped onto a trace.

Every span names its operation in ``ai.operationId``. ``ai.generateText.doGenerate`` /
``ai.streamText.doStream`` spans are model calls: the prompt in ``ai.prompt.messages`` (the
SDK's own message shape), the answer in ``ai.response.text`` and ``ai.response.toolCalls``, the
offered tools in ``ai.prompt.tools``, the counts in ``ai.usage.*``. ``ai.toolCall`` spans are tool
runs (``ai.toolCall.name`` / ``id`` / ``args`` / ``result``; v5+ also ``input`` / ``output``).
The outer ``ai.generateText`` / ``ai.streamText`` span is the run: its ``ai.prompt`` and
``ai.response.text`` give the task and the answer. The mapping is in
``proposals/0130-otel-conventions.md``.
"""

from __future__ import annotations

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
    result_text,
    span_error,
    tool_definition,
    unique_definitions,
)
from openeval.adapters.otel.otlp import Span
from openeval.models import AgentTrace

OPERATION_KEY = "ai.operationId"
NAME = "vercel_ai"
_MODEL_OPERATIONS = frozenset({
    "ai.generateText.doGenerate", "ai.streamText.doStream",
    "ai.generateObject.doGenerate", "ai.streamObject.doStream",
})
_RUN_OPERATIONS = frozenset({
    "ai.generateText", "ai.streamText", "ai.generateObject", "ai.streamObject",
})
_TOOL_OPERATION = "ai.toolCall"


def holds(spans: Sequence[Span]) -> bool:
    """Return True when the spans are the AI SDK's own telemetry."""
    return any(
        isinstance(op := span.attributes.get(OPERATION_KEY), str) and op.startswith("ai.")
        for span in spans
    )


def _first(attrs: dict[str, Any], *keys: str) -> Any:
    return next((attrs[k] for k in keys if attrs.get(k) is not None), None)


def _asked(item: Any) -> CallAsked | None:
    if not isinstance(item, dict):
        return None
    call_id, name = item.get("toolCallId"), item.get("toolName")
    return CallAsked(
        call_id=str(call_id) if call_id is not None else None,
        name=str(name) if name is not None else "",
        arguments=_first(item, "input", "args"),
    )


def _tool_output(value: Any) -> str:
    """Return a tool-result part's output as text: ``{"type": "json", "value": ...}`` (v5+),
    or the bare ``result`` (v3-4)."""
    if isinstance(value, dict) and "value" in value and isinstance(value.get("type"), str):
        value = value["value"]
    return result_text(value) or ""


def _message(message: Any) -> list[ChatMessage]:
    """Return one SDK prompt message as chat messages (a tool message per tool result)."""
    if not isinstance(message, dict) or not isinstance(message.get("role"), str):
        return []
    role, content = message["role"], message.get("content")
    if isinstance(content, str):
        return [ChatMessage(role=role, text=content)]
    parts = [p for p in content if isinstance(p, dict)] if isinstance(content, list) else []
    if role == "tool":
        return [
            ChatMessage(role="tool", text=_tool_output(_first(p, "output", "result")),
                        call_id=str(p["toolCallId"]) if p.get("toolCallId") is not None else None,
                        name=p.get("toolName") if isinstance(p.get("toolName"), str) else None)
            for p in parts if p.get("type") == "tool-result"
        ]
    text = "\n".join(p["text"] for p in parts
                     if p.get("type") == "text" and isinstance(p.get("text"), str) and p["text"])
    calls = tuple(c for c in (_asked(p) for p in parts if p.get("type") == "tool-call")
                  if c is not None)
    return [ChatMessage(role=role, text=text, calls=calls)]


def _model_call(span: Span, errors: Errors) -> ModelCall:
    attrs = span.attributes
    prompt = json_value(span, "ai.prompt.messages", errors)
    inputs = [m for item in (prompt if isinstance(prompt, list) else ()) for m in _message(item)]
    calls_value = json_value(span, "ai.response.toolCalls", errors)
    calls = tuple(c for c in map(_asked, calls_value if isinstance(calls_value, list) else ())
                  if c is not None)
    text = attrs.get("ai.response.text")
    outputs = [ChatMessage(role="assistant", text=text if isinstance(text, str) else "",
                           calls=calls)]
    tokens = token_counts([
        ("input", _first(attrs, "ai.usage.inputTokens", "ai.usage.promptTokens")),
        ("output", _first(attrs, "ai.usage.outputTokens", "ai.usage.completionTokens")),
    ])
    finish = attrs.get("ai.response.finishReason")
    provider = _first(attrs, "ai.model.provider", "gen_ai.system")
    model = _first(attrs, "ai.response.model", "ai.model.id")
    return ModelCall(
        span=span, inputs=inputs, outputs=outputs,
        finish_reason=str(finish) if finish is not None else None,
        provider=str(provider) if provider is not None else None,
        model=str(model) if model is not None else None, tokens=tokens,
    )


def _run(span: Span, errors: Errors) -> AgentRun:
    attrs = span.attributes
    prompt = json_value(span, "ai.prompt", errors)
    task: str | None = None
    if isinstance(prompt, dict):
        if isinstance(prompt.get("prompt"), str):
            task = prompt["prompt"]
        elif isinstance(prompt.get("messages"), list):
            users = [m for item in prompt["messages"] for m in _message(item) if m.role == "user"]
            task = next((m.text for m in users if m.text), None)
    elif isinstance(prompt, str):
        task = prompt
    answer = attrs.get("ai.response.text")
    name = _first(attrs, "ai.telemetry.functionId", "resource.name")
    return AgentRun(span=span, input=task, output=answer if isinstance(answer, str) else None,
                    name=str(name) if name is not None else None)


def _record(span: Span, errors: Errors) -> Record | None:
    op = span.attributes.get(OPERATION_KEY)
    if not isinstance(op, str):
        return None
    if op in _MODEL_OPERATIONS:
        return _model_call(span, errors)
    if op == _TOOL_OPERATION:
        attrs = span.attributes
        name, call_id = attrs.get("ai.toolCall.name"), attrs.get("ai.toolCall.id")
        return ToolRun(
            span=span, name=str(name) if name is not None else span.name,
            call_id=str(call_id) if call_id is not None else None,
            arguments=_first(attrs, "ai.toolCall.args", "ai.toolCall.input"),
            result=_first(attrs, "ai.toolCall.result", "ai.toolCall.output"),
            error=span_error(span),
        )
    if op in _RUN_OPERATIONS:
        return _run(span, errors)
    return None


def _definitions(spans: Sequence[Span]) -> list[dict[str, Any]]:
    from openeval.adapters.otel.dialects import parsed

    found: list[dict[str, Any]] = []
    for span in spans:
        tools = span.attributes.get("ai.prompt.tools")
        for item in tools if isinstance(tools, list) else ():
            definition = tool_definition(parsed(item))
            if definition is not None:
                found.append(definition)
    return unique_definitions(found)


def trace_of_vercel_ai(spans: list[Span], errors: Errors, task_id: str) -> AgentTrace:
    """Return the AgentTrace of one trace's AI SDK spans."""
    spans = sorted(spans, key=lambda s: (s.start_ns, s.span_id))
    records = [r for r in (_record(span, errors) for span in spans) if r is not None]
    return build(
        spans, records, errors, task_id, conventions=NAME,
        tool_definitions=_definitions(spans),
        what="no AI SDK span (ai.generateText, ai.toolCall ...)",
    )

