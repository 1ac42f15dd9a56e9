"""GenAI spans that say the standard things in other places, rewritten to the standard ones.

:mod:`.genai` reads content from the GenAI attributes (``gen_ai.input.messages``,
``gen_ai.output.messages``, ``gen_ai.tool.call.arguments`` / ``.result``). Real producers put
the same content elsewhere; :func:`lift` copies it onto those attributes, leaving a span
untouched when it already has them (a recorded attribute always wins over a derived one):

- span events, one per message (Strands' default conventions, and the GenAI event
  conventions written as span events): ``gen_ai.system.message``, ``gen_ai.user.message``,
  ``gen_ai.assistant.message``, ``gen_ai.tool.message``, ``gen_ai.choice``;
- ``gen_ai.client.inference.operation.details`` events holding the messages (the
  ``gen_ai_latest_experimental`` conventions);
- Google ADK's legacy attributes: ``gcp.vertex.agent.llm_request`` / ``llm_response`` (the
  Gemini request and response) and ``gcp.vertex.agent.tool_call_args`` / ``tool_response``;
- Pydantic AI instrumentation version 2: ``tool_arguments`` / ``tool_response``.

Every value is parsed under the project's depth bound; what does not parse is left out, as if
it had not been recorded. See ``proposals/0130-otel-conventions.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import orjson

from openeval.adapters.otel.otlp import Span
from openeval.jsonio import MAX_JSON_DEPTH, dump_json_compact, loads_exact, too_deep

INPUT = "gen_ai.input.messages"
OUTPUT = "gen_ai.output.messages"
INSTRUCTIONS = "gen_ai.system_instructions"
ARGS = "gen_ai.tool.call.arguments"
RESULT = "gen_ai.tool.call.result"
DETAILS_EVENT = "gen_ai.client.inference.operation.details"
_MESSAGE_EVENTS = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
_CHOICE = "gen_ai.choice"
_ADK_REQUEST = "gcp.vertex.agent.llm_request"
_ADK_RESPONSE = "gcp.vertex.agent.llm_response"
_ADK_ARGS = "gcp.vertex.agent.tool_call_args"
_ADK_RESULT = "gcp.vertex.agent.tool_response"
_STRANDS = "strands-agents"
ADK_NOT_RECORDED = "<not specified>"
"""What ADK writes in place of arguments and results when content capture is off."""


ADK_CONTENT_OFF = (
    "Google ADK recorded this run with content capture off, so its spans hold no tool "
    "arguments or results: set ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true (or "
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true for ADK's GenAI spans) and "
    "record the run again"
)
"""The ``not_recorded`` note of an ADK trace recorded without content."""


def content_off_note(spans: list[Span]) -> str | None:
    """Return why a producer's spans hold tool names without arguments, when they say so:
    ADK's legacy spans with every model request and response empty (``{}``, what ADK writes
    with content capture off; a tool's own ``{}`` arguments alone may be a tool without any)."""
    legacy = [s for s in spans if _ADK_REQUEST in s.attributes or _ADK_ARGS in s.attributes]
    if legacy and not any(_adk_content(s) for s in legacy):
        return ADK_CONTENT_OFF
    return None


def parsed(value: Any) -> Any:
    """Return JSON text parsed (None when it does not parse or nests past the bound);
    other values as they are."""
    if not isinstance(value, str):
        return value
    try:
        out = loads_exact(value)
    except orjson.JSONDecodeError:
        return None
    return None if too_deep(out, MAX_JSON_DEPTH) is not None else out


def _operation(span: Span) -> str:
    op = span.attributes.get("gen_ai.operation.name")
    return op if isinstance(op, str) and op else span.name.split(" ", 1)[0]


def _put(span: Span, lifted: dict[str, Any], key: str, value: Any) -> None:
    """Set ``key`` unless the span recorded it or an earlier place already gave it."""
    if key not in span.attributes and key not in lifted:
        lifted[key] = value


