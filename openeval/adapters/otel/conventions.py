"""Which conventions one trace's spans follow, and the reader of each.

An OTLP file says nothing about the conventions of its spans; their attributes do. Each family
is recognised by a key only it writes (``openinference.span.kind``, the AI SDK's
``ai.operationId``, ``langfuse.observation.type``); spans carrying none of them are read as
OpenTelemetry GenAI spans (:mod:`.genai`), which also covers the GenAI dialects of Strands,
Google ADK, Pydantic AI and MCP. A family is one entry below.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from openeval.adapters._toolkit import Errors
from openeval.adapters.otel.otlp import Span
from openeval.models import AgentTrace

Reader = Callable[[list[Span], Errors, str], AgentTrace]


def _openinference() -> tuple[Callable[[Sequence[Span]], bool], Reader]:
    from openeval.adapters.otel import openinference

    return openinference.holds, openinference.trace_of_openinference


def _vercel_ai() -> tuple[Callable[[Sequence[Span]], bool], Reader]:
    from openeval.adapters.otel import vercel

    return vercel.holds, vercel.trace_of_vercel_ai


def _langfuse() -> tuple[Callable[[Sequence[Span]], bool], Reader]:
    from openeval.adapters.otel import langfuse

    return langfuse.holds, langfuse.trace_of_langfuse


_FAMILIES: tuple[Callable[[], tuple[Callable[[Sequence[Span]], bool], Reader]], ...] = (
    _openinference,
    _vercel_ai,
    _langfuse,
)


def trace_of(spans: list[Span], errors: Errors, task_id: str) -> AgentTrace:
    """Return the AgentTrace of one trace's spans, read by the conventions they follow."""
    for family in _FAMILIES:
        holds, read = family()
        if holds(spans):
            return read(spans, errors, task_id)
    from openeval.adapters.otel.dialects import lift
    from openeval.adapters.otel.genai import trace_of_spans

    return trace_of_spans(lift(spans), errors, task_id)
