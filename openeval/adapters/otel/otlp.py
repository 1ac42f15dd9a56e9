"""OTLP span decoding: OTLP/JSON, protobuf's JSON mapping and SDK span objects, into one list.

Nothing here knows the GenAI conventions: a :class:`Span` is what OTLP says about a span
(ids as lowercase hex, times in nanoseconds, attributes as plain values), so the GenAI
mapping (:mod:`.genai`) and anything else that reads spans, such as trace checks, can build
on it. Decoding follows the OTLP/JSON rules: ids in hex (spec) or base64 (protobuf mapping),
64-bit integers as digit strings, enums as numbers or names.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from openeval.adapters._toolkit import Errors
from openeval.jsonio import json_kind

PAYLOAD_KEY = "resourceSpans"

_HEX = re.compile(r"[0-9a-fA-F]+")
_DIGITS = re.compile(r"[0-9]{1,20}")
_INT64 = re.compile(r"-?[0-9]{1,19}")

SPAN_KINDS = ("unspecified", "internal", "server", "client", "producer", "consumer")
"""OTLP's span kinds by enum number (``SPAN_KIND_INTERNAL`` is 1 ...)."""
_STATUS_CODES = {0: "unset", 1: "ok", 2: "error", "STATUS_CODE_UNSET": "unset",
                 "STATUS_CODE_OK": "ok", "STATUS_CODE_ERROR": "error"}


@dataclass(frozen=True)
class SpanEvent:
    """One event recorded on a span (an exception, a log line)."""

    name: str
    time_ns: int
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass
class Span:
    """One finished span, format-neutral: what the OTLP data model says about it."""

    trace_id: str
    """32 lowercase hex digits; ``""`` when the source gave none."""
    span_id: str
    """16 lowercase hex digits; ``""`` when the source gave none."""
    parent_id: str
    """The parent span's id; ``""`` for a root span."""
    name: str
    kind: str = "unspecified"
    """One of :data:`SPAN_KINDS`."""
    start_ns: int = 0
    end_ns: int = 0
    status: str = "unset"
    """``unset``, ``ok`` or ``error``."""
    status_message: str = ""
    attributes: dict[str, Any] = field(default_factory=dict)
    events: list[SpanEvent] = field(default_factory=list)
    resource: dict[str, Any] = field(default_factory=dict)
    """The attributes of the resource that produced the span (``service.name`` ...)."""
    where: str = ""
    """Where the span is in its source (a JSON path, ``line 3: ...``), for error messages."""

    @property
    def failed(self) -> bool:
        """True when the span ended with status ERROR."""
        return self.status == "error"


def split_by_trace(spans: Iterable[Span]) -> list[list[Span]]:
    """Return ``spans`` grouped by trace id, in the order each trace first appears.

    Spans without a trace id form one group of their own. Within a group the order is kept.
    """
    groups: dict[str, list[Span]] = {}
    for span in spans:
        groups.setdefault(span.trace_id, []).append(span)
    return list(groups.values())


# --- OTLP/JSON ----------------------------------------------------------------------------


def decode_id(value: Any, *, size: int, where: str, errors: Errors) -> str:
    """Return a trace/span id as lowercase hex; OTLP/JSON uses hex, proto-JSON uses base64."""
    if value is None or value == "":
        return ""
    if not isinstance(value, str):
        raise errors(f"expected a hex or base64 id string, got {json_kind(value)}", where)
    if len(value) == size * 2 and _HEX.fullmatch(value):
        return value.lower()
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != size:
        raise errors(
            f"expected an id of {size} bytes as {size * 2} hex digits or base64, "
            f"got {value[:40]!r}",
            where,
        )
    return raw.hex()


def _decode_nanos(value: Any, where: str, errors: Errors) -> int:
    if value is None:
        return 0
    if isinstance(value, str) and _DIGITS.fullmatch(value):
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**64:
        return value
    raise errors(
        f"expected nanoseconds as a digit string (unsigned 64-bit), got {json_kind(value)}", where
    )


def decode_any_value(value: Any, where: str, errors: Errors) -> Any:
    """Return the Python value of an OTLP ``AnyValue`` object (``{"stringValue": ...}`` ...)."""
    if not isinstance(value, dict):
        raise errors(f"expected an AnyValue object, got {json_kind(value)}", where)
    if not value:
        return None
    if len(value) != 1:
        raise errors(f"expected one value key, got {', '.join(sorted(value))}", where)
    ((key, inner),) = value.items()
    decoder = _VALUE_DECODERS.get(key)
    if decoder is None:
        raise errors(
            f"unknown value kind {key!r}; expected one of: {', '.join(sorted(_VALUE_DECODERS))}",
            where,
        )
    return decoder(inner, f"{where}.{key}", errors)


def _string_value(inner: Any, where: str, errors: Errors) -> Any:
    if not isinstance(inner, str):
        raise errors(f"expected a string, got {json_kind(inner)}", where)
    return inner