def _block_text(blocks: Any) -> str:
    """Return the text of content blocks (``[{"text": ...}, {"json": ...}]``) or a string."""
    if isinstance(blocks, str):
        return blocks
    if isinstance(blocks, dict):
        blocks = [blocks]
    texts: list[str] = []
    for block in blocks if isinstance(blocks, list) else ():
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif isinstance(block, dict) and "json" in block:
            texts.append(dump_json_compact(block["json"]))
    return "\n".join(texts)


def _parts(content: Any) -> list[dict[str, Any]]:
    """Return GenAI message parts for one message's content, in any of the shapes seen:
    Bedrock-style blocks (``text``, ``toolUse``, ``toolResult``), Gemini parts (``text``,
    ``function_call``, ``function_response``), or plain text."""
    if isinstance(content, str):
        value = parsed(content) if content[:1] in ("[", "{") else None
        content = value if isinstance(value, (list, dict)) else content
    if isinstance(content, str):
        return [{"type": "text", "content": content}] if content else []
    if isinstance(content, dict):
        content = [content]
    parts: list[dict[str, Any]] = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        use = block.get("toolUse")
        done = block.get("toolResult")
        call = block.get("function_call", block.get("functionCall"))
        response = block.get("function_response", block.get("functionResponse"))
        if isinstance(block.get("text"), str):
            parts.append({"type": "text", "content": block["text"]})
        elif isinstance(use, dict):
            parts.append({"type": "tool_call", "id": use.get("toolUseId"),
                          "name": use.get("name"), "arguments": use.get("input")})
        elif isinstance(done, dict):
            parts.append({"type": "tool_call_response", "id": done.get("toolUseId"),
                          "response": _block_text(done.get("content"))})
        elif isinstance(call, dict):
            parts.append({"type": "tool_call", "id": call.get("id"), "name": call.get("name"),
                          "arguments": call.get("args")})
        elif isinstance(response, dict):
            parts.append({"type": "tool_call_response", "id": response.get("id"),
                          "response": response.get("response")})
    return parts


def _openai_calls(calls: Any) -> list[dict[str, Any]]:
    """Return tool-call parts of OpenAI-style ``tool_calls`` (the GenAI event conventions)."""
    out: list[dict[str, Any]] = []
    for call in calls if isinstance(calls, list) else ():
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            out.append({"type": "tool_call", "id": call.get("id"), "name": function.get("name"),
                        "arguments": function.get("arguments")})
    return out


def _event_message(role: str, attrs: dict[str, Any]) -> dict[str, Any]:
    parts = _parts(attrs.get("content"))
    parts.extend(_openai_calls(parsed(attrs.get("tool_calls"))))
    if role == "tool" and not any(p["type"] == "tool_call_response" for p in parts):
        # The GenAI event form: the tool's answer in "content", its call in "id".
        parts = [{"type": "tool_call_response", "id": attrs.get("id"),
                  "response": _block_text(attrs.get("content"))}]
    return {"role": role, "parts": parts}


def _choice_message(attrs: dict[str, Any]) -> dict[str, Any]:
    message = attrs.get("message")
    value = parsed(message) if isinstance(message, str) and message[:1] in ("[", "{") else None
    if isinstance(value, dict) and ("content" in value or "tool_calls" in value):
        parts = _parts(value.get("content")) + _openai_calls(value.get("tool_calls"))
    else:
        parts = _parts(value if value is not None else message)
    out: dict[str, Any] = {"role": "assistant", "parts": parts}
    if attrs.get("finish_reason") is not None:
        out["finish_reason"] = attrs["finish_reason"]
    return out


