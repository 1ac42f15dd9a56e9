"""JSON Lines: splitting a byte stream into lines, and parsing each line as one JSON value.

Memory stays bounded by the longest line plus one chunk, however long the stream. Runs of
blank lines are skipped at C speed (``bytes.lstrip`` over growing windows), never line by
line in Python, so a stream of gigabytes of newlines reaches the size limit in seconds.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import orjson

from openeval.errors import OpenEvalError, TraceFormatError
from openeval.io.limits import DEFAULT_MAX_JSON_VALUES, json_values
from openeval.jsonio import (
    BOM_MESSAGE,
    MAX_JSON_DEPTH,
    depth_message,
    dump_json,
    invalid_json_reason,
    is_out_of_memory,
    loads_exact,
    no_memory_message,
    too_deep_in,
    too_large_to_parse,
)

Line = bytes | bytearray

_WHITESPACE = frozenset(b" \t\r\n\f\v")
"""What ``bytes.strip`` strips: a line of only these is blank."""
_MAX_WINDOW = 1 << 20


def _skip_blank(data: Line, start: int) -> int:
    """Return the index of the first byte at or after ``start`` that is not whitespace.

    ``len(data)`` when there is none. Looks through windows that double in size, each
    stripped by ``bytes.lstrip`` (C speed), so a run of gigabytes of newlines costs about a
    nanosecond a byte and a short run between two lines costs one small slice.
    """
    size = len(data)
    if start < size and data[start] not in _WHITESPACE:
        return start
    window = 64
    while start < size:
        piece = data[start : start + window]
        kept = len(piece.lstrip())
        if kept:
            return start + len(piece) - kept
        start += len(piece)
        window = min(window * 2, _MAX_WINDOW)
    return size


def split_lines(
    chunks: Iterator[bytes], name: Path | str, max_line_bytes: int,
    max_json_values: int = DEFAULT_MAX_JSON_VALUES,
) -> Generator[tuple[int, Line], None, None]:
    """Yield ``(line_number, line)`` for each non-blank line of the stream ``chunks``.

    A line is yielded without its newline (a ``\\r`` before it stays; JSON ignores it). A
    line longer than ``max_line_bytes``, or holding more than ``max_json_values`` values (see
    :func:`openeval.io.limits.json_values`), raises TraceFormatError naming it; an error raised
    by ``chunks`` (a corrupt or oversized zstd stream) is re-raised with the line it happened on.
    """
    for line_no, line in _split_lines(chunks, name, max_line_bytes):
        if _too_many_values(line, max_json_values):
            raise _too_many(name, line_no, max_json_values)
        yield line_no, line


def _too_many_values(line: Line, limit: int) -> bool:
    # A line shorter than the limit cannot hold more values than it has bytes.
    return len(line) >= limit and json_values(line, limit) > limit


def _too_many(name: Path | str, line_no: int, limit: int) -> TraceFormatError:
    return TraceFormatError(
        f"more than {limit:,} JSON values on one line (LoadOptions.max_json_values); "
        "expected one agent run, not a flood of values",
        source=name,
        location=f"line {line_no}",
    )


def _split_lines(
    chunks: Iterator[bytes], name: Path | str, max_line_bytes: int
) -> Generator[tuple[int, Line], None, None]:
    line_no = 0  # lines ended so far
    pending = bytearray()  # the start of a line whose end has not been read yet
    while True:
        try:
            chunk = next(chunks, None)
        except TraceFormatError as exc:
            where = exc.location or f"line {line_no + 1}"
            raise type(exc)(exc.message, source=name, location=where) from None
        except MemoryError:
            raise _no_memory(name, line_no + 1, len(pending)) from None
        if chunk is None:
            break
        start, size = 0, len(chunk)
        if pending:
            end = chunk.find(b"\n")
            if end < 0:
                _grow(pending, chunk, name, line_no + 1, max_line_bytes)
                continue
            _grow(pending, chunk[:end], name, line_no + 1, max_line_bytes)
            line_no += 1
            if _skip_blank(pending, 0) < len(pending):
                yield line_no, pending
            pending = bytearray()
            start = end + 1
        while start < size:
            at = _skip_blank(chunk, start)
            line_start = start
            if at > start:  # a run of blank lines (or the indent of the next line)
                last = chunk.rfind(b"\n", start, at)
                if last >= 0:
                    line_no += chunk.count(b"\n", start, last + 1)
                    line_start = last + 1
            if at == size:  # whitespace that may be the indent of the next line
                _grow(pending, chunk[line_start:], name, line_no + 1, max_line_bytes)
                break
            end = chunk.find(b"\n", at)
            if end < 0:
                _grow(pending, chunk[line_start:], name, line_no + 1, max_line_bytes)
                break
            if end - line_start > max_line_bytes:
                raise _too_long(name, line_no + 1, max_line_bytes)
            line_no += 1
            yield line_no, chunk[line_start:end]
            start = end + 1
    if pending and _skip_blank(pending, 0) < len(pending):
        yield line_no + 1, pending


def _grow(pending: bytearray, more: bytes, name: Path | str, line_no: int, limit: int) -> None:
    if len(pending) + len(more) > limit:
        raise _too_long(name, line_no, limit)
    try:
        pending += more
    except MemoryError:
        raise _no_memory(name, line_no, len(pending)) from None


def _too_long(name: Path | str, line_no: int, limit: int) -> TraceFormatError:
    return TraceFormatError(
        f"line longer than the {limit}-byte limit (an endless line? raise the limit with "
        "--max-line-bytes)",
        source=name,
        location=f"line {line_no}",
    )


def _no_memory(name: Path | str, line_no: int, held: int) -> TraceFormatError:
    return TraceFormatError(
        f"line too long for the memory available ({held} bytes read of it so far; lower "
        "--max-line-bytes, or give OpenEval more memory)",
        source=name,
        location=f"line {line_no}",
    )


def parse_line(line: Line, line_no: int, name: Path | str) -> Any:
    """Return one non-blank JSON Lines line parsed; raise TraceFormatError naming the line.

    Python producers (Fixtura among them) write ``NaN`` and ``Infinity`` for non-finite
    floats, which orjson refuses: such a line is read as Python's ``json`` reads it, as long
    as every value in it can be written back out as JSON. A value nested deeper than
    :data:`~openeval.jsonio.MAX_JSON_DEPTH` is refused with its JSON path.
    """
    return parse_line_strictness(line, line_no, name)[0]


def parse_line_strictness(line: Line, line_no: int, name: Path | str) -> tuple[Any, bool]:
    """Return ``(value, strict)`` for one line, as :func:`parse_line` reads it.

    ``strict`` is False when the line needed Python's ``json`` (``NaN`` ...): it is JSON
    Lines as Python writes it, but not JSON.
    """
    refusal = too_large_to_parse(len(line))
    if refusal is not None:
        raise TraceFormatError(refusal, source=name, location=f"line {line_no}")
    try:
        value = loads_exact(line)  # integers beyond 64 bits stay exact (orjson makes floats)
    except orjson.JSONDecodeError as exc:
        # Keep only the text: the exception holds the whole line and, through its traceback,
        # this frame, a cycle that would pin every failed line in memory until the next GC.
        failure = exc
    except (MemoryError, SystemError):
        # orjson reports a failed allocation as SystemError; both mean "too big for memory".
        raise _line_no_memory(line, line_no, name) from None
    else:
        _check_depth(line, value, line_no, name)
        return value, True
    if is_out_of_memory(failure):
        raise _line_no_memory(line, line_no, name)
    reason = invalid_json_reason(line, failure, "expected one JSON value per line")
    column = failure.colno
    del failure
    if reason == BOM_MESSAGE:  # Python's json would read past it; no other JSON tool does
        raise TraceFormatError(reason, source=name, location=f"line {line_no} column 1")
    try:
        bytes(line).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TraceFormatError(
            f"invalid UTF-8 at byte {exc.start} of the line (expected UTF-8 JSON text)",
            source=name,
            location=f"line {line_no}",
        ) from None
    try:
        value = _parse_python_json(line)
    except MemoryError:
        raise _line_no_memory(line, line_no, name) from None
    if value is _REFUSED:
        raise TraceFormatError(reason, source=name, location=f"line {line_no} column {column}")
    _check_depth(line, value, line_no, name)
    return value, False


def _line_no_memory(line: Line, line_no: int, name: Path | str) -> TraceFormatError:
    return TraceFormatError(
        no_memory_message(len(line)), source=name, location=f"line {line_no}"
    )


_REFUSED = object()


def _parse_python_json(line: Line) -> Any:
    """Return the line parsed as Python's ``json`` module writes it, or _REFUSED if it is not.

    Anything that could not be written back out (lone surrogates, nesting past what orjson
    writes) is refused, so every value returned can be serialised again.
    """
    try:
        value = json.loads(line)
        dump_json(value)  # writes integers beyond 64 bits too, as every writer here does
    except (ValueError, TypeError, RecursionError, OpenEvalError):
        return _REFUSED
    return value


def _check_depth(line: Line, value: Any, line_no: int, name: Path | str) -> None:
    path = too_deep_in(line, value, MAX_JSON_DEPTH)
    if path is not None:
        location = f"line {line_no}: {path}" if path else f"line {line_no}"
        raise TraceFormatError(depth_message(MAX_JSON_DEPTH), source=name, location=location)


def iter_json_lines(
    chunks: Iterator[bytes], name: Path | str, max_line_bytes: int,
    max_json_values: int = DEFAULT_MAX_JSON_VALUES,
) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, value)`` for each non-blank line of ``chunks``, parsed as JSON."""
    for line_no, line in split_lines(chunks, name, max_line_bytes, max_json_values):
        yield line_no, parse_line(line, line_no, name)


