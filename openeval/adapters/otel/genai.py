"""OpenTelemetry GenAI spans: OTLP/JSON files (or SDK spans) in, one AgentTrace out.

Reads what the OpenTelemetry SDK's OTLP exporters and the collector's file exporter write: one
``{"resourceSpans": [...]}`` document, or one such document per line (JSONL, also zstd). Spans
follow the GenAI semantic conventions: ``execute_tool`` spans become ``tool_call`` steps,
``chat`` (and ``text_completion`` / ``generate_content``) spans become ``thought`` steps, and
``invoke_agent`` spans give the task input, the final output and the agent name. Other spans are
not agent steps and are dropped. The mapping and its judgement calls are in
``proposals/0014-otel-adapter.md``.
"""

from __future__ import annotations

import base64
import binascii
import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson

from openeval.adapters.base import TraceSource, apply_envelope, split_envelope
from openeval.adapters.tool_args import parse_tool_args
from openeval.errors import TraceFormatError
from openeval.jsonio import dump_json_compact, json_kind
from openeval.models import AgentTrace, TraceStep

PAYLOAD_KEY = "resourceSpans"

_MODEL_OPERATIONS = frozenset({"chat", "text_completion", "generate_content"})
_AGENT_OPERATION = "invoke_agent"
_TOOL_OPERATION = "execute_tool"
_HEX = re.compile(r"[0-9a-fA-F]+")


@dataclass
class _Span:
    """One span, decoded from OTLP/JSON or read off an SDK span; ids are lowercase hex."""

    name: str
    trace_id: str
    span_id: str
    parent_id: str
    start_ns: int
    end_ns: int
    attrs: dict[str, Any]
    failed: bool
    status_message: str
    resource: dict[str, Any]
    where: str
    """JSON path of the span in its file, for error messages."""

    @property
    def operation(self) -> str:
        op = self.attrs.get("gen_ai.operation.name")
        if isinstance(op, str) and op:
            return op
        # Instrumentations that predate the attribute still name spans "<operation> <target>".
        return self.name.split(" ", 1)[0]


@dataclass
class _Reader:
    """Turns decoded spans into steps; holds what later spans need from earlier ones."""

    path: Path | None
    steps: list[TraceStep] = field(default_factory=list)
    requested: dict[str, Any] = field(default_factory=dict)
    """Tool-call arguments the model asked for, by call id (fills opt-in content gaps)."""
    responses: dict[str, Any] = field(default_factory=dict)
    """Tool results sent back to the model, by call id."""

    def fail(self, message: str, where: str) -> TraceFormatError:
        return TraceFormatError(message, source=self.path, location=where)


# --------------------------------------------------------------------------- OTLP/JSON decoding


def _decode_id(value: Any, *, size: int, where: str, reader: _Reader) -> str:
    """Return a trace/span id as lowercase hex; OTLP/JSON uses hex, proto-JSON uses base64."""
    if value is None or value == "":
        return ""
    if not isinstance(value, str):
        raise reader.fail(f"expected a hex or base64 id string, got {json_kind(value)}", where)
    if len(value) == size * 2 and _HEX.fullmatch(value):
        return value.lower()
    try:
        raw = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if len(raw) != size:
        raise reader.fail(
            f"expected an id of {size} bytes as {size * 2} hex digits or base64, "
            f"got {value[:40]!r}",
            where,
        )
    return raw.hex()


def _decode_nanos(value: Any, where: str, reader: _Reader) -> int:
    if value is None:
        return 0
    if isinstance(value, str) and re.fullmatch(r"[0-9]{1,20}", value):
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**64:
        return value
    raise reader.fail(
        f"expected nanoseconds as a digit string (unsigned 64-bit), got {json_kind(value)}", where
    )


def _decode_any_value(value: Any, where: str, reader: _Reader) -> Any:
    """Return the Python value of an OTLP ``AnyValue`` object (``{"stringValue": ...}`` ...)."""
    if not isinstance(value, dict):
        raise reader.fail(f"expected an AnyValue object, got {json_kind(value)}", where)
    if not value:
        return None
    if len(value) != 1:
        raise reader.fail(f"expected one value key, got {', '.join(sorted(value))}", where)
    (key, inner), = value.items()
    decoder = _VALUE_DECODERS.get(key)
    if decoder is None:
        raise reader.fail(
            f"unknown value kind {key!r}; expected one of: {', '.join(sorted(_VALUE_DECODERS))}",
            where,
        )
    return decoder(inner, f"{where}.{key}", reader)