def _from_message_events(span: Span, lifted: dict[str, Any]) -> None:
    """Strands' default conventions and the GenAI event conventions, as span events."""
    op = _operation(span)
    inputs: list[dict[str, Any]] = []
    outputs: list[dict[str, Any]] = []
    system: list[str] = []
    tool_args: Any = None
    tool_result: Any = None
    for event in span.events:
        role = _MESSAGE_EVENTS.get(event.name)
        if op == "execute_tool":
            if role == "tool" and tool_args is None:
                tool_args = event.attributes.get("content")
            elif event.name == _CHOICE and tool_result is None:
                tool_result = _block_text(parsed(event.attributes.get("message"))
                                          or event.attributes.get("message"))
            continue
        if role == "system":
            system.append(_block_text(parsed(event.attributes.get("content"))
                                      or event.attributes.get("content")))
        elif role is not None:
            inputs.append(_event_message(role, event.attributes))
        elif event.name == _CHOICE:
            outputs.append(_choice_message(event.attributes))
    if tool_args is not None:
        _put(span, lifted, ARGS, tool_args)
    if tool_result is not None:
        _put(span, lifted, RESULT, tool_result)
    if system:
        _put(span, lifted, INSTRUCTIONS, "\n".join(t for t in system if t))
    if inputs:
        _put(span, lifted, INPUT, inputs)
    if outputs:
        _put(span, lifted, OUTPUT, outputs)


def _from_details_events(span: Span, lifted: dict[str, Any]) -> None:
    """The ``gen_ai_latest_experimental`` conventions: messages on operation-details events."""
    for event in span.events:
        if event.name != DETAILS_EVENT:
            continue
        for key in (INPUT, OUTPUT, INSTRUCTIONS):
            if key in event.attributes:
                _put(span, lifted, key, event.attributes[key])


def _gemini_message(content: Any) -> dict[str, Any] | None:
    if not isinstance(content, dict):
        return None
    role = content.get("role")
    return {"role": "assistant" if role == "model" else role if isinstance(role, str) else "user",
            "parts": _parts(content.get("parts"))}


def _adk_content(span: Span) -> dict[str, Any]:
    """Return the GenAI content of an ADK ``call_llm`` span's request and response, or {}."""
    request = parsed(span.attributes.get(_ADK_REQUEST))
    response = parsed(span.attributes.get(_ADK_RESPONSE))
    content: dict[str, Any] = {}
    if isinstance(request, dict) and request:
        contents = request.get("contents")
        messages = [m for m in map(_gemini_message, contents if isinstance(contents, list) else ())
                    if m is not None]
        content[INPUT] = messages
        config = request.get("config")
        instruction = config.get("system_instruction") if isinstance(config, dict) else None
        if isinstance(instruction, str) and instruction:
            content[INSTRUCTIONS] = instruction
        tools = config.get("tools") if isinstance(config, dict) else None
        declared = [d for tool in tools if isinstance(tool, dict)
                    for d in tool.get("function_declarations") or () if isinstance(d, dict)
                    ] if isinstance(tools, list) else []
        if declared:
            content["gen_ai.tool.definitions"] = declared
    if isinstance(response, dict) and response:
        message = _gemini_message(response.get("content"))
        if message is not None:
            if response.get("finish_reason") is not None:
                message["finish_reason"] = response["finish_reason"]
            content[OUTPUT] = [message]
    return content


def _adk_targets(spans: list[Span]) -> dict[int, dict[str, Any]]:
    """Return, by span, the ADK model content it is to carry.

    ADK's legacy schema puts a model call's content on its ``call_llm`` span; when ADK also
    records the call as a GenAI ``generate_content`` span under it, that child carries the
    content (one model turn, not two); else ``call_llm`` itself becomes the model span.
    """
    targets: dict[int, dict[str, Any]] = {}
    children: dict[str, list[Span]] = {}
    for span in spans:
        if span.parent_id:
            children.setdefault(span.parent_id, []).append(span)
    for span in spans:
        content = _adk_content(span)
        if not content:
            continue
        models = [c for c in children.get(span.span_id, ())
                  if _operation(c) in ("chat", "generate_content", "text_completion")]
        if models:
            targets[id(models[0])] = content
        else:
            targets[id(span)] = {"gen_ai.operation.name": "generate_content", **content}
    return targets


