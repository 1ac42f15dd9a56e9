"""Read text, turns and tool calls out of a check's input, whatever shape it came in.

Each function takes a :class:`~openeval.checks.CheckContext` (or a text or trace, read as one
with :func:`~openeval.checks.as_context`) or the raw value itself, as its docstring says. For a
context the answer comes from our model (``final_output``, ``trace.messages``, the trace's
``tool_call`` steps); for a raw value it comes from the message shapes SDKs write:

- a plain string, one message dict, or a list of messages (and strings);
- a message's text as a ``content`` string, a list of content blocks (OpenAI chat and
  Responses, Anthropic), or OpenTelemetry gen_ai ``parts``;
- :class:`~openeval.models.Message` objects, as ``trace.messages`` holds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

import orjson

from openeval.checks._context import CheckContext, as_context
from openeval.jsonio import loads_exact
from openeval.models import AgentTrace, Message

_TEXT_BLOCK_TYPES = frozenset({"text", "input_text", "output_text"})
_TOOL_CALL_TYPES = frozenset({"tool_call", "function_call", "tool_use"})

# Cuts for the few scans below that walk a text in Python rather than in a regex engine.
_JSON_SCAN_CHARS = 100_000
_JSON_SCAN_STARTS = 16


def _context_of(value: Any) -> CheckContext | None:
    """Return ``value`` as a context when it is one or a trace; else None (a raw value)."""
    if isinstance(value, (CheckContext, AgentTrace)):
        return as_context(value)
    return None


def _role_of(message: Any) -> str | None:
    if isinstance(message, Message):
        return message.role
    if isinstance(message, Mapping):
        role = message.get("role")
        return role if isinstance(role, str) else None
    return None


def _block_text(block: Any) -> str:
    """Return the text of one content block or gen_ai part (tool calls have none)."""
    if isinstance(block, str):
        return block
    if not isinstance(block, Mapping):
        return ""
    kind = block.get("type")
    if kind in _TOOL_CALL_TYPES:
        return ""
    if kind == "tool_result":  # Anthropic: a tool's answer, itself text or blocks
        return _content_text(block.get("content"))
    if kind == "tool_call_response":  # gen_ai part holding a tool's answer
        return _content_text(block.get("response"))
    text = block.get("text")
    if isinstance(text, str):
        return text
    content = block.get("content")
    if isinstance(content, str) and (kind is None or kind in _TEXT_BLOCK_TYPES):
        return content
    return ""


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(t for t in (_block_text(b) for b in content) if t)
    if isinstance(content, Mapping):
        return _block_text(content)
    return _json_text(content)


def _message_body(message: Any) -> str:
    """Return the text of one message (or string, or block) with no role filter."""
    if isinstance(message, str):
        return message
    if isinstance(message, Message):
        return message.content
    if isinstance(message, Mapping):
        if "content" in message:
            return _content_text(message["content"])
        if "parts" in message:
            return _content_text(message["parts"])
        return _block_text(message)
    return ""


def _json_text(value: Any) -> str:
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return str(value)


def message_text(value: Any, role: str | None = None, default_role: str | None = None) -> str:
    """Return the plain text of a message value.

    Args:
        value: A string (returned as it is, whatever ``role`` is), a message dict or
            :class:`~openeval.models.Message`, or a list of messages and strings. Any other
            value is returned as its JSON text; None gives "".
        role: Keep only messages of this role (``user``, ``assistant``, ``system``, ``tool``);
            None keeps every message.
        default_role: The role of a message (or bare string in a list) that has none; None
            means ``role``, so a bare message counts as the role asked for.

    Returns:
        The text of the kept messages, joined by new lines.
    """
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if not isinstance(value, (list, tuple, Mapping, Message)):
        return _json_text(value)
    items = value if isinstance(value, (list, tuple)) else [value]
    fallback = role if default_role is None else default_role
    kept = []
    for item in items:
        if role is not None and (_role_of(item) or fallback) != role:
            continue
        body = _message_body(item)
        if body:
            kept.append(body)
    return "\n".join(kept)


def reply(ctx: Any) -> str:
    """Return the text of the assistant's reply.

    Args:
        ctx: A context (or text or trace): its ``output``, the trace's final output. Or an
            output value: its assistant messages' text, where a message with no role counts as
            the assistant's.
    """
    context = _context_of(ctx)
    if context is not None:
        return context.output
    return message_text(ctx, role="assistant", default_role="assistant")


def user_text(ctx: Any) -> str:
    """Return the text of every user message before the reply.

    Args:
        ctx: A context (reads its ``input``), or an input value. A message with no role counts
            as the user's; a plain string input is returned as it is.
    """
    context = _context_of(ctx)
    value = context.input if context is not None else ctx
    return message_text(value, role="user", default_role="user")


def _as_turns(value: Any, default_role: str) -> list[dict[str, str]]:
    if value is None:
        return []
    if isinstance(value, str):
        return [{"role": default_role, "content": value}] if value else []
    items = value if isinstance(value, (list, tuple)) else [value]
    found = []
    for item in items:
        content = _message_body(item) if isinstance(item, (str, Mapping, Message)) else ""
        if content:
            found.append({"role": _role_of(item) or default_role, "content": content})
    return found


def turns(ctx: Any, include_reply: bool = True) -> list[dict[str, str]]:
    """Return the conversation as a list of ``{"role", "content"}`` turns, in order.

    Args:
        ctx: A context: the turns of its ``input`` (the conversation before the reply), then
            the reply (``final_output``) as an assistant turn. Or a raw message value (the
            conversation so far), where a message with no role is a user turn.
        include_reply: Add the reply at the end (contexts only).

    Returns:
        The turns; a plain string is one user turn. Turns with no text are left out.
    """
    context = _context_of(ctx)
    if context is None:
        return _as_turns(ctx, "user")
    found = _as_turns(context.input, "user")
    if include_reply and context.output:
        found.append({"role": "assistant", "content": context.output})
    return found


def last_user_message(ctx: Any) -> str:
    """Return the text of the last user turn before the reply, or "" when there is none.

    Args:
        ctx: A context, or a raw message value (see :func:`turns`).
    """
    for turn in reversed(turns(ctx, include_reply=False)):
        if turn["role"] == "user":
            return turn["content"]
    return ""


def _parsed_arguments(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return loads_exact(value)
        except orjson.JSONDecodeError:
            return value
    return value


def _raw_tool_calls(value: Any, found: list[dict[str, Any]], depth: int = 0) -> None:
    """Append every tool call in a raw message value to ``found``."""
    if depth > 4:  # messages nest blocks in content, never deeper than a few levels
        return
    if isinstance(value, (list, tuple)):
        for item in value:
            _raw_tool_calls(item, found, depth + 1)
        return
    if not isinstance(value, Mapping):
        return
    calls = value.get("tool_calls")
    if isinstance(calls, list):  # OpenAI chat: {"id", "function": {"name", "arguments"}}
        for call in calls:
            if isinstance(call, Mapping):
                function = call.get("function")
                source = function if isinstance(function, Mapping) else call
                found.append(_call(call.get("id"), source.get("name"),
                                   source.get("arguments")))
    kind = value.get("type")
    if kind == "function_call":  # OpenAI Responses item
        found.append(_call(value.get("call_id", value.get("id")), value.get("name"),
                           value.get("arguments")))
    elif kind == "tool_use":  # Anthropic content block
        found.append(_call(value.get("id"), value.get("name"), value.get("input")))
    elif kind == "tool_call":  # OpenTelemetry gen_ai part
        found.append(_call(value.get("id"), value.get("name"), value.get("arguments")))
    for key in ("content", "parts", "output"):
        nested = value.get(key)
        if isinstance(nested, (list, tuple, Mapping)):
            _raw_tool_calls(nested, found, depth + 1)


def _call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    return {
        "id": call_id if isinstance(call_id, str) else ("" if call_id is None else str(call_id)),
        "name": name if isinstance(name, str) else "",
        "arguments": _parsed_arguments(arguments),
    }


def tool_calls(ctx_or_value: Any) -> list[dict[str, Any]]:
    """Return every tool call, in order, as ``{"id", "name", "arguments"}`` dicts.

    Args:
        ctx_or_value: A context (or trace): its ``tool_call`` steps, denied ones included;
            ``id`` is the step id as text, ``arguments`` the step's arguments, or the raw text
            the adapter kept when they were not a JSON object. Or a raw message value: OpenAI
            chat ``tool_calls``, OpenAI Responses ``function_call`` items, Anthropic
            ``tool_use`` blocks and OpenTelemetry gen_ai ``tool_call`` parts.

    Returns:
        The calls. ``arguments`` is parsed when it is JSON text, else kept as it came (text
        that is not JSON stays text); ``name`` is "" when the call has none.
    """
    context = _context_of(ctx_or_value)
    if context is not None:
        return [
            {
                "id": str(step.step_id),
                "name": step.tool_name or "",
                "arguments": step.tool_args if step.tool_args is not None
                else (step.content or {}),
            }
            for step in context.steps
            if step.type == "tool_call"
        ]
    found: list[dict[str, Any]] = []
    _raw_tool_calls(ctx_or_value, found)
    return found


_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n")
_PUNCTUATION = re.compile(r"[^\w\s]|_")
_SPACE = re.compile(r"\s+")


def words(text: str, lower: bool = True) -> list[str]:
    """Return the words of ``text``: runs of letters, digits and underscores, in order.

    ``lower`` lower-cases them first.
    """
    return _WORD.findall(text.lower() if lower else text)


def iter_words(text: str, lower: bool = True) -> Iterator[str]:
    """Yield the words of ``text`` one by one, as :func:`words` returns them.

    Lets a check stop early on a huge text.
    """
    for match in _WORD.finditer(text):
        word = match.group()
        yield word.lower() if lower else word


def sentences(text: str) -> list[str]:
    """Return the sentences of ``text``, stripped, empty ones left out.

    A sentence ends at ``.``, ``?`` or ``!`` followed by white space, or at a blank line.
    """
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def normalize(text: str) -> str:
    """Return ``text`` in lower case, punctuation (and ``_``) made spaces, spaces single.

    So "Paris." equals "paris", and "state-of-the-art" reads as four words.
    """
    return _SPACE.sub(" ", _PUNCTUATION.sub(" ", text.lower())).strip()


# Fences open at a line start, so a long line full of backticks is scanned once.
_FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+.-]*)[^\n]*\n(.*?)^[ \t]*```", re.DOTALL | re.MULTILINE)


def parse_json(text: str) -> tuple[bool, Any]:
    """Return ``(True, value)`` when ``text`` is one JSON value, else ``(False, None)``.

    Strict JSON: NaN and Infinity are refused.
    """
    try:
        return True, loads_exact(text)
    except orjson.JSONDecodeError:
        return False, None


_STRUCTURE = re.compile(r'[{}\[\]"\\]')


def _balanced_end(text: str, start: int, budget: list[int]) -> int:
    """Return the index after the bracket that closes the one at ``start``, or -1.

    ``budget`` (a one-item list) counts the brackets and quotes visited across calls, so a
    text of nothing but brackets costs a bounded amount.
    """
    depth = 0
    in_string = False
    escaped_at = -1
    for match in _STRUCTURE.finditer(text, start):
        budget[0] -= 1
        if budget[0] < 0:
            return -1
        char = match.group()
        index = match.start()
        if in_string:
            if char == "\\":
                if escaped_at != index:
                    escaped_at = index + 1
            elif char == '"' and escaped_at != index:
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
    return -1


def extract_json(text: Any) -> Any:
    """Return the first JSON value found in ``text``, or None when there is none.

    Tries, in order: the whole text; the first fenced code block (```json or ```); then the
    first balanced ``{...}`` or ``[...]`` that parses, looking at the first 100,000
    characters and 16 opening brackets. A dict or list is returned as it is.
    """
    if isinstance(text, (dict, list)):
        return text
    if not isinstance(text, str):
        return None
    ok, value = parse_json(text)
    if ok:
        return value
    fence = _FENCE.search(text) if "```" in text else None
    if fence and fence.group(1).lower() in ("", "json"):
        ok, value = parse_json(fence.group(2))
        if ok:
            return value
    head = text[:_JSON_SCAN_CHARS]
    budget = [_JSON_SCAN_CHARS]
    starts = (m.start() for m in re.finditer(r"[{\[]", head))
    for tried, start in enumerate(starts):
        if tried >= _JSON_SCAN_STARTS or budget[0] < 0:
            break
        end = _balanced_end(head, start, budget)
        if end > 0:
            ok, value = parse_json(head[start:end])
            if ok:
                return value
    return None


_SUFFIXES = ("", "_int", "_float", "_double", "_bool", "_str", "_string")


def _metadata(ctx: Any) -> Mapping[str, Any]:
    context = _context_of(ctx)
    if context is not None:
        return context.metadata
    return ctx if isinstance(ctx, Mapping) else {}


def metadata_value(ctx: Any, *names: str, default: Any = None) -> Any:
    """Return the first metadata value found among ``names``, or ``default``.

    Each name is also tried with the type suffixes tracing SDKs add (``_int``, ``_float``,
    ``_double``, ``_bool``, ``_str``, ``_string``).

    Args:
        ctx: A context (reads ``trace.metadata``), or the metadata dict itself.
        *names: Keys to try; the first found wins.
        default: Returned when no name is found.
    """
    metadata = _metadata(ctx)
    for name in names:
        for suffix in _SUFFIXES:
            key = name + suffix
            if key in metadata:
                return metadata[key]
    return default


def as_number(value: Any) -> float | None:
    """Return ``value`` as a finite float when it is a number or a numeric text, else None.

    A bool is not a number.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def metadata_number(ctx: Any, *names: str, default: float | None = None) -> float | None:
    """Return the first metadata value among ``names`` that reads as a number, as a float.

    Like :func:`metadata_value`, but a value that is not a number (or numeric text) is
    skipped; ``default`` when no name holds one.
    """
    metadata = _metadata(ctx)
    for name in names:
        for suffix in _SUFFIXES:
            key = name + suffix
            if key in metadata:
                number = as_number(metadata[key])
                if number is not None:
                    return number
    return default
