"""OpenAI Agents SDK traces: what a ``TracingProcessor`` receives, exported.

Reads a JSON list of ``trace.export()`` / ``span.export()`` objects (what a processor that
keeps them writes), the same as JSON Lines (one export per line), or the SDK exporter's batch
``{"data": [...]}``. Spans are read in the
order they started:

- ``generation`` span: one model turn; its ``output`` is Chat Completions assistant messages
  (text, ``tool_calls``), its ``input`` the messages sent (the first one gives the system and
  user messages), ``usage`` the tokens, ``model`` the model;
- ``response`` span: one model turn of the Responses model; the SDK records only the response
  id and usage, so the turn has no text and the trace no final output (said in
  ``metadata.not_recorded``);
- ``function`` span: one tool run: ``name``, ``input`` (the arguments as JSON text),
  ``output``, and the span's ``error`` (the SDK's "Error running tool"); it fills the call the
  model turn asked for (by name, in order), or is a call of its own when no turn recorded one;
- ``handoff`` span: fills the model's ``transfer_to_*`` call with the agent handed to;
- ``agent``, ``guardrail`` and ``custom`` spans give metadata (agents, tools offered by name,
  guardrails that tripped).

The SDK records no denial or replay, so ``signals`` is empty. A file holding several traces
(several ``trace_id``) is one trace each for ``openeval score``. See
``proposals/0140-own-json-trace-formats.md``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from openeval.adapters._chat import content_text
from openeval.adapters._run_steps import AskedCall, RunBuilder
from openeval.adapters._toolkit import (
    Errors,
    only_trace,
    optional_str,
    task_id_from_path,
    to_plain,
    token_counts,
)
from openeval.adapters._values import epoch_seconds, result_text
from openeval.adapters.base import TraceSource, apply_given
from openeval.adapters.tool_args import parse_tool_args
from openeval.errors import TraceFormatError
from openeval.models import AgentTrace

DEFAULT_TASK_ID = "openai_agents_task"
_OBJECTS = frozenset({"trace", "trace.span"})


def from_openai_agents_trace(
    items: Any,
    task_id: str = DEFAULT_TASK_ID,
    final_output: str = "",
    *,
    input: str | None = None,
    actual_state: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
    initial_state: dict[str, Any] | None = None,
) -> AgentTrace:
    """Return the trace of one Agents SDK run.

    ``items`` is what a ``TracingProcessor`` was handed: ``Trace`` and ``Span`` objects (their
    ``export()`` is called) or the exported dicts, in any order, or the exporter's
    ``{"data": [...]}`` batch. The keywords replace what the spans say when given. Raises
    TraceFormatError naming the place of anything malformed, or when the items hold several
    traces.
    """
    errors = Errors(None)
    listed = items.get("data") if isinstance(items, dict) else items
    if isinstance(listed, (list, tuple)):
        listed = [_exported(item) for item in listed]
    plain = to_plain(listed, errors, "")
    traces = list(_traces(plain, errors, task_id))
    if len(traces) != 1:
        raise errors(f"expected the items of one trace, got {len(traces)} traces")
    trace = traces[0]
    return apply_given(trace, final_output=final_output, input=input,
                       actual_state=actual_state, metadata=metadata,
                       initial_state=initial_state)


def _exported(item: Any) -> Any:
    export = getattr(item, "export", None)
    return export() if callable(export) and not isinstance(item, dict) else item


class OpenAIAgentsAdapter:
    """Reads OpenAI Agents SDK trace and span exports."""

    name = "openai_agents"
    description = (
        'OpenAI Agents SDK trace/span exports: a JSON list of {"object": "trace.span", ...} '
        'items, or the exporter\'s {"data": [...]}'
    )
    lines_are_one_trace = True
    """A JSON Lines file of exports is read whole (its lines are a processor's appended
    exports), then split by trace id in :meth:`load_many`."""

    def refusal(self, source: TraceSource) -> str | None:
        """Return None for a list of Agents SDK exports (or JSON Lines of them), else why not."""
        if source.is_json_lines:
            first = source.first_json_line()
            kind = first.get("object") if isinstance(first, dict) else None
            if isinstance(kind, str) and kind in _OBJECTS:
                return None
            return "first line is not an Agents SDK export"
        return _refusal(source.document_or_none())

    def load(self, source: TraceSource) -> AgentTrace:
        """Return the one trace in ``source``; raise TraceFormatError when it holds several."""
        return only_trace(
            self.load_many(source), source.path,
            several="holds {count} traces (trace_id); score them all with openeval score, or "
                    "keep one trace's items per file",
            empty="no trace in the file",
        )

    def load_many(self, source: TraceSource) -> Iterator[AgentTrace | TraceFormatError]:
        """Yield each trace of ``source`` (one per ``trace_id``), or the error reading it."""
        errors = Errors(source.path)
        task_id = task_id_from_path(source.path)
        try:
            if source.is_json_lines:  # a processor writing each export as a line
                lines = list(source.json_lines())
                items = [value for _, value in lines]
                places = [f"line {number}" for number, _ in lines]
                yield from _traces(items, errors, task_id, name_by_trace=True, places=places)
            else:
                items = _items(source.document(), errors)
                yield from _traces(items, errors, task_id, name_by_trace=True)
        except TraceFormatError as exc:
            yield exc


ADAPTER = OpenAIAgentsAdapter()


def _refusal(document: Any) -> str | None:
    items = document.get("data") if isinstance(document, dict) else document
    if not isinstance(items, list) or not items:
        return "not a list of Agents SDK exports"
    spans = 0
    for index, item in enumerate(items):
        kind = item.get("object") if isinstance(item, dict) else None
        if not isinstance(kind, str) or kind not in _OBJECTS:
            return f"item {index} has no 'object' \"trace\" or \"trace.span\""
        spans += kind == "trace.span"
    return None if spans else "no span ({\"object\": \"trace.span\"})"


def _items(document: Any, errors: Errors) -> list[Any]:
    if isinstance(document, dict):
        return errors.require_list(document.get("data"), "data", "a list of exports")
    return errors.require_list(document, "", "a list of exports")


@dataclass
class _Span:
    index: int
    location: str
    span_id: str | None
    parent_id: str | None
    data: dict[str, Any]
    kind: str
    start: float | None
    end: float | None
    error: str | None


def _traces(
    items: Any, errors: Errors, task_id: str, *, name_by_trace: bool = False,
    places: list[str] | None = None,
) -> Iterator[AgentTrace]:
    """Yield the trace of each trace_id among ``items``, in the order they first appear;
    ``places`` names each item in errors (``line 3``), else its list index."""
    listed = errors.require_list(items, "", "a list of exports")
    heads: dict[str, dict[str, Any]] = {}
    groups: dict[str, list[_Span]] = {}
    for index, item in enumerate(listed):
        location = places[index] if places is not None else f"[{index}]"
        item = errors.require_dict(item, location, "a trace or span export")
        kind = item.get("object")
        trace_id = optional_str(item, "trace_id" if kind == "trace.span" else "id") or ""
        if kind == "trace":
            heads.setdefault(trace_id, item)
            groups.setdefault(trace_id, [])
        elif kind == "trace.span":
            groups.setdefault(trace_id, []).append(_span(item, index, location, errors))
        else:
            raise errors('expected "object" "trace" or "trace.span"', f"{location}.object")
    several = len(groups) > 1
    for trace_id, spans in groups.items():
        if not spans:
            raise errors(f"trace {trace_id!r} has no span", "")
        own_id = f"{task_id}-{trace_id}" if several and name_by_trace else task_id
        yield _trace(spans, heads.get(trace_id, {}), trace_id, own_id, errors)


def _span(item: dict[str, Any], index: int, location: str, errors: Errors) -> _Span:
    data = errors.require_dict(item.get("span_data"), f"{location}.span_data", "span data")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise errors("expected a string span type", f"{location}.span_data.type")
    return _Span(
        index=index,
        location=location,
        span_id=optional_str(item, "id"),
        parent_id=optional_str(item, "parent_id"),
        data=data,
        kind=kind,
        start=epoch_seconds(item.get("started_at"), errors, f"{location}.started_at"),
        end=epoch_seconds(item.get("ended_at"), errors, f"{location}.ended_at"),
        error=_error_text(item.get("error")),
    )


def _error_text(error: Any) -> str | None:
    if not isinstance(error, dict):
        return None
    message = error.get("message")
    data = error.get("data")
    detail = data.get("error") if isinstance(data, dict) else None
    parts = [p for p in (message, detail) if isinstance(p, str) and p]
    return ": ".join(parts) or "the span recorded an error"


class _Builder:
    """Steps, conversation and metadata of one trace, read span by span in start order."""

    def __init__(self, errors: Errors) -> None:
        self.errors = errors
        self.run = RunBuilder()
        self.said_input = False
        self.metadata: dict[str, Any] = {}

    def generation(self, span: _Span) -> None:
        data = span.data
        where = f"{span.location}.span_data"
        if not self.said_input:
            self._say_input(data.get("input"), f"{where}.input")
        texts: list[str] = []
        calls: list[AskedCall] = []
        output = data.get("output")
        if output is not None:
            messages = self.errors.require_list(output, f"{where}.output", "messages")
            for index, message in enumerate(messages):
                at = f"{where}.output[{index}]"
                message = self.errors.require_dict(message, at, "a message")
                text = content_text(message.get("content"), self.errors, f"{at}.content")
                texts.extend(t for t in (text, optional_str(message, "refusal")) if t)
                for number, call in enumerate(_list(message.get("tool_calls"))):
                    calls.append(self._asked_call(call, f"{at}.tool_calls[{number}]"))
        self.run.model_turn(
            "\n".join(texts), calls, start=span.start, end=span.end,
            model=optional_str(data, "model"), tokens=_tokens(data.get("usage")),
            error=span.error,
        )

    def response(self, span: _Span) -> None:
        self.metadata["not_recorded"] = (
            "model text and the final answer: the Responses model's spans record response "
            "ids and usage only"
        )
        self.run.model_turn("", [], start=span.start, end=span.end,
                            tokens=_tokens(span.data.get("usage")), error=span.error)

    def _asked_call(self, call: Any, location: str) -> AskedCall:
        call = self.errors.require_dict(call, location, "a tool call")
        function = self.errors.require_dict(call.get("function"), f"{location}.function",
                                            "a function")
        name = self.errors.require_str(function, "name", f"{location}.function")
        return AskedCall(name, parse_tool_args(function.get("arguments")),
                         optional_str(call, "id"))

    def _say_input(self, value: Any, location: str) -> None:
        self.said_input = True
        if isinstance(value, str):
            self.run.say("user", value)
            return
        for index, message in enumerate(_list(value)):
            if not isinstance(message, dict):
                continue
            role = message.get("role")
            if role in ("system", "developer", "user"):
                text = content_text(message.get("content"), self.errors,
                                    f"{location}[{index}].content")
                self.run.say("user" if role == "user" else "system", text)

    def function(self, span: _Span) -> None:
        where = f"{span.location}.span_data"
        name = self.errors.require_str(span.data, "name", where)
        raw = span.data.get("input")
        # What ran, over what the model wrote (the SDK may have fixed it up).
        arguments = parse_tool_args(raw) if raw is not None else None
        self.run.tool_run(name, arguments, result_text(span.data.get("output")),
                          error=span.error, start=span.start, end=span.end)

    def handoff(self, span: _Span) -> None:
        target = optional_str(span.data, "to_agent")
        self.metadata.setdefault("handoffs", []).append(
            {"from": optional_str(span.data, "from_agent"), "to": target}
        )
        step = self.run.take_waiting("transfer_to")
        if step is not None:
            step.tool_result = f"handed off to {target}" if target else "handed off"

    def other(self, span: _Span) -> None:
        data = span.data
        if span.kind == "agent":
            name = optional_str(data, "name")
            agents = self.metadata.setdefault("agents", [])
            if name and name not in agents:
                agents.append(name)
            tools = [t for t in _list(data.get("tools")) if isinstance(t, str)]
            if tools:
                offered = self.metadata.setdefault("agent_tools", [])
                offered.extend(t for t in tools if t not in offered)
        elif span.kind == "guardrail" and data.get("triggered") is True:
            self.metadata.setdefault("guardrails_triggered", []).append(
                optional_str(data, "name") or "guardrail"
            )


def _trace(
    spans: list[_Span], head: dict[str, Any], trace_id: str, task_id: str, errors: Errors
) -> AgentTrace:
    builder = _Builder(errors)
    ordered = sorted(spans, key=lambda s: (s.start if s.start is not None else 0.0, s.index))
    for span in ordered:
        if span.kind == "generation":
            builder.generation(span)
        elif span.kind == "response":
            builder.response(span)
        elif span.kind == "function":
            builder.function(span)
        elif span.kind == "handoff":
            builder.handoff(span)
        else:
            builder.other(span)
    metadata: dict[str, Any] = {"trace_id": trace_id} if trace_id else {}
    for key in ("workflow_name", "group_id"):
        value = optional_str(head, key)
        if value:
            metadata[key] = value
    metadata.update(builder.metadata)
    # The SDK's spans mark no denied call and no replay: signals stay empty.
    return builder.run.trace(task_id, errors, what="no generation, response or function span",
                             metadata=metadata)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _tokens(usage: Any) -> dict[str, int] | None:
    if not isinstance(usage, dict):
        return None
    inputs = usage.get("input_tokens_details")
    outputs = usage.get("output_tokens_details")
    inputs = inputs if isinstance(inputs, dict) else {}
    outputs = outputs if isinstance(outputs, dict) else {}
    return token_counts([
        ("input", usage.get("input_tokens", usage.get("prompt_tokens"))),
        ("output", usage.get("output_tokens", usage.get("completion_tokens"))),
        ("cache_read", inputs.get("cached_tokens")),
        ("reasoning", outputs.get("reasoning_tokens")),
    ])
