"""The one rule every adapter follows for a tool call's arguments.

Models emit arguments as JSON text, and sometimes the text is broken or is not an object. That
must never crash a read, nor silently score as "no arguments": such a call keeps the raw text,
gets ``tool_args=None``, and says why in ``error``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from openeval.jsonio import MAX_JSON_DEPTH, dump_json_compact, json_kind, loads_exact, too_deep


@dataclass(frozen=True)
class ToolArgs:
    """Tool arguments as read from a source: a JSON object, or the raw text and why not."""

    args: dict[str, Any] | None
    """The arguments; None when they are not a JSON object."""
    raw: str = ""
    """The arguments as text when they are not a JSON object (goes to the step's content)."""
    error: str | None = None
    """Why the arguments are not a JSON object; None when they are."""


def parse_tool_args(value: Any) -> ToolArgs:
    """Return the tool arguments in ``value`` (JSON text or an already-decoded value).

    A JSON object (or JSON text of one) gives ``args``; None and blank text give ``{}`` (a
    tool without parameters). Anything else (invalid JSON, a list, a number, an object nested
    past MAX_JSON_DEPTH) gives ``args=None`` with the raw text and the reason.
    """
    if type(value) is str:  # the usual case first: JSON text from the model
        return _parse_text(value)
    if isinstance(value, dict):
        if too_deep(value, MAX_JSON_DEPTH) is not None:
            return ToolArgs(
                None, dump_json_compact(value),
                f"arguments nested more than {MAX_JSON_DEPTH} levels deep",
            )
        return ToolArgs(value)
    if value is None:
        return ToolArgs({})
    if not isinstance(value, str):
        return ToolArgs(
            None, dump_json_compact(value), f"{_NOT_OBJECT}: got {json_kind(value)}"
        )
    return _parse_text(value)


def _parse_text(value: str) -> ToolArgs:
    if not value.strip():
        return ToolArgs({})
    try:
        decoded = loads_exact(value)
    except orjson.JSONDecodeError as exc:
        return ToolArgs(
            None, value, f"{_NOT_OBJECT}: invalid JSON ({exc.msg} at column {exc.colno})"
        )
    except (MemoryError, SystemError):  # orjson's failed allocation; kept as text
        return ToolArgs(None, value, f"{_NOT_OBJECT}: too large to parse in the memory available")
    if not isinstance(decoded, dict):
        return ToolArgs(None, value, f"{_NOT_OBJECT}: got {json_kind(decoded)}")
    if len(value) > _SHALLOW_TEXT and too_deep(decoded, MAX_JSON_DEPTH) is not None:
        # Kept as text: a value that deep could not be written back out as JSON.
        return ToolArgs(None, value, f"arguments nested more than {MAX_JSON_DEPTH} levels deep")
    return ToolArgs(decoded)


def decoded_object(text: str) -> dict[str, Any] | None:
    """Return the JSON object ``text`` holds when :func:`parse_tool_args` reads it as arguments
    with no error (``ToolArgs(decoded)``); None for anything else (blank, broken, not an
    object, too deep), which :func:`parse_tool_args` explains. For readers that build the
    step themselves on the usual path."""
    try:
        decoded = loads_exact(text)
    except (orjson.JSONDecodeError, MemoryError, SystemError):
        return None
    if type(decoded) is not dict:
        return None
    if len(text) > _SHALLOW_TEXT and too_deep(decoded, MAX_JSON_DEPTH) is not None:
        return None
    return decoded


_NOT_OBJECT = "arguments are not a JSON object"
_SHALLOW_TEXT = 2 * MAX_JSON_DEPTH + 1
"""Longest JSON text that cannot nest past MAX_JSON_DEPTH (each level takes an opening and a
closing bracket), so its decoded value needs no depth walk."""
