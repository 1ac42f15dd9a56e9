"""LangChain messages: every form they are saved in, read as one shape; message lists as traces.

A LangChain message reaches us as a ``BaseMessage`` object (dumped with ``model_dump``), as
its ``model_dump()`` dict (``{"type": "ai", "content": ...}``), as ``messages_to_dict``
writes it (``{"type": "ai", "data": {...}}``), as ``dumpd`` serialises it (``{"lc": 1,
"id": [..., "AIMessage"], "kwargs": {...}}``), or as a ``(role, text)`` pair. A list of them
is a conversation, such as LangGraph's ``result["messages"]``: read with the chat machinery
the OpenAI and Anthropic adapters share (proposals/0011-langchain-adapter.md).
"""

from __future__ import annotations

from typing import Any

from openeval.adapters._chat import StepList, Turn
from openeval.adapters._toolkit import Errors, optional_str, token_counts
from openeval.adapters.tool_args import parse_tool_args
from openeval.jsonio import dump_json_compact, join_path
from openeval.models import AgentTrace, MessageRole, TraceStep

MESSAGE_TYPES = {
    "AIMessage": "ai", "AIMessageChunk": "ai", "HumanMessage": "human",
    "HumanMessageChunk": "human", "ToolMessage": "tool", "ToolMessageChunk": "tool",
    "SystemMessage": "system", "SystemMessageChunk": "system", "ChatMessage": "chat",
    "ChatMessageChunk": "chat", "FunctionMessage": "function",
    "FunctionMessageChunk": "function",
}
"""LangChain message class name -> its ``type``."""
KNOWN_TYPES = frozenset({"ai", "human", "tool", "system", "chat", "function", "developer"})
"""The ``type`` values of LangChain messages."""
_ROLE_TYPES = {"assistant": "ai", "user": "human", "ai": "ai", "human": "human"}
_ROLES: dict[str, MessageRole] = {
    "human": "user", "user": "user", "ai": "assistant", "assistant": "assistant",
    "system": "system", "developer": "system", "tool": "tool", "function": "tool",
}
PROVIDER_KEYS = ("model_provider", "ls_provider")
"""Where a message's ``response_metadata`` names the provider."""


def normalize(value: Any) -> dict[str, Any] | None:
    """Return a message as ``{"type": ..., **fields}``, whatever form it was saved in.

    Returns None for anything that is not a message.
    """
    if isinstance(value, dict):
        kwargs = value.get("kwargs")
        ident = value.get("id")
        if value.get("lc") is not None and isinstance(kwargs, dict) and isinstance(ident, list):
            class_name = str(ident[-1]) if ident else ""
            return {**kwargs, "type": MESSAGE_TYPES.get(class_name, str(kwargs.get("type", "")))}
        given = value.get("type")
        data = value.get("data")
        if isinstance(given, str) and isinstance(data, dict) and "content" in data:
            return {**data, "type": MESSAGE_TYPES.get(given, given)}  # messages_to_dict
        if isinstance(given, str) and "content" in value:
            return {**value, "type": MESSAGE_TYPES.get(given, given)}
        role = value.get("role")
        if isinstance(role, str) and "content" in value:
            return {**value, "type": _ROLE_TYPES.get(role, role)}
        return None
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value):
        return {"type": _ROLE_TYPES.get(value[0], value[0]), "content": value[1]}
    return None


def is_message(value: Any) -> bool:
    """True for a LangChain message in one of its saved forms (not an OpenAI chat message).

    Only the LangChain-specific forms count: a ``type`` LangChain uses (``human``, ``ai``
    ...) with its content, or a ``dumpd`` / ``messages_to_dict`` record; ``{"role":
    "user", "content": ...}`` is an OpenAI message.
    """
    if not isinstance(value, dict) or "role" in value:
        return False
    message = normalize(value)
    return message is not None and message.get("type") in KNOWN_TYPES


