"""The ``otel`` format: reading OTLP/JSON files, their envelope, and their traces by id.

:mod:`.otlp` decodes spans; the conventions modules (:mod:`.genai`) map one trace's spans onto
an AgentTrace. Here: the adapter (detection, one-trace files), the Python entry point, and the
grouping that lets a file of many traces be read trace by trace (by ``traceId``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from openeval.adapters._toolkit import Errors, task_id_from_path
from openeval.adapters.base import (
    TraceSource,
    apply_envelope,
    item_count_note,
    split_envelope,
)
from openeval.adapters.otel.chats import PARENT_SPAN_HINT, all_single_chats, one_conversation
from openeval.adapters.otel.conventions import trace_of
from openeval.adapters.otel.otlp import (
    PAYLOAD_KEY,
    Span,
    decode_id,
    decode_resource_spans,
    spans_of_sdk,
    split_by_trace,
)
from openeval.errors import TraceFormatError
from openeval.models import AgentTrace

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
    """Return ``spans`` when they belong to one trace, or are one conversation recorded one
    trace per chat call; else raise naming how many traces they hold and what to do."""
    traces = split_by_trace(spans)
    if len(traces) <= 1:
        return spans
    errors = Errors(source)
    if one_conversation(traces, errors):
        return spans
    ids = ", ".join(group[0].trace_id or "(none)" for group in traces[:3])
    more = ", ..." if len(traces) > 3 else ""
    if all_single_chats(traces):
        hint = (f"each is one chat call and they are not one conversation: {PARENT_SPAN_HINT}, "
                f"or {hint}")
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
    initial_state: dict[str, Any] | None = None,
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
        trace = trace_of(decoded, errors, DEFAULT_TASK_ID)
    given = {
        "task_id": task_id, "input": input, "final_output": final_output,
        "actual_state": actual_state, "metadata": metadata, "initial_state": initial_state,
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
        trace = trace_of(spans, Errors(source.path), task_id_from_path(source.path))
        return apply_envelope(trace, overrides, source.path)


    def grouping(self, source: TraceSource, whole: bool) -> SpanGrouping:
        """Spans belong to traces by ``traceId``, in a document and across lines alike."""
        return SpanGrouping()


ADAPTER = OtelAdapter()


class SpanGrouping:
    """OTel spans, grouped by ``traceId``; a trace's root span has no parent."""

    item = "span"
    key_field = "traceId"

    def keys(self, value: Any) -> list[str]:
        """Return the trace id of each span a parsed line holds, skipping what is broken."""
        found: list[str] = []
        resources = value.get(PAYLOAD_KEY) if isinstance(value, dict) else None
        for resource in resources if isinstance(resources, list) else ():
            scopes = resource.get("scopeSpans") if isinstance(resource, dict) else None
            for scope in scopes if isinstance(scopes, list) else ():
                spans = scope.get("spans") if isinstance(scope, dict) else None
                for span in spans if isinstance(spans, list) else ():
                    key = _trace_key(span.get("traceId") if isinstance(span, dict) else None)
                    if key is not None:
                        found.append(key)
        return found

    def items(self, source: TraceSource, line_no: int) -> list[tuple[str, Any]]:
        """Return ``(traceId, span)`` for each span of one line, or of the whole document."""
        if not line_no:
            spans, _ = read_spans(source)
            return [(s.trace_id, s) for s in spans]
        value = source.document()
        errors = Errors(source.path)
        if not isinstance(value, dict) or PAYLOAD_KEY not in value:
            raise errors(f"expected a JSON object with a {PAYLOAD_KEY!r} list")
        return [(s.trace_id, s) for s in decode_resource_spans(value[PAYLOAD_KEY], "", errors)]

    def finish(
        self, key: str, items: list[tuple[int, Any]], file: str
    ) -> tuple[AgentTrace, str]:
        """Return the trace of one trace id's spans; refuse a trace whose root is missing."""
        spans = [span for _, span in items]
        if not any(not span.parent_id for span in spans):
            raise TraceFormatError(
                f"no root span among its {item_count_note(items, 'span')} (each names a "
                "parent): its root span was never exported, so the trace is incomplete and "
                "is not scored")
        return trace_of(spans, Errors(file), key), key


def _trace_key(raw: Any) -> str | None:
    try:
        return decode_id(raw, size=16, where="traceId", errors=Errors(None))
    except TraceFormatError:
        return None
