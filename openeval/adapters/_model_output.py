"""A model call's output and an agent's input as the span formats record them.

MLflow and Langfuse store what a model returned as whatever the instrumented client gave back:
a ``chat.completion``, an Anthropic ``Message``, a bare assistant message, or text. These
functions read all of them into text and asked calls, with the rule the chat adapters follow
(a completion of several choices is refused: the run went on with one of them, and nothing
says which).
"""

from __future__ import annotations

from typing import Any

from openeval.adapters._chat import content_text
from openeval.adapters._run_steps import AskedCall
from openeval.adapters._toolkit import Errors, optional_str
from openeval.adapters.tool_args import parse_tool_args
from openeval.jsonio import dump_json_compact


def model_output(
    outputs: Any, errors: Errors, location: str
) -> tuple[str, list[AskedCall], str | None, str | None]:
    """Return (text, asked calls, finish reason, model) of a model span's outputs."""
    if outputs is None:
        return "", [], None, None
    if isinstance(outputs, str):
        return outputs, [], None, None
    if not isinstance(outputs, dict):
        return dump_json_compact(outputs), [], None, None
    model = optional_str(outputs, "model")
    choices = outputs.get("choices")
    if isinstance(choices, list):
        if len(choices) != 1:
            raise errors(
                f"{len(choices)} choices (a request with n={len(choices)}): a trace holds the "
                "one answer the agent went on with", f"{location}.choices",
            )
        choice = errors.require_dict(choices[0], f"{location}.choices[0]", "a choice")
        message = errors.require_dict(choice.get("message"), f"{location}.choices[0].message",
                                      "a message")
        text, calls = message_parts(message, errors, f"{location}.choices[0].message")
        return text, calls, optional_str(choice, "finish_reason"), model
    if outputs.get("type") == "message" or "content" in outputs or "tool_calls" in outputs:
        text, calls = message_parts(outputs, errors, location)
        return text, calls, optional_str(outputs, "stop_reason"), model
    return dump_json_compact(outputs), [], None, model


def message_parts(
    message: dict[str, Any], errors: Errors, location: str
) -> tuple[str, list[AskedCall]]:
    """Return the text and calls of an OpenAI or Anthropic assistant message."""
    content = message.get("content")
    calls: list[AskedCall] = []
    texts: list[str] = []
    if isinstance(content, list):
        for index, block in enumerate(content):
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and isinstance(block.get("text"), str):
                texts.append(block["text"])
            elif block.get("type") == "tool_use":
                name = errors.require_str(block, "name", f"{location}.content[{index}]")
                calls.append(AskedCall(name, parse_tool_args(block.get("input")),
                                       optional_str(block, "id")))
    else:
        texts.append(content_text(content, errors, f"{location}.content"))
    for index, call in enumerate(_list(message.get("tool_calls"))):
        at = f"{location}.tool_calls[{index}]"
        call = errors.require_dict(call, at, "a tool call")
        function = errors.require_dict(call.get("function"), f"{at}.function", "a function")
        name = errors.require_str(function, "name", f"{at}.function")
        calls.append(AskedCall(name, parse_tool_args(function.get("arguments")),
                               optional_str(call, "id")))
    return "\n".join(t for t in texts if t), calls


def text_of(value: Any) -> str | None:
    """Return a root span's inputs as the trace's input: text as it is, a one-value object's
    value when it is text, else compact JSON."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1:
        only = next(iter(value.values()))
        if isinstance(only, str):
            return only
    return dump_json_compact(value)


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
