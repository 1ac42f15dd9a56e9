"""OpenTelemetry GenAI spans: OTLP/JSON files (or SDK spans) in, one AgentTrace out.

Reads what the OpenTelemetry SDK's OTLP exporters and the collector's file exporter write: one
``{"resourceSpans": [...]}`` document, or one such document per line (JSONL, also zstd).
:mod:`.otlp` decodes them into format-neutral :class:`Span` s; :mod:`.genai` maps the spans of
one trace onto an AgentTrace. A file holding several traces (several ``traceId`` s) is not read
as one: :func:`split_by_trace` separates them. See ``proposals/0014-otel-adapter.md``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from openeval.adapters._toolkit import Errors, task_id_from_path
from openeval.adapters.base import TraceSource, apply_envelope, split_envelope
from openeval.adapters.otel.genai import trace_of_spans
from openeval.adapters.otel.otlp import (
    PAYLOAD_KEY,
    Span,
    SpanEvent,
    decode_resource_spans,
    spans_of_sdk,
    split_by_trace,
)
from openeval.errors import TraceFormatError
from openeval.models import AgentTrace

__all__ = [
    "ADAPTER",
    "OtelAdapter",
    "Span",
    "SpanEvent",
    "from_otel_spans",
    "read_spans",
    "split_by_trace",
]

DEFAULT_TASK_ID = "otel"
"""Task id of a trace built from Python objects when none is given."""


def read_spans(source: TraceSource) -> tuple[list[Span], dict[str, Any]]:
    """Return every span in ``source`` and the envelope fields of a wrapped document.

    Raises TraceFormatError naming the JSON path (and line, for JSONL) of anything malformed.
    """
    errors = Errors(source.path)
    document = source.document_or_none()
    if document is not None:
        payload, overrides = _payload(document, errors)
        return list(decode_resource_spans(payload, "", errors)), overrides
    spans: list[Span] = []
    for line_no, value in source.json_lines():
        if not isinstance(value, dict) or PAYLOAD_KEY not in value:
            raise errors(
                f"expected a JSON object with a {PAYLOAD_KEY!r} list on each line",
                f"line {line_no}",
            )
        spans.extend(decode_resource_spans(value[PAYLOAD_KEY], f"line {line_no}: ", errors))
    return spans, {}


def _payload(document: Any, errors: Errors) -> tuple[Any, dict[str, Any]]:
    """Return ``(resourceSpans, envelope overrides)`` of a whole-file document."""
    if not isinstance(document, dict) or PAYLOAD_KEY not in document:
        raise errors(f"expected a JSON object with a {PAYLOAD_KEY!r} list", PAYLOAD_KEY)
    payload, overrides = split_envelope(document, PAYLOAD_KEY)
    if payload is document:  # extra keys beside the payload: a plain OTLP document
        return document[PAYLOAD_KEY], {}
    return payload, overrides


def _one_trace(spans: list[Span], source: Path | str | None, hint: str) -> list[Span]:
    """Return ``spans`` when they belong to one trace; else raise naming how many they hold."""
    traces = split_by_trace(spans)
    if len(traces) <= 1:
        return spans
    ids = ", ".join(group[0].trace_id or "(none)" for group in traces[:3])
    more = ", ..." if len(traces) > 3 else ""
    raise TraceFormatError(
        f"holds {len(traces)} traces (trace ids {ids}{more}), expected one; {hint}",
        source=source,
    )


_FILE_HINT = "score each trace of a file with `openeval score`"
_SPANS_HINT = "split them with openeval.adapters.otel.split_by_trace and read each group"


def from_otel_spans(
    spans: Mapping[str, Any] | str | os.PathLike[str] | Iterable[Any],
    *,
    task_id: str | None = None,
    input: str | None = None,
    final_output: str | None = None,
    actual_state: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
) -> AgentTrace:
    """Return the AgentTrace of the OpenTelemetry GenAI spans of one trace.

    ``spans`` is one of: a path (``str`` or ``Path``) to an OTLP/JSON file or JSONL of such
    documents; a parsed OTLP/JSON document (``{"resourceSpans": [...]}``, optionally wrapped with
    ``task_id`` / ``actual_state`` ...); an iterable of finished SDK spans (``ReadableSpan``,
    e.g. from ``InMemorySpanExporter.get_finished_spans()``, read by attribute so the SDK need
    not be importable); or decoded :class:`Span` s. ``task_id`` defaults to the file name, the
    envelope's, or ``"otel"``; the other keywords, when given, replace what the spans say
    (``metadata`` is merged). Raises TraceFormatError naming the JSON path (and line, for
    JSONL) of anything malformed, and when the spans belong to more than one trace.
    """
    if isinstance(spans, (str, os.PathLike)):
        trace = ADAPTER.load(TraceSource(Path(spans)))
        overrides: dict[str, Any] = {}
    else:
        errors = Errors(None)
        if isinstance(spans, Mapping):
            payload, overrides = _payload(dict(spans), errors)
            decoded = list(decode_resource_spans(payload, "", errors))
        else:
            items = list(spans)
            decoded = (
                items if all(isinstance(s, Span) for s in items) else spans_of_sdk(items, errors)
            )
            overrides = {}
        decoded = _one_trace(decoded, None, _SPANS_HINT)
        trace = trace_of_spans(decoded, errors, DEFAULT_TASK_ID)
    given = {
        "task_id": task_id, "input": input, "final_output": final_output,
        "actual_state": actual_state, "metadata": metadata,
    }
    overrides.update({key: value for key, value in given.items() if value is not None})
    return apply_envelope(trace, overrides, "<spans>")


class OtelAdapter:
    """Reads OTLP/JSON span files that follow the OpenTelemetry GenAI conventions."""

    name = "otel"
    description = "OpenTelemetry GenAI spans as OTLP/JSON (collector file exporter, JSONL too)"

    def refusal(self, source: TraceSource) -> str | None:
        """Return None for a document (or first JSON line) with ``resourceSpans``, else why not."""
        document = source.document_or_none()
        if document is None:
            document = source.first_json_line()
        if not isinstance(document, dict):
            return "not a JSON object"
        if not isinstance(document.get(PAYLOAD_KEY), list):
            return f"no {PAYLOAD_KEY!r} list"
        return None

    def load(self, source: TraceSource) -> AgentTrace:
        """Return the trace in ``source``; raise TraceFormatError naming the place if broken,
        or naming how many traces the file holds when it holds more than one."""
        spans, overrides = read_spans(source)
        spans = _one_trace(spans, source.path, _FILE_HINT)
        trace = trace_of_spans(spans, Errors(source.path), task_id_from_path(source.path))
        return apply_envelope(trace, overrides, source.path)


ADAPTER = OtelAdapter()
