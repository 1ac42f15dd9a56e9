"""OpenTelemetry GenAI spans: OTLP/JSON files (or SDK spans) in, one AgentTrace out.

Reads what the OpenTelemetry SDK's OTLP exporters and the collector's file exporter write: one
``{"resourceSpans": [...]}`` document, or one such document per line (JSONL, also zstd).
:mod:`.otlp` decodes them into format-neutral :class:`Span` s; :mod:`.genai` maps the spans of
one trace onto an AgentTrace; :mod:`.adapter` is the format's adapter and entry point. A file
holding several traces (several ``traceId`` s) is not read as one: :func:`split_by_trace`
separates them. See ``proposals/0014-otel-adapter.md``.
"""

from __future__ import annotations

from openeval.adapters.otel.adapter import (
    ADAPTER,
    OtelAdapter,
    SpanGrouping,
    from_otel_spans,
    read_spans,
)
from openeval.adapters.otel.otlp import Span, SpanEvent, split_by_trace

__all__ = [
    "ADAPTER",
    "OtelAdapter",
    "Span",
    "SpanEvent",
    "SpanGrouping",
    "from_otel_spans",
    "read_spans",
    "split_by_trace",
]
