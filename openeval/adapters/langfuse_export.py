"""Langfuse trace exports: the UI's "Download JSON", the trace with its observations.

The document is the trace (``id``, ``name``, ``input``, ``output``, ``sessionId``, ``userId``,
``tags``, ``scores``) with ``observations``: ``{id, traceId, parentObservationId, type, name,
level, statusMessage, startTime, endTime, input, output, model, usageDetails}`` each, the same
shape the public API's ``GET /api/public/traces/{id}`` returns. Observations are read in start
order:

- ``GENERATION``: one model turn; its ``output`` is an assistant message (``content``,
  ``tool_calls``), a ``chat.completion``, an Anthropic ``Message``, a list of messages or text;
  the first generation's ``input`` messages give the system and user messages; ``usageDetails``
  the tokens; ``model`` the model;
- ``TOOL``: one tool run: ``name``, ``input`` (the arguments), ``output`` (the result);
- a ``SPAN`` whose name is that of a call a turn asked for and is still waiting for a result is
  that call's run (Langfuse before observation types wrote tools as spans);
- ``level`` ``ERROR`` puts ``statusMessage`` in the step's error;
- the trace's ``output`` is the final output when it is text; its ``input`` is the input when
  no generation says it.

Langfuse records no denial and no replay: ``signals`` is empty. See
``proposals/0140-own-json-trace-formats.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openeval.adapters._chat import content_text
from openeval.adapters._model_output import model_output, text_of
from openeval.adapters._run_steps import AskedCall, RunBuilder
from openeval.adapters._toolkit import (
    Errors,
    optional_str,
    task_id_from_path,
    to_plain,
    token_counts,
)
from openeval.adapters._values import epoch_seconds, result_text
from openeval.adapters.base import TraceSource, apply_given
from openeval.adapters.tool_args import ToolArgs, parse_tool_args
from openeval.adapters.tool_definitions import merge_definitions, tool_definitions
from openeval.models import AgentTrace

DEFAULT_TASK_ID = "langfuse_task"
MODEL_TYPES = frozenset({"GENERATION"})


def from_langfuse_trace(
    trace: Any,
    task_id: str | None = None,
    final_output: str = "",
    *,
    input: str | None = None,
    actual_state: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
    initial_state: dict[str, Any] | None = None,
) -> AgentTrace:
    """Return the trace of a Langfuse trace with its observations (the API client's
    ``TraceWithFullDetails`` or the downloaded JSON). ``task_id`` defaults to the trace id; the
    keywords replace what the trace says when given. Raises TraceFormatError naming the place
    of anything malformed."""
    errors = Errors(None)
    dump = getattr(trace, "dict", None)
    document = to_plain(dump() if callable(dump) and not isinstance(trace, dict) else trace,
                        errors, "")
    result = _convert(document, task_id, errors)
    return apply_given(result, final_output=final_output, input=input,
                       actual_state=actual_state, metadata=metadata,
                       initial_state=initial_state)


class LangfuseExportAdapter:
    """Reads a Langfuse trace with its observations (UI download, public API)."""

    name = "langfuse_export"
    description = 'Langfuse trace export (UI "Download JSON"): a trace with its observations[]'

    def refusal(self, source: TraceSource) -> str | None:
        """Return None for a Langfuse trace with observations, else why not."""
        document = source.document_or_none()
        if not isinstance(document, dict) or not isinstance(document.get("observations"), list):
            return "no 'observations' list of a Langfuse trace"
        for index, item in enumerate(document["observations"]):
            if not isinstance(item, dict) or not isinstance(item.get("type"), str):
                return f"observation {index} has no 'type'"
            if "startTime" not in item and "start_time" not in item:
                return f"observation {index} has no 'startTime'"
        return None

    def load(self, source: TraceSource) -> AgentTrace:
        """Return the trace in ``source``; raise TraceFormatError naming the place if broken."""
        return _convert(source.document(), task_id_from_path(source.path), Errors(source.path))


ADAPTER = LangfuseExportAdapter()


@dataclass
class _Observation:
    index: int
    location: str
    kind: str
    name: str | None
    parent: str | None
    start: float | None
    end: float | None
    value: dict[str, Any]
    error: str | None


def _field(value: dict[str, Any], camel: str, snake: str) -> Any:
    return value[camel] if camel in value else value.get(snake)


def _observation(value: Any, index: int, errors: Errors) -> _Observation:
    location = f"observations[{index}]"
    item = errors.require_dict(value, location, "an observation")
    kind = item.get("type")
    if not isinstance(kind, str):
        raise errors("expected a string observation type", f"{location}.type")
    level = item.get("level")
    message = _field(item, "statusMessage", "status_message")
    error = None
    if level == "ERROR":
        error = message if isinstance(message, str) and message else "level ERROR"
    parent = _field(item, "parentObservationId", "parent_observation_id")
    return _Observation(
        index=index, location=location, kind=kind.upper(), name=optional_str(item, "name"),
        parent=parent if isinstance(parent, str) else None,
        start=epoch_seconds(_field(item, "startTime", "start_time"), errors,
                            f"{location}.startTime"),
        end=epoch_seconds(_field(item, "endTime", "end_time"), errors, f"{location}.endTime"),
        value=item, error=error,
    )


def _convert(document: Any, task_id: str | None, errors: Errors) -> AgentTrace:
    trace = errors.require_dict(document, "", "a Langfuse trace")
    listed = errors.require_list(trace.get("observations"), "observations", "observations")
    observations = [_observation(item, i, errors) for i, item in enumerate(listed)]
    builder = RunBuilder()
    said_input = False
    ordered = sorted(observations,
                     key=lambda o: (o.start if o.start is not None else 0.0, o.index))
    for item in ordered:
        if item.kind in MODEL_TYPES:
            said_input = _generation(item, builder, errors, said_input)
        elif item.kind == "TOOL" or (item.kind == "SPAN" and _awaited(builder, item.name)):
            raw = item.value.get("input")
            arguments = parse_tool_args(raw) if raw is not None else ToolArgs({})
            builder.tool_run(item.name, arguments, result_text(item.value.get("output")),
                             error=item.error, start=item.start, end=item.end)
    given_input = None if builder.turns.first_user_text else text_of(trace.get("input"))
    output = trace.get("output")
    trace_id = optional_str(trace, "id")
    metadata: dict[str, Any] = {"trace_id": trace_id} if trace_id else {}
    for camel, snake, name in (("name", "name", "langfuse_name"),
                               ("sessionId", "session_id", "langfuse_session_id"),
                               ("userId", "user_id", "langfuse_user_id")):
        value = _field(trace, camel, snake)
        if isinstance(value, str) and value:
            metadata[name] = value
    for key in ("tags", "scores"):
        value = trace.get(key)
        if isinstance(value, list) and value:
            metadata[f"langfuse_{key}"] = value
    failed = [o.name or o.kind for o in observations if o.error and o.kind not in ("TOOL",)]
    if failed:
        metadata["langfuse_errors"] = failed
    return builder.trace(
        task_id or trace_id or DEFAULT_TASK_ID, errors,
        what="no GENERATION or TOOL observation", metadata=metadata, input=given_input,
        final_output=output if isinstance(output, str) else None,
    )


def _awaited(builder: RunBuilder, name: str | None) -> bool:
    return name is not None and builder.awaits(name)


def _generation(
    item: _Observation, builder: RunBuilder, errors: Errors, said_input: bool
) -> bool:
    value = item.value
    where = item.location
    inputs = value.get("input")
    messages = inputs.get("messages") if isinstance(inputs, dict) else inputs
    if isinstance(inputs, dict):
        builder.tool_definitions = merge_definitions(
            builder.tool_definitions,
            tool_definitions(inputs.get("tools"), errors, f"{where}.input.tools"),
        )
    if not said_input and isinstance(messages, list):
        for index, message in enumerate(messages):
            if isinstance(message, dict) and message.get("role") in ("system", "user"):
                text = content_text(message.get("content"), errors,
                                    f"{where}.input[{index}].content")
                builder.say("user" if message["role"] == "user" else "system", text)
        said_input = True
    elif not said_input and isinstance(messages, str):
        builder.say("user", messages)
        said_input = True
    output = value.get("output")
    texts: list[str] = []
    calls: list[AskedCall] = []
    finish: str | None = None
    for number, part in enumerate(output if isinstance(output, list) else [output]):
        at = f"{where}.output[{number}]" if isinstance(output, list) else f"{where}.output"
        text, asked, reason, _ = model_output(part, errors, at)
        texts.extend([text] if text else [])
        calls.extend(asked)
        finish = reason or finish
    usage = _field(value, "usageDetails", "usage_details")
    tokens = token_counts([
        ("input", usage.get("input", usage.get("prompt_tokens"))),
        ("output", usage.get("output", usage.get("completion_tokens"))),
        ("cache_read", usage.get("input_cached_tokens", usage.get("cache_read_input_tokens"))),
        ("reasoning", usage.get("output_reasoning_tokens")),
    ]) if isinstance(usage, dict) else None
    builder.model_turn("\n".join(texts), calls, start=item.start, end=item.end,
                       model=optional_str(value, "model"), tokens=tokens, finish_reason=finish,
                       error=item.error)
    return said_input