def split_lines_tolerant(
    chunks: Iterator[bytes], name: Path | str, max_line_bytes: int,
    max_json_values: int = DEFAULT_MAX_JSON_VALUES,
) -> Generator[tuple[int, Line | TraceFormatError], None, None]:
    """Yield ``(line_number, line)`` for each non-blank line, or ``(line_number, error)``.

    Where :func:`split_lines` stops at the first line over ``max_line_bytes`` (or over
    ``max_json_values``), this yields the error for that line, drops its bytes up to the next
    newline without holding them, and goes on: a stream of many traces loses one line to an
    oversized one, not the rest of the file. An error raised by ``chunks`` (corrupt or
    truncated zstd) ends the stream after it is yielded, naming the line it broke in: nothing
    after it can be read.
    """
    for line_no, line in _split_lines_tolerant(chunks, name, max_line_bytes):
        # The length first, here: a line shorter than the limit cannot hold more values.
        if (not isinstance(line, TraceFormatError) and len(line) >= max_json_values
                and _too_many_values(line, max_json_values)):
            yield line_no, _too_many(name, line_no, max_json_values)
        else:
            yield line_no, line


def _split_lines_tolerant(
    chunks: Iterator[bytes], name: Path | str, max_line_bytes: int
) -> Generator[tuple[int, Line | TraceFormatError], None, None]:
    line_no = 0  # lines ended so far
    pending = bytearray()  # the start of a line whose end has not been read yet
    skipping = False  # inside a line already reported as too long
    while True:
        try:
            chunk = next(chunks, None)
        except TraceFormatError as exc:
            yield line_no + 1, TraceFormatError(exc.message, source=name,
                                                location=exc.location or f"line {line_no + 1}")
            return
        if chunk is None:
            break
        start, size = 0, len(chunk)
        while start < size:
            if not skipping and not pending and chunk[start] in _WHITESPACE:
                at = _skip_blank(chunk, start)
                line_no += chunk.count(b"\n", start, at)
                start = at  # JSON ignores the indent a line may start with
                if start == size:
                    break
            end = chunk.find(b"\n", start)
            stop = size if end < 0 else end
            if skipping:
                pass
            elif len(pending) + stop - start > max_line_bytes:
                yield line_no + 1, _too_long(name, line_no + 1, max_line_bytes)
                skipping = True
                pending = bytearray()
            elif end < 0:
                pending += chunk[start:]
            else:
                line: Line = chunk[start:end]
                if not pending:  # it starts at a byte that is not blank (skipped above)
                    yield line_no + 1, line
                else:
                    pending += line
                    line, pending = pending, bytearray()
                    if _skip_blank(line, 0) < len(line):
                        yield line_no + 1, line
            if end < 0:
                break
            line_no += 1
            skipping = False
            start = end + 1
    if pending and _skip_blank(pending, 0) < len(pending):
        yield line_no + 1, pending