def _string_value(inner: Any, where: str, reader: _Reader) -> Any:
    if not isinstance(inner, str):
        raise reader.fail(f"expected a string, got {json_kind(inner)}", where)
    return inner


def _int_value(inner: Any, where: str, reader: _Reader) -> Any:
    # int64 travels as a JSON string in OTLP/JSON; some writers emit a plain number.
    if isinstance(inner, str) and re.fullmatch(r"-?[0-9]{1,19}", inner):
        inner = int(inner)
    if isinstance(inner, int) and not isinstance(inner, bool) and -(2**63) <= inner < 2**63:
        return inner
    raise reader.fail(
        f"expected a 64-bit integer (as a digit string), got {json_kind(inner)}", where
    )


def _double_value(inner: Any, where: str, reader: _Reader) -> Any:
    if isinstance(inner, (int, float)) and not isinstance(inner, bool):
        return float(inner)
    if inner in ("NaN", "Infinity", "-Infinity"):
        # JSON has no non-finite numbers; keep them as text so the output stays valid JSON.
        return inner
    raise reader.fail(f"expected a number, got {json_kind(inner)}", where)


def _bool_value(inner: Any, where: str, reader: _Reader) -> Any:
    if not isinstance(inner, bool):
        raise reader.fail(f"expected true or false, got {json_kind(inner)}", where)
    return inner


def _bytes_value(inner: Any, where: str, reader: _Reader) -> Any:
    if not isinstance(inner, str):
        raise reader.fail(f"expected base64 text, got {json_kind(inner)}", where)
    return inner


def _array_value(inner: Any, where: str, reader: _Reader) -> Any:
    values = _list_field(inner, "values", where, reader)
    return [
        _decode_any_value(item, f"{where}.values[{i}]", reader) for i, item in enumerate(values)
    ]


def _kvlist_value(inner: Any, where: str, reader: _Reader) -> Any:
    values = _list_field(inner, "values", where, reader)
    return _decode_attributes(values, f"{where}.values", reader)


_VALUE_DECODERS = {
    "stringValue": _string_value,
    "intValue": _int_value,
    "doubleValue": _double_value,
    "boolValue": _bool_value,
    "bytesValue": _bytes_value,
    "arrayValue": _array_value,
    "kvlistValue": _kvlist_value,
}


def _decode_attributes(items: Any, where: str, reader: _Reader) -> dict[str, Any]:
    if items is None:
        return {}
    if not isinstance(items, list):
        raise reader.fail(f"expected a list of key/value objects, got {json_kind(items)}", where)
    out: dict[str, Any] = {}
    for i, item in enumerate(items):
        here = f"{where}[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("key"), str):
            raise reader.fail("expected an object with a string 'key'", here)
        out[item["key"]] = _decode_any_value(item.get("value", {}), f"{here}.value", reader)
    return out


def _list_field(obj: Any, key: str, where: str, reader: _Reader) -> list[Any]:
    if not isinstance(obj, dict):
        raise reader.fail(f"expected a JSON object, got {json_kind(obj)}", where)
    value = obj.get(key, [])
    if not isinstance(value, list):
        raise reader.fail(f"expected a list, got {json_kind(value)}", f"{where}.{key}")
    return value


def _spans_of_document(payload: Any, prefix: str, reader: _Reader) -> list[_Span]:
    """Return the spans of one ``resourceSpans`` list; ``prefix`` locates it in the file."""
    if not isinstance(payload, list):
        raise reader.fail(f"expected a list, got {json_kind(payload)}", f"{prefix}{PAYLOAD_KEY}")
    spans: list[_Span] = []
    for r, resource_spans in enumerate(payload):
        r_where = f"{prefix}{PAYLOAD_KEY}[{r}]"
        if not isinstance(resource_spans, dict):
            raise reader.fail(f"expected a JSON object, got {json_kind(resource_spans)}", r_where)
        resource = resource_spans.get("resource") or {}
        if not isinstance(resource, dict):
            raise reader.fail("expected a JSON object", f"{r_where}.resource")
        resource_attrs = _decode_attributes(
            resource.get("attributes"), f"{r_where}.resource.attributes", reader
        )
        for s, scope_spans in enumerate(_list_field(resource_spans, "scopeSpans", r_where, reader)):
            s_where = f"{r_where}.scopeSpans[{s}]"
            for k, raw in enumerate(_list_field(scope_spans, "spans", s_where, reader)):
                spans.append(_decode_span(raw, f"{s_where}.spans[{k}]", resource_attrs, reader))
    return spans