def _int_value(inner: Any, where: str, errors: Errors) -> Any:
    # int64 travels as a JSON string in OTLP/JSON; some writers emit a plain number.
    if isinstance(inner, str) and _INT64.fullmatch(inner):
        inner = int(inner)
    if isinstance(inner, int) and not isinstance(inner, bool) and -(2**63) <= inner < 2**63:
        return inner
    raise errors(f"expected a 64-bit integer (as a digit string), got {json_kind(inner)}", where)


def _double_value(inner: Any, where: str, errors: Errors) -> Any:
    if isinstance(inner, (int, float)) and not isinstance(inner, bool):
        return float(inner)
    if inner in ("NaN", "Infinity", "-Infinity"):
        # JSON has no non-finite numbers; keep them as text so the output stays valid JSON.
        return inner
    raise errors(f"expected a number, got {json_kind(inner)}", where)


def _bool_value(inner: Any, where: str, errors: Errors) -> Any:
    if not isinstance(inner, bool):
        raise errors(f"expected true or false, got {json_kind(inner)}", where)
    return inner


def _bytes_value(inner: Any, where: str, errors: Errors) -> Any:
    if not isinstance(inner, str):
        raise errors(f"expected base64 text, got {json_kind(inner)}", where)
    return inner


def _array_value(inner: Any, where: str, errors: Errors) -> Any:
    values = _list_field(inner, "values", where, errors)
    return [decode_any_value(item, f"{where}.values[{i}]", errors) for i, item in enumerate(values)]


def _kvlist_value(inner: Any, where: str, errors: Errors) -> Any:
    values = _list_field(inner, "values", where, errors)
    return decode_attributes(values, f"{where}.values", errors)


_VALUE_DECODERS = {
    "stringValue": _string_value,
    "intValue": _int_value,
    "doubleValue": _double_value,
    "boolValue": _bool_value,
    "bytesValue": _bytes_value,
    "arrayValue": _array_value,
    "kvlistValue": _kvlist_value,
}


def decode_attributes(items: Any, where: str, errors: Errors) -> dict[str, Any]:
    """Return an OTLP ``KeyValue`` list as a dict of plain values."""
    if items is None:
        return {}
    if not isinstance(items, list):
        raise errors(f"expected a list of key/value objects, got {json_kind(items)}", where)
    out: dict[str, Any] = {}
    for i, item in enumerate(items):
        here = f"{where}[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("key"), str):
            raise errors("expected an object with a string 'key'", here)
        out[item["key"]] = decode_any_value(item.get("value", {}), f"{here}.value", errors)
    return out


def _list_field(obj: Any, key: str, where: str, errors: Errors) -> list[Any]:
    if not isinstance(obj, dict):
        raise errors(f"expected a JSON object, got {json_kind(obj)}", where)
    value = obj.get(key, [])
    if not isinstance(value, list):
        raise errors(f"expected a list, got {json_kind(value)}", f"{where}.{key}")
    return value


def decode_resource_spans(payload: Any, prefix: str, errors: Errors) -> Iterator[Span]:
    """Yield the spans of one ``resourceSpans`` list; ``prefix`` locates it in its source."""
    if not isinstance(payload, list):
        raise errors(f"expected a list, got {json_kind(payload)}", f"{prefix}{PAYLOAD_KEY}")
    for r, resource_spans in enumerate(payload):
        r_where = f"{prefix}{PAYLOAD_KEY}[{r}]"
        if not isinstance(resource_spans, dict):
            raise errors(f"expected a JSON object, got {json_kind(resource_spans)}", r_where)
        resource = resource_spans.get("resource") or {}
        if not isinstance(resource, dict):
            raise errors("expected a JSON object", f"{r_where}.resource")
        resource_attrs = decode_attributes(
            resource.get("attributes"), f"{r_where}.resource.attributes", errors
        )
        for s, scope_spans in enumerate(_list_field(resource_spans, "scopeSpans", r_where, errors)):
            s_where = f"{r_where}.scopeSpans[{s}]"
            for k, raw in enumerate(_list_field(scope_spans, "spans", s_where, errors)):
                yield _decode_span(raw, f"{s_where}.spans[{k}]", resource_attrs, errors)


def _decode_kind(value: Any, where: str, errors: Errors) -> str:
    if value is None:
        return "unspecified"
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(SPAN_KINDS):
        return SPAN_KINDS[value]
    if isinstance(value, str) and value.startswith("SPAN_KIND_"):
        name = value.removeprefix("SPAN_KIND_").lower()
        if name in SPAN_KINDS:
            return name
    raise errors(f"expected a span kind 0-5 or SPAN_KIND_*, got {str(value)[:40]!r}", where)


