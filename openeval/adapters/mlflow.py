"""MLflow 3 traces: ``Trace.to_json()``, one trace per file or one per line.

A trace is ``{"info": {...}, "data": {"spans": [...]}}``; each span's ``attributes`` hold JSON
text (``mlflow.spanType``, ``mlflow.spanInputs``, ``mlflow.spanOutputs``,
``mlflow.chat.tokenUsage``, ``mlflow.chat.tools``). Spans are read in start order:

- ``CHAT_MODEL`` / ``LLM`` span: one model turn. Its outputs are a ``chat.completion`` (text and
  ``tool_calls`` of its one choice), an Anthropic ``Message`` (text and ``tool_use`` blocks), a
  bare assistant message, or text; its inputs' ``messages`` give the system and user messages
  (the first model span's), its inputs' ``tools`` (or ``mlflow.chat.tools``) the tools offered;
  ``mlflow.chat.tokenUsage`` the tokens;
- ``TOOL`` span: one tool run: the span's name, its inputs as arguments, its outputs as the
  result, an ``ERROR`` status (and its ``exception`` event) as the error. It fills the call a
  model turn asked for (by name, in order), or is a call of its own;
- the root span (``AGENT``, ``CHAIN`` ...) gives the input when no model span says it, and the
  final output when it returned text.

MLflow records no denial and no replay: ``signals`` is empty. See
``proposals/0140-own-json-trace-formats.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openeval.adapters._chat import content_text
from openeval.adapters._model_output import model_output, text_of
from openeval.adapters._run_steps import RunBuilder
from openeval.adapters._toolkit import (
    Errors,
    optional_str,
    task_id_from_path,
    to_plain,
    token_counts,
)
from openeval.adapters._values import result_text
from openeval.adapters.base import TraceSource, apply_given
from openeval.adapters.tool_args import ToolArgs, parse_tool_args
from openeval.adapters.tool_definitions import merge_definitions, tool_definitions
from openeval.errors import TraceFormatError
from openeval.jsonio import MAX_JSON_DEPTH, parse_json
from openeval.models import AgentTrace

DEFAULT_TASK_ID = "mlflow_task"
MODEL_TYPES = frozenset({"CHAT_MODEL", "LLM"})


def from_mlflow_trace(
    trace: Any,
    task_id: str | None = None,
    final_output: str = "",
    *,
    input: str | None = None,
    actual_state: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
    initial_state: dict[str, Any] | None = None,
) -> AgentTrace:
    """Return the trace of an MLflow ``Trace`` (the object, its ``to_dict()`` or its parsed
    ``to_json()``). ``task_id`` defaults to the MLflow trace id; the keywords replace what the
    spans say when given. Raises TraceFormatError naming the place of anything malformed."""
    errors = Errors(None)
    to_dict = getattr(trace, "to_dict", None)
    document = to_plain(to_dict() if callable(to_dict) else trace, errors, "")
    result = _convert(document, task_id, errors)
    return apply_given(result, final_output=final_output, input=input,
                       actual_state=actual_state, metadata=metadata,
                       initial_state=initial_state)


class MLflowAdapter:
    """Reads MLflow 3 ``Trace.to_json()`` documents."""

    name = "mlflow"
    description = (
        'MLflow 3 Trace.to_json(): {"info": ..., "data": {"spans": [...]}}, or one per line'
    )

    def refusal(self, source: TraceSource) -> str | None:
        """Return None for an MLflow trace document (or JSON Lines of them), else why not."""
        document = source.first_json_line() if source.is_json_lines else source.document_or_none()
        if not isinstance(document, dict):
            return "not a JSON object"
        data = document.get("data")
        if not isinstance(document.get("info"), dict) or not isinstance(data, dict):
            return "no 'info' and 'data' objects of an MLflow trace"
        if not isinstance(data.get("spans"), list):
            return "no 'data.spans' list"
        return None

    def load(self, source: TraceSource) -> AgentTrace:
        """Return the trace in ``source``; raise TraceFormatError naming the place if broken,
        or when it is JSON Lines of several traces (``openeval score`` reads those)."""
        errors = Errors(source.path)
        if not source.is_json_lines:
            return _convert(source.document(), task_id_from_path(source.path), errors)
        lines = source.json_lines()
        first = next(lines, None)
        if next(lines, None) is not None:
            raise errors("JSON Lines of several MLflow traces; score them all with openeval "
                         "score, or keep one trace per file")
        if first is None:
            raise errors("no trace in the file")
        line_no, value = first
        try:
            return _convert(value, task_id_from_path(source.path), errors)
        except TraceFormatError as exc:
            raise TraceFormatError(exc.message, source=source.path,
                                   location=f"line {line_no}: {exc.location or ''}".rstrip(": ")
                                   ) from None


ADAPTER = MLflowAdapter()


@dataclass
class _Span:
    index: int
    location: str
    name: str
    span_id: str | None
    parent_id: str | None
    kind: str
    start: float | None
    end: float | None
    attributes: dict[str, Any]
    error: str | None


def _convert(document: Any, task_id: str | None, errors: Errors) -> AgentTrace:
    document = errors.require_dict(document, "", "an MLflow trace")
    info = errors.require_dict(document.get("info"), "info", "trace info")
    data = errors.require_dict(document.get("data"), "data", "trace data")
    listed = errors.require_list(data.get("spans"), "data.spans", "spans")
    spans = [_span(span, i, errors) for i, span in enumerate(listed)]
    trace_id = optional_str(info, "trace_id") or optional_str(info, "request_id")
    builder = RunBuilder()
    said_input = False
    for span in sorted(spans, key=lambda s: (s.start if s.start is not None else 0.0, s.index)):
        if span.kind in MODEL_TYPES:
            said_input = _model_turn(span, builder, errors, said_input)
        elif span.kind == "TOOL":
            inputs = span.attributes.get("mlflow.spanInputs")
            arguments = parse_tool_args(inputs) if inputs is not None else ToolArgs({})
            builder.tool_run(span.name, arguments,
                             result_text(span.attributes.get("mlflow.spanOutputs")),
                             error=span.error, start=span.start, end=span.end)
    root = next((s for s in spans if s.parent_id is None), None)
    given_input: str | None = None
    final: str | None = None
    if root is not None:
        if not builder.turns.first_user_text:
            given_input = text_of(root.attributes.get("mlflow.spanInputs"))
        outputs = root.attributes.get("mlflow.spanOutputs")
        if isinstance(outputs, str) and root.kind not in MODEL_TYPES and root.kind != "TOOL":
            final = outputs  # what the agent returned is its answer
    metadata: dict[str, Any] = {"trace_id": trace_id} if trace_id else {}
    state = optional_str(info, "state")
    if state:
        metadata["mlflow_state"] = state
    return builder.trace(
        task_id or trace_id or DEFAULT_TASK_ID, errors, what="no CHAT_MODEL, LLM or TOOL span",
        metadata=metadata, input=given_input, final_output=final,
    )


def _span(value: Any, index: int, errors: Errors) -> _Span:
    location = f"data.spans[{index}]"
    span = errors.require_dict(value, location, "a span")
    raw = span.get("attributes")
    raw = errors.require_dict(raw if raw is not None else {}, f"{location}.attributes",
                              "attributes")
    attributes = {key: _decoded(value, errors, f"{location}.attributes.{key}")
                  for key, value in raw.items()}
    kind = attributes.get("mlflow.spanType")
    name = span.get("name")
    return _Span(
        index=index,
        location=location,
        name=name if isinstance(name, str) and name else "span",
        span_id=optional_str(span, "span_id"),
        parent_id=optional_str(span, "parent_span_id"),
        kind=kind if isinstance(kind, str) else "UNKNOWN",
        start=_nanos(span.get("start_time_unix_nano"), errors, f"{location}.start_time_unix_nano"),
        end=_nanos(span.get("end_time_unix_nano"), errors, f"{location}.end_time_unix_nano"),
        attributes=attributes,
        error=_error(span),
    )


def _decoded(value: Any, errors: Errors, location: str) -> Any:
    """Return an attribute's value: MLflow writes each as JSON text."""
    if not isinstance(value, str):
        return value
    try:
        return parse_json(value, source=errors.source, error=TraceFormatError,
                          max_depth=MAX_JSON_DEPTH)
    except TraceFormatError:
        return value  # written by another tool as plain text: kept as it is


