"""Reading and writing JSON: fast (orjson), canonical on output, precise in its errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from openeval.errors import OpenEvalError

_DUMP_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE


def parse_json(
    data: bytes | str,
    *,
    source: str | Path | None = None,
    error: type[OpenEvalError] = OpenEvalError,
    first_line: int = 1,
) -> Any:
    """Return the JSON value in ``data``; raise ``error`` naming the line and column if invalid.

    ``first_line`` is the line number of ``data``'s first line in its file, for JSON Lines.
    """
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        line = first_line + exc.lineno - 1
        raise error(
            f"invalid JSON: {exc.msg} (expected a complete JSON value)",
            source=source,
            location=f"line {line} column {exc.colno}",
        ) from None


def read_json_file(path: Path, *, error: type[OpenEvalError] = OpenEvalError) -> Any:
    """Return the JSON value stored in ``path``; raise ``error`` naming the file when unreadable."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise error("file not found", source=path) from None
    except IsADirectoryError:
        raise error("is a folder, expected a JSON file", source=path) from None
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror}", source=path) from None
    return parse_json(data, source=path, error=error)


def dump_json(value: Any) -> bytes:
    """Return ``value`` as canonical JSON bytes: sorted keys, two-space indent, final newline.

    The same value always gives the same bytes, which keeps result files byte-identical.
    """
    return orjson.dumps(value, option=_DUMP_OPTIONS)


def dump_json_compact(value: Any) -> str:
    """Return ``value`` as compact JSON text with sorted keys (for tool results kept as text).

    orjson decodes 1024 levels of nesting but encodes only 254, so a hostile file can hold a
    value that reads fine and cannot be written back: such a value is named, not raised.
    """
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except orjson.JSONEncodeError:
        return "[a value nested too deeply to show]"


def json_kind(value: Any) -> str:
    """Return how the JSON type of ``value`` reads in a message: "a string", "null" ..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a JSON object"
    return type(value).__name__