def text(content: Any) -> str:
    """Return the text of message content: a string, or the text parts of a block list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                part = block.get("text")
                if isinstance(part, str):
                    parts.append(part)
        return "".join(parts)
    return ""


def role(message: dict[str, Any]) -> MessageRole | None:
    """Return the conversation role of a normalised message, None for an unknown type."""
    kind = message.get("type")
    if kind == "chat":  # a ChatMessage carries its own role
        kind = message.get("role")
    return _ROLES.get(str(kind))


def tool_calls(
    message: dict[str, Any], where: str, errors: Errors
) -> list[tuple[str | None, TraceStep]]:
    """Return ``(call id, tool_call step)`` for each tool call an AI message asks for.

    Reads ``tool_calls`` (or OpenAI-style calls kept in ``additional_kwargs``) and
    ``invalid_tool_calls``, whose error becomes the step's. ``where`` locates the message.
    """
    found: list[tuple[str | None, TraceStep]] = []
    calls = message.get("tool_calls")
    if calls is None or calls == []:
        calls = _openai_calls(message.get("additional_kwargs"))
    if not isinstance(calls, list):
        raise errors("expected 'tool_calls' as a list", join_path(where, "tool_calls"))
    for i, call in enumerate(calls):
        found.append(_call_step(call, f"{join_path(where, 'tool_calls')}[{i}]", errors))
    invalid = message.get("invalid_tool_calls") or []
    if not isinstance(invalid, list):
        raise errors(
            "expected 'invalid_tool_calls' as a list", join_path(where, "invalid_tool_calls")
        )
    for i, call in enumerate(invalid):
        call_id, step = _call_step(
            call, f"{join_path(where, 'invalid_tool_calls')}[{i}]", errors
        )
        if isinstance(call, dict) and isinstance(call.get("error"), str) and step.error is None:
            step.error = call["error"]
        found.append((call_id, step))
    return found


def _openai_calls(extra: Any) -> Any:
    """Return OpenAI-style calls kept in ``additional_kwargs`` in LangChain's call shape."""
    if not isinstance(extra, dict) or not isinstance(extra.get("tool_calls"), list):
        return []
    calls = []
    for call in extra["tool_calls"]:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            calls.append(call)
            continue
        calls.append(
            {"id": call.get("id"), "name": function.get("name"), "args": function.get("arguments")}
        )
    return calls


def _call_step(call: Any, where: str, errors: Errors) -> tuple[str | None, TraceStep]:
    if not isinstance(call, dict):
        raise errors("expected a tool call object with 'name' and 'args'", where)
    name = call.get("name")
    if not isinstance(name, str):
        raise errors("expected the tool call's 'name' as a string", join_path(where, "name"))
    call_id = call.get("id")
    if call_id is not None and not isinstance(call_id, str):
        raise errors("expected the tool call's 'id' as a string or null", join_path(where, "id"))
    step = TraceStep(step_id=0, type="tool_call", tool_name=name)
    set_args(step, call.get("args"))
    return call_id, step


def set_args(step: TraceStep, args: Any) -> None:
    """Set ``tool_args``; arguments that are not a JSON object follow the shared rule."""
    parsed = parse_tool_args(args)
    step.tool_args = parsed.args
    if parsed.error is not None:
        step.content = parsed.raw
        step.error = parsed.error


def usage(message: dict[str, Any]) -> dict[str, int] | None:
    """Return the ``input`` / ``output`` / ``total`` token counts of an AI message."""
    counts = message.get("usage_metadata")
    if not isinstance(counts, dict):
        return None
    return token_counts(
        [("input", counts.get("input_tokens")), ("output", counts.get("output_tokens")),
         ("total", counts.get("total_tokens"))]
    )


def tool_result(message: dict[str, Any]) -> tuple[str, str | None]:
    """Return a tool message's result text, and the error it reports (``status: error``)."""
    content = message.get("content")
    result = content if isinstance(content, str) else dump_json_compact(content)
    return result, result if message.get("status") == "error" else None


# --- a message list as a trace -----------------------------------------------------------------


def read_messages(
    messages: list[Any], errors: Errors, task_id: str, prefix: str = ""
) -> AgentTrace:
    """Return the trace of a LangChain conversation (a list of messages in any saved form).

    Each AI message is a model turn: a ``thought`` step with its text, model, finish reason and
    tokens, then one ``tool_call`` step per call it asked for; tool messages fill in their
    calls by ``tool_call_id``. Human and system messages make no step. Raises TraceFormatError
    naming the item that is not a LangChain message. ``prefix`` locates the list in its file.
    """
    steps = StepList()
    for index, value in enumerate(messages):
        where = join_path(prefix, index)
        message = normalize(value)
        speaker = role(message) if message is not None else None
        if message is None or speaker is None:
            raise errors(
                "expected a LangChain message (type human, ai, tool or system, with content)",
                where or None,
            )
        if speaker == "assistant":
            steps.add_turn(_turn(message, where, errors))
        elif speaker == "tool":
            result, failure = tool_result(message)
            steps.add_result(
                call_id=optional_str(message, "tool_call_id"),
                text=result,
                error=failure,
                tool_name=None,
            )
        else:
            steps.add_message(speaker, text(message.get("content")))
    return steps.trace(task_id, errors)


def _turn(message: dict[str, Any], where: str, errors: Errors) -> Turn:
    metadata = message.get("response_metadata")
    metadata = metadata if isinstance(metadata, dict) else {}
    provider = next(
        (str(metadata[k]) for k in PROVIDER_KEYS if isinstance(metadata.get(k), str)), None
    )
    turn = Turn(
        provider=provider,
        model=optional_str(metadata, "model_name") or optional_str(metadata, "model"),
        finish_reason=optional_str(metadata, "finish_reason")
        or optional_str(metadata, "stop_reason"),
        tokens=usage(message),
    )
    turn.texts.append(text(message.get("content")))
    for call_id, step in tool_calls(message, where, errors):
        turn.calls.append((step, call_id, True))
    return turn