def _nanos(value: Any, errors: Errors, location: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, str) and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise errors("expected a time in nanoseconds since the epoch", location)
    return value / 1e9


def _error(span: dict[str, Any]) -> str | None:
    status = span.get("status")
    if not isinstance(status, dict) or status.get("code") not in ("STATUS_CODE_ERROR", "ERROR"):
        return None
    message = optional_str(status, "message")
    if message:
        return message
    for event in span.get("events") or []:
        if isinstance(event, dict) and event.get("name") == "exception":
            attributes = event.get("attributes")
            if isinstance(attributes, dict):
                text = optional_str(attributes, "exception.message")
                if text:
                    return text
    return "the span's status is ERROR"


def _model_turn(span: _Span, builder: RunBuilder, errors: Errors, said_input: bool) -> bool:
    attributes = span.attributes
    where = f"{span.location}.attributes"
    inputs = attributes.get("mlflow.spanInputs")
    if isinstance(inputs, dict):
        if not said_input:
            for index, message in enumerate(_list(inputs.get("messages"))):
                if isinstance(message, dict) and message.get("role") in ("system", "user"):
                    text = content_text(message.get("content"), errors,
                                        f"{where}.mlflow.spanInputs.messages[{index}].content")
                    builder.say("user" if message["role"] == "user" else "system", text)
            said_input = True
        builder.tool_definitions = merge_definitions(
            builder.tool_definitions,
            tool_definitions(inputs.get("tools"), errors, f"{where}.mlflow.spanInputs.tools"),
        )
    tools = attributes.get("mlflow.chat.tools")
    if tools is not None:
        builder.tool_definitions = merge_definitions(
            builder.tool_definitions, tool_definitions(tools, errors, f"{where}.mlflow.chat.tools")
        )
    text, calls, finish, model = model_output(
        attributes.get("mlflow.spanOutputs"), errors, f"{where}.mlflow.spanOutputs"
    )
    usage = attributes.get("mlflow.chat.tokenUsage")
    tokens = token_counts([
        ("input", usage.get("input_tokens")), ("output", usage.get("output_tokens")),
    ]) if isinstance(usage, dict) else None
    if model is None and isinstance(inputs, dict):
        model = optional_str(inputs, "model")
    builder.model_turn(text, calls, start=span.start, end=span.end, model=model, tokens=tokens,
                       finish_reason=finish, error=span.error)
    return said_input


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