def _from_adk(span: Span, lifted: dict[str, Any]) -> None:
    """Google ADK's legacy tool attributes (``gcp.vertex.agent.tool_call_args`` ...)."""
    if _operation(span) != "execute_tool":
        return
    args, result = span.attributes.get(_ADK_ARGS), span.attributes.get(_ADK_RESULT)
    if args is not None and args != ADK_NOT_RECORDED:
        _put(span, lifted, ARGS, args)
    if result is not None and result != ADK_NOT_RECORDED:
        _put(span, lifted, RESULT, result)


def _from_pydantic_v2(span: Span, lifted: dict[str, Any]) -> None:
    """Pydantic AI's instrumentation version 2 names for a tool's arguments and result."""
    if _operation(span) != "execute_tool":
        return
    if "tool_arguments" in span.attributes:
        _put(span, lifted, ARGS, span.attributes["tool_arguments"])
    if "tool_response" in span.attributes:
        _put(span, lifted, RESULT, span.attributes["tool_response"])


def _strands_result(span: Span, lifted: dict[str, Any]) -> None:
    """Strands records a tool's result as content blocks and its answer with a newline."""
    system = span.attributes.get("gen_ai.provider.name", span.attributes.get("gen_ai.system"))
    if system != _STRANDS:
        return
    result = span.attributes.get(RESULT, lifted.get(RESULT))
    blocks = parsed(result) if isinstance(result, str) and result[:1] == "[" else None
    if isinstance(blocks, list) and blocks and all(
            isinstance(b, dict) and ("text" in b or "json" in b) for b in blocks):
        lifted[RESULT] = _block_text(blocks)
    if _operation(span) == "invoke_agent":
        messages = span.attributes.get(OUTPUT, lifted.get(OUTPUT))
        messages = parsed(messages) if isinstance(messages, str) else messages
        if isinstance(messages, list):
            lifted[OUTPUT] = [_mapped_parts(m, _stripped) for m in messages]
    messages = span.attributes.get(INPUT, lifted.get(INPUT))
    messages = parsed(messages) if isinstance(messages, str) else messages
    if isinstance(messages, list):
        lifted[INPUT] = [_mapped_parts(m, _response_text) for m in messages]


def _stripped(part: dict[str, Any]) -> dict[str, Any]:
    content = part.get("content")
    return {**part, "content": content.strip()} if isinstance(content, str) else part


def _response_text(part: dict[str, Any]) -> dict[str, Any]:
    response = part.get("response")
    if part.get("type") == "tool_call_response" and isinstance(response, list) and all(
            isinstance(b, dict) and ("text" in b or "json" in b) for b in response):
        return {**part, "response": _block_text(response)}
    return part


def _mapped_parts(message: Any, change: Callable[[dict[str, Any]], dict[str, Any]]) -> Any:
    if not isinstance(message, dict) or not isinstance(message.get("parts"), list):
        return message
    parts = [change(p) if isinstance(p, dict) else p for p in message["parts"]]
    return {**message, "parts": parts}


_LIFTS = (_from_details_events, _from_message_events, _from_adk, _from_pydantic_v2,
          _strands_result)


def lift(spans: list[Span]) -> list[Span]:
    """Return ``spans`` with content found elsewhere copied onto the standard attributes;
    a span with nothing to add is returned as it is."""
    out: list[Span] = []
    adk = _adk_targets(spans)
    # With content capture off ADK writes "{}" for every argument list and result: unknown,
    # not empty.
    lifts = _LIFTS if content_off_note(spans) is None else tuple(
        step for step in _LIFTS if step is not _from_adk)
    for span in spans:
        lifted: dict[str, Any] = {}
        for key, value in adk.get(id(span), {}).items():
            _put(span, lifted, key, value)
        for step in lifts:
            step(span, lifted)
        fresh = {k: v for k, v in lifted.items() if span.attributes.get(k) != v}
        out.append(replace(span, attributes={**span.attributes, **fresh}) if fresh else span)
    return out
