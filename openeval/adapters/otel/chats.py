"""One run recorded as one trace per chat call: when the traces of a file are one conversation.

An agent loop that opens no span of its own, under an instrumentation that records each model
call (the official OpenAI one does), exports one trace per chat call. Such a file is one run
when every trace is a single model call and each call's input messages begin with the
previous call's input and output (the conversation grows, it does not restart); then its
traces are read together. Anything else stays several traces, and the refusal says how to
record the loop as one. See ``proposals/0130-otel-conventions.md``.
"""

from __future__ import annotations

from typing import Any

from openeval.adapters._toolkit import Errors
from openeval.adapters.otel.genai import MODEL_OPERATIONS, messages_of, operation
from openeval.adapters.otel.otlp import Span

PARENT_SPAN_HINT = (
    "record the agent loop under one parent span (for example "
    "tracer.start_as_current_span(\"invoke_agent <agent name>\")) so each run is one trace"
)
"""What to do when a file's traces are single chat calls that are not one conversation."""


def _model_span(group: list[Span]) -> Span | None:
    """Return the one GenAI span of a trace when it is a model call, else None."""
    genai = [s for s in group if "gen_ai.operation.name" in s.attributes]
    if len(genai) == 1 and operation(genai[0]) in MODEL_OPERATIONS:
        return genai[0]
    return None


def _shape(message: dict[str, Any]) -> Any:
    """Return what identifies a message across calls: its role and parts, without the
    fields an instrumentation may add or drop between calls (finish reasons)."""
    parts = message.get("parts")
    return (message.get("role"), repr(parts) if isinstance(parts, list)
            else repr(message.get("content")))


def all_single_chats(groups: list[list[Span]]) -> bool:
    """Return True when every trace is one model call (and nothing else of GenAI)."""
    return bool(groups) and all(_model_span(g) is not None for g in groups)


def one_conversation(groups: list[list[Span]], errors: Errors) -> bool:
    """Return True when the single-chat traces are the successive calls of one conversation."""
    spans = [_model_span(g) for g in groups]
    if len(groups) < 2 or any(s is None for s in spans):
        return False
    calls = sorted((s for s in spans if s is not None), key=lambda s: (s.start_ns, s.span_id))
    before: list[Any] = []
    for span in calls:
        inputs = [_shape(m) for m in messages_of(span, "gen_ai.input.messages", errors)]
        outputs = [_shape(m) for m in messages_of(span, "gen_ai.output.messages", errors)]
        if not inputs or inputs[:len(before)] != before:
            return False
        before = inputs + outputs
    return True