def _decode_span(raw: Any, where: str, resource: dict[str, Any], reader: _Reader) -> _Span:
    if not isinstance(raw, dict):
        raise reader.fail(f"expected a span object, got {json_kind(raw)}", where)
    name = raw.get("name", "")
    if not isinstance(name, str):
        raise reader.fail(f"expected a string, got {json_kind(name)}", f"{where}.name")
    status = raw.get("status") or {}
    if not isinstance(status, dict):
        raise reader.fail(f"expected a JSON object, got {json_kind(status)}", f"{where}.status")
    code = status.get("code", 0)
    # OTLP/JSON writes the enum as a number (2); protobuf's JSON mapping writes its name.
    if code not in (0, 1, 2, "STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR"):
        raise reader.fail(
            f"expected a status code 0, 1, 2 or STATUS_CODE_*, got {str(code)[:40]!r}",
            f"{where}.status.code",
        )
    message = status.get("message", "")
    if not isinstance(message, str):
        raise reader.fail(f"expected a string, got {json_kind(message)}", f"{where}.status.message")
    return _Span(
        name=name,
        trace_id=_decode_id(raw.get("traceId"), size=16, where=f"{where}.traceId", reader=reader),
        span_id=_decode_id(raw.get("spanId"), size=8, where=f"{where}.spanId", reader=reader),
        parent_id=_decode_id(
            raw.get("parentSpanId"), size=8, where=f"{where}.parentSpanId", reader=reader
        ),
        start_ns=_decode_nanos(raw.get("startTimeUnixNano"), f"{where}.startTimeUnixNano", reader),
        end_ns=_decode_nanos(raw.get("endTimeUnixNano"), f"{where}.endTimeUnixNano", reader),
        attrs=_decode_attributes(raw.get("attributes"), f"{where}.attributes", reader),
        failed=code in (2, "STATUS_CODE_ERROR"),
        status_message=message,
        resource=resource,
        where=where,
    )


def _spans_of_sdk(spans: Iterable[Any], reader: _Reader) -> list[_Span]:
    """Return spans read off SDK ``ReadableSpan`` objects (duck-typed: no SDK import needed)."""
    out: list[_Span] = []
    for i, span in enumerate(spans):
        where = f"spans[{i}]"
        context = getattr(span, "context", None)
        if context is None or not isinstance(getattr(context, "span_id", None), int):
            raise reader.fail("expected a finished SDK span (ReadableSpan) with a context", where)
        parent = getattr(span, "parent", None)
        status = getattr(span, "status", None)
        code = getattr(getattr(status, "status_code", None), "name", "UNSET")
        resource = getattr(getattr(span, "resource", None), "attributes", None) or {}
        out.append(
            _Span(
                name=str(getattr(span, "name", "")),
                trace_id=f"{context.trace_id:032x}",
                span_id=f"{context.span_id:016x}",
                parent_id=f"{parent.span_id:016x}" if parent is not None else "",
                start_ns=int(getattr(span, "start_time", None) or 0),
                end_ns=int(getattr(span, "end_time", None) or 0),
                attrs={k: _plain(v) for k, v in (getattr(span, "attributes", None) or {}).items()},
                failed=code == "ERROR",
                status_message=str(getattr(status, "description", None) or ""),
                resource={k: _plain(v) for k, v in dict(resource).items()},
                where=where,
            )
        )
    return out


