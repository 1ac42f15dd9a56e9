"""Reading and writing JSON: fast (orjson), canonical on output, precise in its errors.

orjson reads an integer beyond 64 bits as a float, silently rounding it (an order id
``12345678901234567890123456789`` would equal ``...788``). :func:`parse_json` notices a
document that may hold such a number and reads it again with the standard library, which keeps
every integer exact; the writers fall back the same way, since orjson cannot write them either.
"""

from __future__ import annotations

import json
import sys
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
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        line = first_line + exc.lineno - 1
        raise error(
            f"invalid JSON: {exc.msg} (expected a complete JSON value)",
            source=source,
            location=f"line {line} column {exc.colno}",
        ) from None
    if _may_hold_big_integer(data):
        return _parse_exact(data, source=source, error=error)
    return value


# Every byte maps to "." except digits, which map to "0": a run of 19 digits is then one
# bytes.find away, about five times faster than orjson's own parse (a regex would be slower).
_DIGIT_MAP = bytes(48 if 48 <= b <= 57 else 46 for b in range(256))
_LONG_RUN = b"0" * 19  # 19 digits can exceed int64; orjson turns such integers into floats
_BEFORE_NUMBER = frozenset(b" \t\r\n[,:-")


def _may_hold_big_integer(data: bytes | str) -> bool:
    """Return True when ``data`` has a number token of 19 or more digits (outside a string,
    as far as the character before it tells; a false alarm only costs a slower parse)."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    digits = raw.translate(_DIGIT_MAP)
    start = digits.find(_LONG_RUN)
    while start != -1:
        if start == 0 or raw[start - 1] in _BEFORE_NUMBER:
            return True
        end = digits.find(b".", start)
        if end == -1:
            return False
        start = digits.find(_LONG_RUN, end)
    return False


def _parse_exact(
    data: bytes | str, *, source: str | Path | None, error: type[OpenEvalError]
) -> Any:
    """Return the already validated JSON ``data`` read with exact integers (standard library)."""
    try:
        return json.loads(data)
    except RecursionError:
        raise error(
            "a value holding an integer beyond 64 bits is nested too deeply to read exactly",
            source=source,
        ) from None
    except ValueError:
        limit = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 0
        raise error(
            f"an integer has more than {limit} digits (expected a number Python can read)",
            source=source,
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
    try:
        return orjson.dumps(value, option=_DUMP_OPTIONS)
    except orjson.JSONEncodeError as exc:
        if not _is_big_integer_error(exc):
            raise
        text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
        return (text + "\n").encode()


def _is_big_integer_error(exc: orjson.JSONEncodeError) -> bool:
    return "Integer exceeds" in str(exc)


def dump_json_compact(value: Any) -> str:
    """Return ``value`` as compact JSON text with sorted keys (for tool results kept as text).

    orjson decodes 1024 levels of nesting but encodes only 254, so a hostile file can hold a
    value that reads fine and cannot be written back: such a value is named, not raised.
    """
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()
    except orjson.JSONEncodeError as exc:
        if _is_big_integer_error(exc):
            try:
                return json.dumps(value, sort_keys=True, separators=(",", ":"),
                                  ensure_ascii=False)
            except (ValueError, TypeError, RecursionError):
                pass
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
