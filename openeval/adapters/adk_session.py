"""Google ADK sessions: ``Session.model_dump_json()``, the events of a run and its state.

A session is ``{"id", "app_name", "user_id", "state", "events": [...]}``; each event is
``{author, invocation_id, timestamp, content: {role, parts}, usage_metadata, partial, ...}``.
Events are read in order (partial, streamed events are left out: the whole event follows):

- an event by ``user`` with text parts is a user message;
- an event of a model (``content.role`` ``model``) is one model turn: its text parts (``thought``
  parts are reasoning, left out of the text), one call per ``function_call`` part (``id``,
  ``name``, ``args``), tokens from ``usage_metadata``, ``error_code``/``error_message`` as the
  turn's error;
- a ``function_response`` part is the result of the call with its ``id``; a response object
  holding a non-empty ``error`` (what ADK's tool-error callbacks and samples return) is the
  step's error;
- ``state`` is the trace's ``actual_state`` (what the tools wrote through ``tool_context``).

ADK sessions record no denial OpenEval reads and no replay: ``signals`` is empty. See
``proposals/0140-own-json-trace-formats.md``.
"""

from __future__ import annotations

from typing import Any

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
from openeval.adapters.tool_args import parse_tool_args
from openeval.models import AgentTrace

DEFAULT_TASK_ID = "adk_task"


def from_adk_session(
    session: Any,
    task_id: str | None = None,
    final_output: str = "",
    *,
    input: str | None = None,
    actual_state: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
    initial_state: dict[str, Any] | None = None,
) -> AgentTrace:
    """Return the trace of an ADK ``Session`` (the object or its JSON). ``task_id`` defaults
    to the session id; the keywords replace what the session says when given. Raises
    TraceFormatError naming the place of anything malformed."""
    errors = Errors(None)
    document = to_plain(session, errors, "")
    trace = _convert(document, task_id, errors)
    return apply_given(trace, final_output=final_output, input=input,
                       actual_state=actual_state, metadata=metadata,
                       initial_state=initial_state)


class ADKSessionAdapter:
    """Reads Google ADK ``Session`` JSON."""

    name = "adk_session"
    description = 'Google ADK Session.model_dump_json(): {"app_name", "events": [...], "state"}'

    def refusal(self, source: TraceSource) -> str | None:
        """Return None for an ADK session, else why not."""
        document = source.document_or_none()
        if not isinstance(document, dict) or not isinstance(document.get("events"), list):
            return "no 'events' list of an ADK session"
        if "app_name" not in document and "appName" not in document:
            return "no 'app_name' of an ADK session"
        return None

    def load(self, source: TraceSource) -> AgentTrace:
        """Return the trace in ``source``; raise TraceFormatError naming the place if broken."""
        return _convert(source.document(), task_id_from_path(source.path), Errors(source.path))


ADAPTER = ADKSessionAdapter()


def _get(value: dict[str, Any], snake: str, camel: str) -> Any:
    """Return a field under its Python name or its JSON alias (``by_alias`` dumps)."""
    return value[snake] if snake in value else value.get(camel)


def _convert(document: Any, task_id: str | None, errors: Errors) -> AgentTrace:
    session = errors.require_dict(document, "", "an ADK session")
    events = errors.require_list(session.get("events"), "events", "events")
    builder = RunBuilder()
    authors: list[str] = []
    for index, event in enumerate(events):
        at = f"events[{index}]"
        event = errors.require_dict(event, at, "an event")
        if event.get("partial") is True:
            continue
        author = optional_str(event, "author")
        if author and author != "user" and author not in authors:
            authors.append(author)
        content = event.get("content")
        if content is None:
            continue
        content = errors.require_dict(content, f"{at}.content", "content")
        parts = errors.require_list(content.get("parts") or [], f"{at}.content.parts", "parts")
        start = epoch_seconds(event.get("timestamp"), errors, f"{at}.timestamp")
        if content.get("role") == "model":
            _model_turn(builder, event, parts, f"{at}.content.parts", start, errors)
        else:
            _user_parts(builder, parts, f"{at}.content.parts", start, errors)
    state = session.get("state")
    metadata: dict[str, Any] = {}
    for key, alias, name in (("id", "id", "adk_session_id"), ("app_name", "appName", "adk_app"),
                             ("user_id", "userId", "adk_user_id")):
        value = _get(session, key, alias)
        if isinstance(value, str) and value:
            metadata[name] = value
    if authors:
        metadata["agents"] = authors
    session_id = metadata.get("adk_session_id")
    trace = builder.trace(
        task_id or session_id or DEFAULT_TASK_ID, errors,
        what="no model event, function call or user message", metadata=metadata,
    )
    if isinstance(state, dict):
        trace.actual_state = state
    return trace


def _model_turn(
    builder: RunBuilder, event: dict[str, Any], parts: list[Any], location: str,
    start: float | None, errors: Errors,
) -> None:
    texts: list[str] = []
    calls: list[AskedCall] = []
    for index, part in enumerate(parts):
        at = f"{location}[{index}]"
        part = errors.require_dict(part, at, "a part")
        text = part.get("text")
        if isinstance(text, str) and part.get("thought") is not True:
            texts.append(text)
        call = _get(part, "function_call", "functionCall")
        if call is not None:
            call = errors.require_dict(call, f"{at}.function_call", "a function call")
            name = errors.require_str(call, "name", f"{at}.function_call")
            calls.append(AskedCall(name, parse_tool_args(call.get("args")),
                                   optional_str(call, "id")))
    usage = _get(event, "usage_metadata", "usageMetadata")
    tokens = token_counts([
        ("input", _get(usage, "prompt_token_count", "promptTokenCount")),
        ("output", _get(usage, "candidates_token_count", "candidatesTokenCount")),
        ("cache_read", _get(usage, "cached_content_token_count", "cachedContentTokenCount")),
        ("reasoning", _get(usage, "thoughts_token_count", "thoughtsTokenCount")),
    ]) if isinstance(usage, dict) else None
    code = _get(event, "error_code", "errorCode")
    message = _get(event, "error_message", "errorMessage")
    problems = [str(p) for p in (code, message) if isinstance(p, str) and p]
    model = _get(event, "model_version", "modelVersion")
    builder.model_turn(
        "\n".join(texts), calls, start=start, tokens=tokens,
        model=model if isinstance(model, str) and model else None,
        finish_reason=optional_str(event, "finish_reason"),
        error=": ".join(problems) or None,
    )


def _user_parts(
    builder: RunBuilder, parts: list[Any], location: str, start: float | None, errors: Errors
) -> None:
    texts: list[str] = []
    for index, part in enumerate(parts):
        at = f"{location}[{index}]"
        part = errors.require_dict(part, at, "a part")
        response = _get(part, "function_response", "functionResponse")
        if response is not None:
            response = errors.require_dict(response, f"{at}.function_response",
                                           "a function response")
            value = response.get("response")
            error = value.get("error") if isinstance(value, dict) else None
            builder.tool_run(
                optional_str(response, "name"), None, result_text(value),
                error=result_text(error) if error else None,
                call_id=optional_str(response, "id"), start=start,
            )
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
    text = "\n".join(t for t in texts if t)
    if text:
        builder.say("user", text)
