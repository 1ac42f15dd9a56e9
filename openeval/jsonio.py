"""Reading and writing JSON: fast (orjson), canonical on output, precise in its errors.

Every JSON value OpenEval reads from a file is at most :data:`MAX_JSON_DEPTH` levels deep, so
everything it read can be written back out (orjson writes at most 254 levels) and no reader
recurses without bound.

orjson reads an integer beyond 64 bits as a float, silently rounding it (an order id
``12345678901234567890123456789`` would equal ``...788``). :func:`parse_json` notices a
document that may hold such a number and reads it again with the standard library, which keeps
every integer exact; the writers fall back the same way, since orjson cannot write them either.
Readers of JSON held inside a value (tool arguments as text, OTel attributes, JSON Lines) use
:func:`loads_exact`, never ``orjson.loads`` itself.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import orjson

from openeval.errors import OpenEvalError
from openeval.io.files import open_regular_fd, read_up_to

_DUMP_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE

MAX_JSON_DEPTH = 200
"""Deepest nesting of objects and lists accepted in a JSON value read from a file.

Real traces stay far below it (a LangGraph run tree of nested subgraphs reaches a few dozen
levels). It leaves room for the few levels a trace adds around a value it keeps (``steps[i].
tool_args`` ...) under the 254 levels orjson can write, so `convert` and result files never
meet a value they cannot write."""

UTF8_BOM = b"\xef\xbb\xbf"
BOM_MESSAGE = (
    "starts with a UTF-8 byte order mark (BOM), which JSON does not allow (RFC 8259 section "
    "8.1); save the file as UTF-8 without a BOM"
)
"""Why a JSON text starting with a byte order mark is refused, not read past: the parsers
of the other tools on the same files (orjson, msgspec, JavaScript's ``JSON.parse``) refuse it
too, so accepting it would pass a file the next tool fails on (docs/semantics.md#json-text)."""

_NON_FINITE = (b"NaN", b"-Infinity", b"Infinity")
"""What Python's ``json.dump`` writes for non-finite floats; not JSON, which orjson refuses."""


MAX_PARSE_BYTES = 2_000_000_000
"""Largest JSON text given to the parser as one value, whatever the read limits were raised to.

orjson gives up on a value of about 2 GiB, saying memory ran out when it did not (a line of
2,147,483,600 bytes fails, 2,013,265,920 parses, with 20 GiB free), and a crash in the parser
would end the run with no error line at all: past this size the value is refused before it is
parsed (docs/semantics.md#json-text)."""


def too_large_to_parse(size: int) -> str | None:
    """Return why ``size`` bytes of JSON are not parsed as one value, or None when they may be."""
    if size <= MAX_PARSE_BYTES:
        return None
    return (f"{size} bytes in one JSON value, over the {MAX_PARSE_BYTES}-byte most the parser "
            "reads as one value (whatever the read limits allow); split it into several")


def parse_json(
    data: bytes | str,
    *,
    source: str | Path | None = None,
    error: type[OpenEvalError] = OpenEvalError,
    first_line: int = 1,
    max_depth: int | None = None,
    expected: str = "a trace",
) -> Any:
    """Return the JSON value in ``data``; raise ``error`` naming the line and column if invalid.

    ``first_line`` is the line number of ``data``'s first line in its file, for JSON Lines.
    With ``max_depth``, a value nested deeper is refused with the JSON path where it passes
    the limit. A value too large for the memory available, or over :data:`MAX_PARSE_BYTES`,
    is refused before it is parsed, not crashed on.
    """
    refusal = too_large_to_parse(len(data))
    if refusal is not None:
        raise error(refusal, source=source,
                    location=f"line {first_line}" if first_line != 1 else None)
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise error(
            invalid_json_reason(data, exc, "expected a complete JSON value"),
            source=source,
            location=f"line {first_line + exc.lineno - 1} column {exc.colno}",
        ) from None
    except (MemoryError, SystemError):
        # orjson reports a failed allocation as SystemError ("returned a result with an
        # exception set"); both mean the value does not fit in the memory available.
        raise error(no_memory_message(len(data)), source=source) from None
    if max_depth is not None:
        path = too_deep_in(data, value, max_depth)
        if path is not None:
            raise error(depth_message(max_depth, expected), source=source,
                        location=path or None)
    if may_hold_big_integer(data):
        return _parse_exact(data, source=source, error=error)
    return value


# Every byte maps to "." except digits, which map to "0": a run of 19 digits is then one
# bytes.find away, about five times faster than orjson's own parse (a regex would be slower).
_DIGIT_MAP = bytes(48 if 48 <= b <= 57 else 46 for b in range(256))
_LONG_RUN = b"0" * 19  # 19 digits can exceed int64; orjson turns such integers into floats
_BEFORE_NUMBER = frozenset(b" \t\r\n[,:-")


def may_hold_big_integer(data: bytes | str) -> bool:
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


def loads_exact(data: bytes | bytearray | str) -> Any:
    """Return ``orjson.loads(data)``, except that integers beyond 64 bits are exact.

    Raises ``orjson.JSONDecodeError`` as ``orjson.loads`` does, also for a value whose integers
    cannot be read exactly (more digits than Python reads, or nested too deeply for the
    standard library), so callers handle one error.
    """
    value = orjson.loads(data)
    if not may_hold_big_integer(bytes(data) if isinstance(data, bytearray) else data):
        return value
    try:
        return json.loads(data)
    except RecursionError:
        reason = "a value holding an integer beyond 64 bits is nested too deeply to read exactly"
    except ValueError:
        reason = "an integer has too many digits to read exactly"
    text = data if isinstance(data, str) else bytes(data).decode("utf-8", "replace")
    raise orjson.JSONDecodeError(reason, text, 0)


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


def invalid_json_reason(
    data: bytes | bytearray | str, exc: orjson.JSONDecodeError, expected: str
) -> str:
    """Return the message for a JSON parse failure: what is wrong, and what was expected.

    Names the non-finite literals Python's ``json.dump`` writes (``NaN``, ``Infinity``), and
    nesting past the parser's own limit, instead of orjson's generic wording.
    """
    if exc.msg == "depth limit exceeded":
        return f"{depth_message(MAX_JSON_DEPTH)} (the parser stops at 1024)"
    if is_out_of_memory(exc):
        return no_memory_message(len(data))
    raw = data.encode() if isinstance(data, str) else bytes(data)
    if exc.pos == 0 and raw.startswith(UTF8_BOM):
        return BOM_MESSAGE
    # orjson's position counts characters; for ASCII up to the error it is the byte offset.
    # It stops after the sign of "-Infinity", so look one byte back too.
    start = exc.pos - 1 if exc.pos and raw[exc.pos - 1 : exc.pos] == b"-" else exc.pos
    at = raw[start : start + len(_NON_FINITE[1])]
    for literal in _NON_FINITE:
        if at.startswith(literal):
            return (
                f"{literal.decode()} is not valid JSON (Python's json.dump writes it for a "
                "non-finite float; write null or a number instead)"
            )
    return f"invalid JSON: {exc.msg} ({expected})"


def is_out_of_memory(exc: orjson.JSONDecodeError) -> bool:
    """True when orjson gave up for lack of memory rather than for invalid JSON."""
    # orjson words it "failed to allocate memory" or "Not enough memory to allocate buffer".
    message = exc.msg.lower()
    return "allocate" in message and "memory" in message


def no_memory_message(size: int) -> str:
    """Return the error message for JSON too large to parse in the memory available."""
    return f"too large to parse in the memory available ({size} bytes of JSON)"


def depth_message(limit: int, expected: str = "a trace") -> str:
    """Return the error message for a value nested more than ``limit`` levels deep."""
    return (
        f"nested more than {limit} levels deep (MAX_JSON_DEPTH); expected {expected}, not a "
        "deeply nested value"
    )


def too_deep(value: Any, limit: int) -> str | None:
    """Return the JSON path of the first object or list nested deeper than ``limit``, or None.

    The top-level value is at depth 1; the first such container in document order is named
    (``""`` when the top level itself is too deep, which only a limit of 0 makes). Iterative,
    so a value of any depth is walked without recursion.
    """
    if not _containers_exceed(value, limit):
        return None
    return _first_deep_path(value, limit)


def too_deep_in(data: bytes | bytearray | str, value: Any, limit: int) -> str | None:
    """Return :func:`too_deep` of ``value``, the parse of the JSON text ``data``.

    The text answers first when it can (a few C string operations, where the walk visits
    every value in Python): only text that may nest deeper than ``limit`` is walked, so the
    answer is the walk's and a trace line costs a fraction of it.
    """
    if isinstance(data, (bytes, bytearray)) and not text_nests_deeper(data, limit):
        return None
    return too_deep(value, limit)


_BRACKETS = bytes.maketrans(b"{}", b"[]")
_NOT_BRACKET_OR_QUOTE = bytes(b for b in range(256) if b not in b'"[]{}')


def text_nests_deeper(data: bytes | bytearray, limit: int) -> bool:
    """True when objects and lists in ``data`` (JSON text orjson accepted) nest more than
    ``limit`` levels deep: what :func:`too_deep` walks the parsed value for, found instead with
    a few C string operations on the text (several times faster than the walk on a trace).

    Text with no more brackets than ``limit`` cannot nest deeper. Else: drop escaped
    backslashes, then escaped quotes (in that order, so a backslash before a quote is read
    right), keep only quotes and brackets (``{}`` as ``[]``), drop what lies between quotes,
    and remove the innermost ``[]`` pairs once per level. True also means "cannot tell
    cheaply": the caller then walks the value.
    """
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    text = text_nests_skeleton(data)
    budget = 4 * len(data)  # bytes the passes may scan; past it, the walk is cheaper
    for _ in range(limit):
        budget -= len(text)
        if budget < 0:
            return True  # many deep branches (a hostile shape): let the walk decide
        shorter = text.replace(b"[]", b"")
        if len(shorter) == len(text):
            return bool(text)  # brackets that pair with nothing: not JSON, let the walk decide
        text = shorter
    return bool(text)


_SKELETON_CHUNK = 1 << 16
"""Bytes of quotes and brackets split at a time: a split makes one object per quoted run, and
a document of many small strings holds millions of them (400 MB on 54 MB of small rows)."""


def text_nests_skeleton(
    data: bytes | bytearray, keep: bytes = b"", *, chunk: int = _SKELETON_CHUNK
) -> bytes:
    """Return the brackets of JSON text ``data`` (orjson accepted it) outside its strings,
    ``{}`` written as ``[]``, with any byte of ``keep`` (``b","``) kept beside them.

    Escaped backslashes go first, then escaped quotes (in that order, so a backslash before a
    quote is read right); what is left between quotes is dropped a chunk at a time, so the
    pieces in memory at once stay few whatever the shape of the text (``chunk`` bytes of
    quotes and brackets are split at a time).
    """
    text = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    kept = _NOT_BRACKET_OR_QUOTE
    if keep:
        kept = kept.translate(None, delete=keep)
    text = text.translate(_BRACKETS, delete=kept)
    if b'"' not in text:
        return bytes(text)
    outside: list[bytes] = []
    inside = False  # whether the chunk starts within a string
    for start in range(0, len(text), chunk):
        runs = text[start:start + chunk].split(b'"')
        outside.append(b"".join(runs[1 if inside else 0::2]))
        inside ^= len(runs) % 2 == 0  # an odd number of quotes in the chunk
    return b"".join(outside)


def _containers_exceed(value: Any, limit: int) -> bool:
    """True when ``value`` holds an object or list more than ``limit`` levels deep."""
    kind = type(value)
    if kind is not dict and kind is not list:
        return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        children = node.values() if type(node) is dict else node
        for child in children:
            child_kind = type(child)
            if child_kind is dict or child_kind is list:
                if child:
                    stack.append((child, depth + 1))
                elif depth + 1 > limit:  # an empty one ends here: no need to visit it
                    return True
    return False


def _first_deep_path(value: Any, limit: int) -> str:
    stack: list[tuple[Any, int, str]] = [(value, 1, "")]
    while stack:
        node, depth, path = stack.pop()
        if depth > limit:
            return path
        items = list(node.items()) if type(node) is dict else list(enumerate(node))
        for key, child in reversed(items):
            if type(child) is dict or type(child) is list:
                stack.append((child, depth + 1, join_path(path, key)))
    return ""  # not reached: only called when a deep container exists


def join_path(base: str, part: str | int) -> str:
    """Return the JSON path ``base`` extended by an object key or a list index.

    ``join_path("steps", 3)`` is ``steps[3]``; ``join_path("steps[3]", "tool_args")`` is
    ``steps[3].tool_args``. Below a JSON Lines location (``line 7``) the path follows a colon:
    ``line 7: arguments``.
    """
    piece = f"[{part}]" if isinstance(part, int) else str(part)
    if not base:
        return piece
    if base.startswith("line ") and base[5:].isdigit():
        return f"{base}: {piece}"
    return base + piece if piece.startswith("[") else f"{base}.{piece}"


MAX_JSON_FILE_BYTES = 1 << 30
"""Largest JSON file (a test case, a result file, a summary) read whole: 1 GiB."""


def read_json_file(
    path: Path, *, error: type[OpenEvalError] = OpenEvalError, unique_keys: bool = False
) -> Any:
    """Return the JSON value stored in ``path``; raise ``error`` naming the file when unreadable.

    Only regular files are read (:mod:`openeval.io.files`): a path naming a device, FIFO or
    folder is an error, never an endless or blocked read. With ``unique_keys``, an object that
    holds one key twice is refused (JSON parsers keep the last one silently, so a test case
    saying ``"max_steps"`` twice would run with whichever came last).
    """
    return parse_json_file(read_json_bytes(path, error=error), path, error=error,
                           unique_keys=unique_keys)


def read_json_bytes(path: Path, *, error: type[OpenEvalError] = OpenEvalError) -> bytes:
    """Return the bytes of the JSON file ``path`` (a regular file, at most
    :data:`MAX_JSON_FILE_BYTES`), for a caller that also looks at them before parsing."""
    fd, size = open_regular_fd(path, error=error, expected="a JSON file")
    try:
        if size > MAX_JSON_FILE_BYTES:
            raise error(f"{size} bytes, over the {MAX_JSON_FILE_BYTES}-byte limit for one "
                        "JSON file", source=path)
        return read_up_to(fd, size + 1)
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror}", source=path) from None
    finally:
        os.close(fd)


def parse_json_file(
    data: bytes, path: Path, *, error: type[OpenEvalError] = OpenEvalError,
    unique_keys: bool = False,
) -> Any:
    """Return the JSON value of ``data``, the bytes of the file ``path``, read as
    :func:`read_json_file` reads a file."""
    # Nested at most MAX_JSON_DEPTH levels: deeper, a schema check or a walk would recurse
    # past Python's limit (a test case's 1,000-deep value, a committed results file).
    value = parse_json(data, source=path, error=error, max_depth=MAX_JSON_DEPTH,
                       expected="a JSON file")
    if unique_keys and _may_repeat_a_key(data, value):
        _refuse_duplicate_keys(data, source=path, error=error)
    return value


def _may_repeat_a_key(data: bytes, value: Any) -> bool:
    """False when no object of ``data`` (valid JSON text, parsed into ``value``) says a key
    twice: its text has as many colons outside strings (one per member written) as ``value``
    has keys (one per distinct key). A walk of the containers and a few bytes operations,
    where the exact check re-parses the text with a Python hook per object."""
    if b"\\" not in data:
        # Without a backslash every string of the text is written back byte for byte, so
        # the text's colons are its members plus those in its strings, and the compact dump's
        # are the kept keys plus those in the kept strings: equal counts leave no member
        # dropped. One dump in C, where the walk below visits every container in Python.
        try:
            if data.count(b":") == orjson.dumps(value).count(b":"):
                return False
        except orjson.JSONEncodeError:  # an integer beyond 64 bits: the walk answers
            pass
    kept = 0
    stack: list[Any] = [value] if type(value) is dict or type(value) is list else []
    while stack:
        node = stack.pop()
        if type(node) is dict:
            kept += len(node)
            node = node.values()
        for item in node:
            if type(item) is dict or type(item) is list:
                stack.append(item)
    if data.count(b":") == kept:  # no colon inside a string, none repeated: the usual case
        return False
    text = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    return b"".join(text.split(b'"')[0::2]).count(b":") != kept


class _DuplicateKey(Exception):
    pass


def _pairs_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _DuplicateKey(key)
        found[key] = value
    return found


def _refuse_duplicate_keys(data: bytes, *, source: Path, error: type[OpenEvalError]) -> None:
    """Raise ``error`` naming the first key that appears twice in one object of ``data``."""
    try:
        json.loads(data, object_pairs_hook=_pairs_without_duplicates)
    except _DuplicateKey as exc:
        raise error(
            f"key {exc.args[0]!r} appears twice in one object; say each setting once",
            source=source,
        ) from None
    except (ValueError, RecursionError):  # parse_json accepted it: nothing more to say here
        pass


def dump_json(value: Any) -> bytes:
    """Return ``value`` as canonical JSON bytes: sorted keys, two-space indent, final newline.

    The same value always gives the same bytes, which keeps result files byte-identical.
    Raises OpenEvalError (not orjson's TypeError) for a value JSON cannot hold: an integer
    beyond 64 bits, nesting past 254 levels, a key that is not a string.
    """
    try:
        return orjson.dumps(value, option=_DUMP_OPTIONS)
    except orjson.JSONEncodeError as exc:
        if _is_big_integer_error(exc):
            try:
                text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
            except (ValueError, TypeError, RecursionError):
                pass
            else:
                return (text + "\n").encode()
        raise OpenEvalError(f"cannot be written as JSON: {exc}") from None


def _is_big_integer_error(exc: orjson.JSONEncodeError) -> bool:
    return "Integer exceeds" in str(exc)


def dump_json_compact(value: Any) -> str:
    """Return ``value`` as compact JSON text with sorted keys (for tool results kept as text).

    orjson decodes 1024 levels of nesting but encodes only 254, so a value can read fine and
    not be writable back: such a value (or a too-large integer) is named, not raised.
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
        return "[a value that cannot be shown as JSON]"


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