def _decode_events(value: Any, where: str, errors: Errors) -> list[SpanEvent]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise errors(f"expected a list of events, got {json_kind(value)}", where)
    events = []
    for i, raw in enumerate(value):
        here = f"{where}[{i}]"
        if not isinstance(raw, dict):
            raise errors(f"expected an event object, got {json_kind(raw)}", here)
        name = raw.get("name", "")
        if not isinstance(name, str):
            raise errors(f"expected a string, got {json_kind(name)}", f"{here}.name")
        events.append(
            SpanEvent(
                name=name,
                time_ns=_decode_nanos(raw.get("timeUnixNano"), f"{here}.timeUnixNano", errors),
                attributes=decode_attributes(raw.get("attributes"), f"{here}.attributes", errors),
            )
        )
    return events


def _decode_span(raw: Any, where: str, resource: dict[str, Any], errors: Errors) -> Span:
    if not isinstance(raw, dict):
        raise errors(f"expected a span object, got {json_kind(raw)}", where)
    name = raw.get("name", "")
    if not isinstance(name, str):
        raise errors(f"expected a string, got {json_kind(name)}", f"{where}.name")
    status = raw.get("status") or {}
    if not isinstance(status, dict):
        raise errors(f"expected a JSON object, got {json_kind(status)}", f"{where}.status")
    code = status.get("code", 0)
    # OTLP/JSON writes the enum as a number (2); protobuf's JSON mapping writes its name.
    if isinstance(code, bool) or not isinstance(code, (int, str)) or code not in _STATUS_CODES:
        raise errors(
            f"expected a status code 0, 1, 2 or STATUS_CODE_*, got {str(code)[:40]!r}",
            f"{where}.status.code",
        )
    message = status.get("message", "")
    if not isinstance(message, str):
        raise errors(f"expected a string, got {json_kind(message)}", f"{where}.status.message")
    return Span(
        trace_id=decode_id(raw.get("traceId"), size=16, where=f"{where}.traceId", errors=errors),
        span_id=decode_id(raw.get("spanId"), size=8, where=f"{where}.spanId", errors=errors),
        parent_id=decode_id(
            raw.get("parentSpanId"), size=8, where=f"{where}.parentSpanId", errors=errors
        ),
        name=name,
        kind=_decode_kind(raw.get("kind"), f"{where}.kind", errors),
        start_ns=_decode_nanos(raw.get("startTimeUnixNano"), f"{where}.startTimeUnixNano", errors),
        end_ns=_decode_nanos(raw.get("endTimeUnixNano"), f"{where}.endTimeUnixNano", errors),
        status=_STATUS_CODES[code],
        status_message=message,
        attributes=decode_attributes(raw.get("attributes"), f"{where}.attributes", errors),
        events=_decode_events(raw.get("events"), f"{where}.events", errors),
        resource=resource,
        where=where,
    )


# --- SDK span objects ---------------------------------------------------------------------


def spans_of_sdk(spans: Iterable[Any], errors: Errors) -> list[Span]:
    """Return spans read off SDK ``ReadableSpan`` objects (duck-typed: no SDK import needed)."""
    out: list[Span] = []
    for i, span in enumerate(spans):
        where = f"spans[{i}]"
        context = getattr(span, "context", None)
        if context is None or not isinstance(getattr(context, "span_id", None), int):
            raise errors("expected a finished SDK span (ReadableSpan) with a context", where)
        parent = getattr(span, "parent", None)
        status = getattr(span, "status", None)
        code = str(getattr(getattr(status, "status_code", None), "name", "UNSET")).lower()
        kind = str(getattr(getattr(span, "kind", None), "name", "unspecified")).lower()
        resource = getattr(getattr(span, "resource", None), "attributes", None) or {}
        out.append(
            Span(
                trace_id=f"{context.trace_id:032x}",
                span_id=f"{context.span_id:016x}",
                parent_id=f"{parent.span_id:016x}" if parent is not None else "",
                name=str(getattr(span, "name", "")),
                kind=kind if kind in SPAN_KINDS else "unspecified",
                start_ns=int(getattr(span, "start_time", None) or 0),
                end_ns=int(getattr(span, "end_time", None) or 0),
                status=code if code in ("unset", "ok", "error") else "unset",
                status_message=str(getattr(status, "description", None) or ""),
                attributes=_plain_attributes(getattr(span, "attributes", None)),
                events=[
                    SpanEvent(
                        name=str(getattr(event, "name", "")),
                        time_ns=int(getattr(event, "timestamp", None) or 0),
                        attributes=_plain_attributes(getattr(event, "attributes", None)),
                    )
                    for event in getattr(span, "events", None) or ()
                ],
                resource=_plain_attributes(resource),
                where=where,
            )
        )
    return out


def _plain_attributes(attributes: Any) -> dict[str, Any]:
    return {str(k): _plain(v) for k, v in dict(attributes or {}).items()}


def _plain(value: Any) -> Any:
    """Return an SDK attribute value as a JSON value (tuples become lists)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value
