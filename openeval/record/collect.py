"""Spans in, finished traces out: the bookkeeping of ``openeval record``, with no I/O.

An OTLP exporter sends spans in batches, a trace's spans spread over several of them and
several traces mixed in one. :class:`TraceCollector` keeps the spans of each trace id until the
trace is finished: its root span (one with no parent) has arrived and no new span of it has
come for ``settle_seconds`` (an exporter sends a trace's children before its root, since they
end first, but a second process of the same trace may be a batch late). :meth:`finished`
hands back those traces, each as one OTLP JSON document a suite reads as a trace file;
:meth:`drain` hands back everything left when the receiver stops, roots or not.

Ids are kept as lowercase hex, as OTLP JSON writes them (the protobuf JSON mapping gives
base64); the documents keep each span under its own resource and scope.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from openeval.errors import OpenEvalError

MAX_OPEN_SPANS = 200_000
"""Most spans held at once; beyond it the oldest traces are handed back early (a misbehaving
client must not grow the receiver without bound)."""


@dataclass
class _Pending:
    spans: list[tuple[str, str, dict[str, Any], dict[str, Any], dict[str, Any]]] = field(
        default_factory=list)
    """``(resource key, scope key, resource, scope, span)`` for each span, in arrival order."""
    rooted: bool = False
    last_seen: float = 0.0


@dataclass(frozen=True)
class FinishedTrace:
    """One trace, ready to write."""

    trace_id: str
    document: dict[str, Any]
    """``{"resourceSpans": [...]}``: the trace's spans as one OTLP JSON export."""
    span_count: int
    rooted: bool
    """False when the receiver stopped before the trace's root span came."""


def hex_id(value: Any, size: int, where: str) -> str:
    """Return an OTLP id as lowercase hex (given as hex, or as base64 by the protobuf mapping)."""
    if not isinstance(value, str):
        raise OpenEvalError(f"expected an id string, got {type(value).__name__}", location=where)
    if len(value) == size * 2:
        try:
            bytes.fromhex(value)
            return value.lower()
        except ValueError:
            pass
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != size:
        raise OpenEvalError(f"expected a {size}-byte id as hex or base64, got {value[:40]!r}",
                            location=where)
    return raw.hex()


def _key(obj: Any) -> str:
    from openeval.jsonio import dump_json_compact

    return dump_json_compact(obj if isinstance(obj, dict) else {})


class TraceCollector:
    """The spans received so far, by trace id; see the module docstring."""

    def __init__(self, settle_seconds: float = 1.0) -> None:
        self.settle_seconds = settle_seconds
        self._pending: dict[str, _Pending] = {}
        self._open_spans = 0

    @property
    def open_traces(self) -> int:
        """How many traces are waiting to finish."""
        return len(self._pending)

    def add(self, payload: Any, now: float) -> int:
        """Take one export request (OTLP JSON, already parsed); return how many spans it held.

        Raises OpenEvalError naming the JSON path of anything that is not OTLP trace data.
        """
        if not isinstance(payload, dict):
            raise OpenEvalError("expected an OTLP export request (a JSON object with "
                                "'resourceSpans')", location="$")
        count = 0
        for r, resource_spans in enumerate(_items(payload, "resourceSpans", "$")):
            where_r = f"resourceSpans[{r}]"
            resource = resource_spans.get("resource") or {}
            for s, scope_spans in enumerate(_items(resource_spans, "scopeSpans", where_r)):
                where_s = f"{where_r}.scopeSpans[{s}]"
                scope = scope_spans.get("scope") or {}
                for i, span in enumerate(_items(scope_spans, "spans", where_s)):
                    self._add_span(resource, scope, span, f"{where_s}.spans[{i}]", now)
                    count += 1
        return count

    def _add_span(self, resource: Any, scope: Any, span: dict[str, Any], where: str,
                  now: float) -> None:
        trace_id = hex_id(span.get("traceId"), 16, f"{where}.traceId")
        span = dict(span)
        span["traceId"] = trace_id
        span["spanId"] = hex_id(span.get("spanId"), 8, f"{where}.spanId")
        parent = span.get("parentSpanId") or ""
        span["parentSpanId"] = hex_id(parent, 8, f"{where}.parentSpanId") if parent else ""
        pending = self._pending.setdefault(trace_id, _Pending())
        pending.spans.append((_key(resource), _key(scope), resource, scope, span))
        pending.rooted = pending.rooted or not parent
        pending.last_seen = now
        self._open_spans += 1

    def finished(self, now: float) -> Iterator[FinishedTrace]:
        """Hand back (and forget) every rooted trace that has settled, oldest first, and the
        oldest traces beyond :data:`MAX_OPEN_SPANS`."""
        done = [tid for tid, p in self._pending.items()
                if p.rooted and now - p.last_seen >= self.settle_seconds]
        for trace_id in done:
            yield self._pop(trace_id)
        while self._open_spans > MAX_OPEN_SPANS and self._pending:
            yield self._pop(next(iter(self._pending)))

    def drain(self) -> Iterator[FinishedTrace]:
        """Hand back every trace still held, in arrival order (the receiver is stopping)."""
        while self._pending:
            yield self._pop(next(iter(self._pending)))

    def _pop(self, trace_id: str) -> FinishedTrace:
        pending = self._pending.pop(trace_id)
        self._open_spans -= len(pending.spans)
        return FinishedTrace(trace_id, _document(pending), len(pending.spans), pending.rooted)


def _items(obj: dict[str, Any], key: str, where: str) -> list[dict[str, Any]]:
    value = obj.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raise OpenEvalError(f"expected a list of JSON objects under {key!r}", location=where)
    return value


def _document(pending: _Pending) -> dict[str, Any]:
    """Group a trace's spans back under their resource and scope, in first-seen order."""
    resources: dict[str, tuple[Any, dict[str, tuple[Any, list[dict[str, Any]]]]]] = {}
    for resource_key, scope_key, resource, scope, span in pending.spans:
        _, scopes = resources.setdefault(resource_key, (resource, {}))
        scopes.setdefault(scope_key, (scope, []))[1].append(span)
    return {"resourceSpans": [
        {"resource": resource,
         "scopeSpans": [{"scope": scope, "spans": spans} for scope, spans in scopes.values()]}
        for resource, scopes in resources.values()
    ]}