def _plain(value: Any) -> Any:
    """Return an SDK attribute value as a JSON value (tuples become lists)."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


# --------------------------------------------------------------------------- GenAI mapping


def _messages(span: _Span, key: str, reader: _Reader) -> list[dict[str, Any]]:
    """Return the GenAI messages in attribute ``key`` (JSON text or structured), [] if absent."""
    value = span.attrs.get(key)
    if value is None:
        return []
    where = f"{span.where}.attributes[{key}]"
    if isinstance(value, str):
        try:
            value = orjson.loads(value)
        except orjson.JSONDecodeError as exc:
            raise reader.fail(f"expected JSON text of a message list: {exc.msg}", where) from None
    if not isinstance(value, list) or not all(isinstance(m, dict) for m in value):
        raise reader.fail("expected a list of message objects", where)
    return value


def _parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    parts = message.get("parts")
    if isinstance(parts, list):
        return [p for p in parts if isinstance(p, dict)]
    content = message.get("content")
    # Pre-"parts" instrumentations wrote OpenAI-style {"role", "content": "..."} messages.
    return [{"type": "text", "content": content}] if isinstance(content, str) else []


def _text(message: dict[str, Any]) -> str:
    return "\n".join(
        p["content"]
        for p in _parts(message)
        if p.get("type") == "text" and isinstance(p.get("content"), str) and p["content"]
    )


def _last_text(messages: list[dict[str, Any]], role: str) -> str | None:
    for message in reversed(messages):
        if message.get("role") == role:
            text = _text(message)
            if text:
                return text
    return None


def _first_text(messages: list[dict[str, Any]], role: str) -> str | None:
    for message in messages:
        if message.get("role") == role:
            text = _text(message)
            if text:
                return text
    return None


def _tool_args(raw: Any) -> tuple[dict[str, Any] | None, str, str | None]:
    """Return ``(tool_args, content, error)``; None when the span did not record arguments.

    Argument capture is opt-in in the GenAI conventions, so an absent attribute means
    "unknown", not "no arguments".
    """
    if raw is None:
        return None, "", None
    parsed = parse_tool_args(raw)
    return parsed.args, parsed.raw, parsed.error


def _result_text(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return dump_json_compact(value)


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _seconds(nanos: int) -> float:
    # Via whole microseconds, so 1.21 s prints as 1.21 and not 1.2099999.
    return (nanos // 1000) / 1e6


def _latency_ms(span: _Span) -> float | None:
    if span.start_ns and span.end_ns >= span.start_ns:
        return (span.end_ns - span.start_ns) / 1e6
    return None


def _model_step(span: _Span, reader: _Reader) -> TraceStep:
    attrs = span.attrs
    outputs = _messages(span, "gen_ai.output.messages", reader)
    for message in outputs:
        for part in _parts(message):
            if part.get("type") == "tool_call" and isinstance(part.get("id"), str):
                reader.requested.setdefault(part["id"], part.get("arguments"))
    # Tool results sent back to the model: only those after its last turn are new here.
    inputs = _messages(span, "gen_ai.input.messages", reader)
    last_assistant = max(
        (i for i, m in enumerate(inputs) if m.get("role") == "assistant"), default=-1
    )
    for message in inputs[last_assistant + 1 :]:
        for part in _parts(message):
            if part.get("type") == "tool_call_response" and isinstance(part.get("id"), str):
                reader.responses.setdefault(part["id"], part.get("response"))
    reasons = attrs.get("gen_ai.response.finish_reasons")
    if isinstance(reasons, str):
        reasons = [reasons]
    finish = reasons[0] if isinstance(reasons, list) and reasons else None
    if finish is None and outputs:
        finish = outputs[-1].get("finish_reason")
    tokens = {
        name: count
        for name, key in (("input", "gen_ai.usage.input_tokens"),
                          ("output", "gen_ai.usage.output_tokens"))
        if (count := _count(attrs.get(key))) is not None
    }
    provider = attrs.get("gen_ai.provider.name", attrs.get("gen_ai.system"))
    model = attrs.get("gen_ai.response.model", attrs.get("gen_ai.request.model"))
    return TraceStep(
        step_id=0,
        type="thought",
        content="\n".join(t for t in (_text(m) for m in outputs) if t),
        timestamp=_seconds(span.start_ns),
        error=(span.status_message or "error") if span.failed else None,
        finish_reason=str(finish) if finish is not None else None,
        provider=str(provider) if provider is not None else None,
        model=str(model) if model is not None else None,
        tokens=tokens or None,
        latency_ms=_latency_ms(span),
    )


def _tool_step(span: _Span) -> tuple[TraceStep, str | None]:
    attrs = span.attrs
    name = attrs.get("gen_ai.tool.name")
    if not isinstance(name, str) or not name:
        prefix, _, rest = span.name.partition(" ")
        name = rest if prefix == _TOOL_OPERATION and rest else span.name
    call_id = attrs.get("gen_ai.tool.call.id")
    args, content, args_error = _tool_args(attrs.get("gen_ai.tool.call.arguments"))
    error_type = attrs.get("error.type")
    error = None
    if span.failed:
        error = span.status_message or (str(error_type) if error_type is not None else "error")
    elif error_type is not None:
        error = str(error_type)
    step = TraceStep(
        step_id=0,
        type="tool_call",
        content=content,
        tool_name=name,
        tool_args=args,
        tool_result=_result_text(attrs.get("gen_ai.tool.call.result")),
        timestamp=_seconds(span.start_ns),
        error=args_error or error,
        latency_ms=_latency_ms(span),
    )
    return step, str(call_id) if call_id is not None else None


def _trace_of_spans(spans: list[_Span], reader: _Reader, task_id: str) -> AgentTrace:
    spans = sorted(spans, key=lambda s: (s.start_ns, s.span_id))
    agents = [s for s in spans if s.operation == _AGENT_OPERATION]
    tool_ids: list[tuple[TraceStep, str | None]] = []
    last_model_text = ""
    first_input: str | None = None
    for span in spans:
        if span.operation in _MODEL_OPERATIONS:
            step = _model_step(span, reader)
            if step.content:
                last_model_text = step.content
            if first_input is None:
                first_input = _first_text(_messages(span, "gen_ai.input.messages", reader), "user")
            reader.steps.append(step)
        elif span.operation == _TOOL_OPERATION:
            step, call_id = _tool_step(span)
            tool_ids.append((step, call_id))
            reader.steps.append(step)
    _fill_from_messages(tool_ids, reader)
    _add_requested_only(spans, tool_ids, reader)
    for number, step in enumerate(reader.steps, start=1):
        step.step_id = number

    root = _root_agent(agents)
    otel: dict[str, Any] = {"trace_ids": sorted({s.trace_id for s in spans if s.trace_id})}
    service = next((s.resource.get("service.name") for s in spans if s.resource), None)
    if isinstance(service, str):
        otel["service_name"] = service
    task_input = first_input or ""
    final_output = last_model_text
    if root is not None:
        agent_name = root.attrs.get("gen_ai.agent.name")
        if isinstance(agent_name, str):
            otel["agent_name"] = agent_name
        task_input = _first_text(_messages(root, "gen_ai.input.messages", reader), "user") or (
            task_input
        )
        final_output = _last_text(
            _messages(root, "gen_ai.output.messages", reader), "assistant"
        ) or final_output
    return AgentTrace(
        task_id=task_id,
        input=task_input,
        steps=reader.steps,
        final_output=final_output,
        metadata={"otel": otel},
    )


def _root_agent(agents: list[_Span]) -> _Span | None:
    """Return the outermost ``invoke_agent`` span: the first not nested in another agent span."""
    agent_ids = {a.span_id for a in agents}
    return next((a for a in agents if a.parent_id not in agent_ids), None)


def _fill_from_messages(tool_ids: list[tuple[TraceStep, str | None]], reader: _Reader) -> None:
    """Fill arguments and results that a tool span left out (content capture is opt-in)."""
    for step, call_id in tool_ids:
        if call_id is None:
            continue
        if step.tool_args is None and not step.content and call_id in reader.requested:
            step.tool_args, step.content, args_error = _tool_args(reader.requested[call_id])
            step.error = step.error or args_error
        if step.tool_result is None and call_id in reader.responses:
            step.tool_result = _result_text(reader.responses[call_id])


def _add_requested_only(
    spans: list[_Span], tool_ids: list[tuple[TraceStep, str | None]], reader: _Reader
) -> None:
    """When no ``execute_tool`` spans were recorded, take tool calls from the model's messages.

    Each requested call becomes a ``tool_call`` step right after the model turn that asked for
    it, paired with its result by call id.
    """
    if tool_ids:
        return
    steps: list[TraceStep] = []
    model_steps = iter(s for s in reader.steps if s.type == "thought")
    for span in spans:
        if span.operation not in _MODEL_OPERATIONS:
            continue
        thought = next(model_steps)
        steps.append(thought)
        for message in _messages(span, "gen_ai.output.messages", reader):
            for part in _parts(message):
                if part.get("type") != "tool_call":
                    continue
                args, content, error = _tool_args(part.get("arguments"))
                call_id = part.get("id")
                name = part.get("name")
                steps.append(
                    TraceStep(
                        step_id=0,
                        type="tool_call",
                        content=content,
                        tool_name=str(name) if name is not None else "",
                        tool_args=args,
                        tool_result=_result_text(reader.responses.get(call_id))
                        if isinstance(call_id, str)
                        else None,
                        timestamp=thought.timestamp,
                        error=error,
                    )
                )
    reader.steps = steps


def _stem(path: Path) -> str:
    name = path.name
    return name.split(".", 1)[0] or name


# --------------------------------------------------------------------------- entry points


def _spans_of_source(source: TraceSource, reader: _Reader) -> tuple[list[_Span], dict[str, Any]]:
    document = source.document_or_none()
    if document is not None:
        payload, overrides = _payload(document, reader)
        return _spans_of_document(payload, "", reader), overrides
    spans: list[_Span] = []
    for line_no, value in source.json_lines():
        if not isinstance(value, dict) or PAYLOAD_KEY not in value:
            raise reader.fail(
                f"expected a JSON object with a {PAYLOAD_KEY!r} list on each line",
                f"line {line_no}",
            )
        spans += _spans_of_document(value[PAYLOAD_KEY], f"line {line_no}: ", reader)
    return spans, {}


def _payload(document: Any, reader: _Reader) -> tuple[Any, dict[str, Any]]:
    """Return ``(resourceSpans, envelope overrides)`` of a whole-file document."""
    if not isinstance(document, dict) or PAYLOAD_KEY not in document:
        raise reader.fail(f"expected a JSON object with a {PAYLOAD_KEY!r} list", PAYLOAD_KEY)
    payload, overrides = split_envelope(document, PAYLOAD_KEY)
    if payload is document:  # extra keys beside the payload: a plain OTLP document
        return document[PAYLOAD_KEY], {}
    return payload, overrides


def from_otel_spans(
    spans: Mapping[str, Any] | str | os.PathLike[str] | Iterable[Any],
    *,
    task_id: str | None = None,
) -> AgentTrace:
    """Return the AgentTrace of OpenTelemetry GenAI spans.

    ``spans`` is one of: a path (``str`` or ``Path``) to an OTLP/JSON file or JSONL of such
    documents; a parsed OTLP/JSON document (``{"resourceSpans": [...]}``, optionally wrapped with
    ``task_id`` / ``actual_state`` ...); or an iterable of finished SDK spans (``ReadableSpan``,
    e.g. from ``InMemorySpanExporter.get_finished_spans()``), read by attribute so the SDK need
    not be importable. ``task_id`` defaults to the file stem, the envelope's, or ``"otel"``.
    Raises TraceFormatError naming the JSON path (and line, for JSONL) of anything malformed.
    """
    if isinstance(spans, (str, os.PathLike)):
        source = TraceSource(Path(spans))
        trace = ADAPTER.load(source)
        return trace if task_id is None else replace(trace, task_id=task_id)
    reader = _Reader(path=None)
    if isinstance(spans, Mapping):
        payload, overrides = _payload(dict(spans), reader)
        decoded = _spans_of_document(payload, "", reader)
        trace = _trace_of_spans(decoded, reader, task_id or "otel")
        overrides = {k: v for k, v in overrides.items() if not (k == "task_id" and task_id)}
        return apply_envelope(trace, overrides, Path("<document>"))
    return _trace_of_spans(_spans_of_sdk(spans, reader), reader, task_id or "otel")


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
        """Return the trace in ``source``; raise TraceFormatError naming the place if broken."""
        reader = _Reader(path=source.path)
        spans, overrides = _spans_of_source(source, reader)
        trace = _trace_of_spans(spans, reader, _stem(source.path))
        return apply_envelope(trace, overrides, source.path)


ADAPTER = OtelAdapter()
