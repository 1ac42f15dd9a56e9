"""What every trace adapter is given and must provide.

An adapter is an object with a ``name``, a one-line ``description``, a ``refusal`` that looks at a
:class:`TraceSource` and says why the file is not in its format (None when it is), and a ``load``
that reads it into an :class:`~openeval.models.AgentTrace`. The source reads the file lazily and
at most once, so ten adapters sniffing one file cost one read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import IO, Any, Protocol

import orjson

from openeval.errors import MissingDependencyError, TraceFormatError
from openeval.jsonio import parse_json
from openeval.models import AgentTrace

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
HEAD_BYTES = 65536
"""How much of a file detection looks at before deciding between a document and lines."""


@dataclass(frozen=True)
class LoadOptions:
    """Settings for reading traces; the defaults are far above what real traces reach."""

    agent_spec: str | None = None
    """``module:attr`` of the current agent, to compute a Fixtura drift verdict."""
    max_decompressed_bytes: int = 2 * 1024**3
    """Largest decompressed size accepted from a compressed file (a bomb guard)."""
    max_line_bytes: int = 64 * 1024**2
    """Longest single line accepted from a JSON Lines stream."""
    max_document_bytes: int = 1024**3
    """Largest whole-JSON document read into memory."""


class TraceSource:
    """A trace file as adapters see it: its head, and its content parsed on demand.

    Every method reads from disk only the first time it is asked, and caches what it parsed.
    """

    def __init__(self, path: Path, options: LoadOptions | None = None) -> None:
        self.path = path
        self.options = options or LoadOptions()

    @cached_property
    def head(self) -> bytes:
        """Return the first bytes of the file (up to 64 KiB)."""
        try:
            with self.path.open("rb") as handle:
                return handle.read(HEAD_BYTES)
        except FileNotFoundError:
            raise TraceFormatError("file not found", source=self.path) from None
        except IsADirectoryError:
            raise TraceFormatError("is a folder, expected a trace file", source=self.path) from None
        except OSError as exc:
            raise TraceFormatError(f"cannot read: {exc.strerror}", source=self.path) from None

    @property
    def is_zstd(self) -> bool:
        """True when the file starts with a zstd frame."""
        return self.head.startswith(ZSTD_MAGIC)

    @cached_property
    def _document(self) -> tuple[Any, TraceFormatError | None]:
        if self.is_zstd:
            return None, TraceFormatError("zstd-compressed, not a JSON document", source=self.path)
        size = self.path.stat().st_size
        if size > self.options.max_document_bytes:
            return None, TraceFormatError(
                f"{size} bytes, over the {self.options.max_document_bytes}-byte limit for a JSON "
                "document (raise it with --max-document-bytes)",
                source=self.path,
            )
        try:
            # A head shorter than its limit is the whole file: no second read.
            data = self.head if len(self.head) < HEAD_BYTES else self.path.read_bytes()
            return parse_json(data, source=self.path, error=TraceFormatError), None
        except TraceFormatError as exc:
            return None, exc

    def document(self) -> Any:
        """Return the whole file parsed as one JSON value; raise TraceFormatError if it is not."""
        value, error = self._document
        if error is not None:
            raise error
        return value

    def document_or_none(self) -> Any:
        """Return the parsed JSON document, or None when the file is not one JSON value."""
        return self._document[0]

    def first_json_line(self) -> Any:
        """Return the first non-blank line parsed as JSON, or None if it is not JSON.

        Works on plain and zstd-compressed files; reads only as far as the first line, and
        only once (several adapters sniff it during detection). When the head already holds
        that line, the file is not opened again.
        """
        return self._first_json_line

    @cached_property
    def _first_json_line(self) -> Any:
        try:
            if not self.is_zstd:
                found = self._first_line_in_head()
                if found is not _NOT_IN_HEAD:
                    return found
            for _, value in self.json_lines():
                return value
        except TraceFormatError:
            return None
        return None

    def _first_line_in_head(self) -> Any:
        """Return the first non-blank line of the head parsed, or _NOT_IN_HEAD if cut short."""
        lines = self.head.split(b"\n")
        if len(self.head) == HEAD_BYTES:
            lines.pop()  # may continue past the head
        for number, line in enumerate(lines, start=1):
            if len(line) > self.options.max_line_bytes:
                raise _too_long(self.path, number, self.options.max_line_bytes)
            value = _parse_line(line, number, self.path)
            if value is not _BLANK:
                return value
        return _NOT_IN_HEAD

    def json_lines(self) -> Iterator[tuple[int, Any]]:
        """Yield ``(line_number, value)`` for each non-blank line, decompressing zstd on the fly.

        Streams the file: memory stays bounded by the longest line plus a few MiB, however large
        the file or its decompressed content. A line over the limit, a decompressed size over
        the limit, corrupt or truncated compression, invalid UTF-8 or invalid JSON raise
        TraceFormatError naming the file and the line.
        """
        with self.path.open("rb") as raw:
            chunks = _zstd_chunks(raw, self.path, self.options) if self.is_zstd else _chunks(raw)
            yield from _iter_json_lines(chunks, self.path, self.options)


_READ_BYTES = 1 << 20
"""Size of one read from disk."""
_ZSTD_FEED_BYTES = 256
"""Compressed bytes handed to the decompressor at a time. zstd can expand one input byte to at
most about 32 KiB (a run-length block), so 256 bytes bound one call's output to about 8 MiB:
a decompression bomb is caught by the size limit before it can allocate more than that."""


def _chunks(raw: IO[bytes]) -> Iterator[bytes]:
    while chunk := raw.read(_READ_BYTES):
        yield chunk


def _zstd_chunks(raw: IO[bytes], path: Path, options: LoadOptions) -> Iterator[bytes]:
    """Yield the decompressed content of a series of zstd frames, in bounded pieces.

    ``stream_reader`` would be simpler, but it ends silently on a frame cut short, which would
    drop the last events of a truncated trace without a word; decoding frame by frame lets us
    see that the last frame never ended.
    """
    try:
        import zstandard
    except ImportError:
        raise MissingDependencyError(
            'reading zstd-compressed traces needs zstandard: pip install "openeval-core[fixtura]"',
            source=path,
        ) from None
    decompressor = zstandard.ZstdDecompressor()
    frame = decompressor.decompressobj()
    frame_start = 0
    fed = 0  # compressed bytes consumed so far
    in_frame = False
    total = 0
    while block := raw.read(_READ_BYTES):
        view = memoryview(block)
        for start in range(0, len(view), _ZSTD_FEED_BYTES):
            piece: bytes | memoryview = view[start : start + _ZSTD_FEED_BYTES]
            while piece:
                try:
                    out = frame.decompress(piece)
                except zstandard.ZstdError as exc:
                    raise TraceFormatError(
                        f"corrupt zstd data in the frame starting at byte {frame_start}: {exc}",
                        source=path,
                    ) from None
                in_frame = True
                if out:
                    total += len(out)
                    if total > options.max_decompressed_bytes:
                        raise TraceFormatError(
                            f"decompressed size passes the {options.max_decompressed_bytes}-byte "
                            "limit (a decompression bomb? raise the limit with "
                            "--max-decompressed-bytes)",
                            source=path,
                        )
                    yield out
                if frame.eof:
                    rest = frame.unused_data
                    fed += len(piece) - len(rest)
                    frame_start, in_frame = fed, False
                    frame = decompressor.decompressobj()
                    piece = rest
                else:
                    fed += len(piece)
                    piece = b""
    if in_frame:
        raise TraceFormatError(
            f"truncated: the zstd frame starting at byte {frame_start} never ends (the file "
            f"stops at byte {fed}; was it cut short while being written or copied?)",
            source=path,
        )


def _iter_json_lines(
    chunks: Iterator[bytes], path: Path, options: LoadOptions
) -> Iterator[tuple[int, Any]]:
    line_no = 0
    pending = bytearray()  # the start of a line whose end has not been read yet
    limit = options.max_line_bytes
    while True:
        try:
            chunk = next(chunks, None)
        except TraceFormatError as exc:
            # The decompressor knows the byte; only this loop knows the line.
            where = exc.location or f"line {line_no + 1}"
            raise type(exc)(exc.message, source=path, location=where) from None
        if chunk is None:
            break
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            line_no += 1
            if pending:
                if len(pending) + end - start > limit:
                    raise _too_long(path, line_no, limit)
                pending += chunk[start:end]
                line: bytes | bytearray = pending
            else:
                if end - start > limit:
                    raise _too_long(path, line_no, limit)
                line = chunk[start:end]
            value = _parse_line(line, line_no, path)
            if pending:
                pending = bytearray()
            if value is not _BLANK:
                yield line_no, value
            start = end + 1
        if len(pending) + len(chunk) - start > limit:
            raise _too_long(path, line_no + 1, limit)
        pending += chunk[start:] if start else chunk
    if pending:
        line_no += 1
        value = _parse_line(pending, line_no, path)
        if value is not _BLANK:
            yield line_no, value


def _too_long(path: Path, line_no: int, limit: int) -> TraceFormatError:
    return TraceFormatError(
        f"line longer than the {limit}-byte limit (an endless line? raise the limit with "
        "--max-line-bytes)",
        source=path,
        location=f"line {line_no}",
    )


_BLANK = object()
_NOT_IN_HEAD = object()


def _parse_line(line: bytes | bytearray, line_no: int, path: Path) -> Any:
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        # Keep only the text: the exception holds the whole line and, through its traceback,
        # this frame, a cycle that would pin every failed line in memory until the next GC.
        reason, column = exc.msg, exc.colno
    # Checked only after a failure: scanning every line for blankness first costs more than
    # parsing it (orjson refuses a whitespace-only line as an empty document).
    if not line.strip():
        return _BLANK
    try:
        bytes(line).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TraceFormatError(
            f"invalid UTF-8 at byte {exc.start} of the line (expected UTF-8 JSON text)",
            source=path,
            location=f"line {line_no}",
        ) from None
    value = _parse_python_json(line)
    if value is not _BLANK:
        return value
    raise TraceFormatError(
        f"invalid JSON: {reason} (expected one complete JSON value per line)",
        source=path,
        location=f"line {line_no} column {column}",
    )


def _parse_python_json(line: bytes | bytearray) -> Any:
    """Return the line parsed as Python's ``json`` module writes it, or _BLANK if it is not.

    Python producers (Fixtura among them) write ``NaN`` and ``Infinity`` for non-finite floats,
    which orjson refuses; anything orjson could not write back out (huge integers, lone
    surrogates) is still refused, so every value we return can be serialised again.
    """
    try:
        value = json.loads(line)
        orjson.dumps(value)
    except (ValueError, TypeError, RecursionError, orjson.JSONEncodeError):
        return _BLANK
    return value


class TraceAdapter(Protocol):
    """A reader of one trace format."""

    name: str
    """Short format name, the value of ``--format`` (``openai``, ``fixtura`` ...)."""
    description: str
    """One line saying what files this adapter reads."""

    def refusal(self, source: TraceSource) -> str | None:
        """Return None when ``source`` is in this format, else a short reason why it is not."""
        ...

    def load(self, source: TraceSource) -> AgentTrace:
        """Return the trace in ``source``; raise TraceFormatError naming the place if broken."""
        ...


ENVELOPE_KEYS = ("task_id", "input", "final_output", "actual_state", "metadata")
"""AgentTrace fields a wrapped document may carry beside its format's payload."""


def split_envelope(document: Any, payload_key: str) -> tuple[Any, dict[str, Any]]:
    """Return ``(payload, overrides)`` for a document that may wrap a format's payload.

    Formats such as a bare message list carry no task id or final state, so any of them may be
    wrapped as ``{"task_id": ..., "actual_state": {...}, payload_key: <payload>}``. For an
    unwrapped document the payload is the document itself and ``overrides`` is empty.
    """
    if isinstance(document, dict) and payload_key in document:
        extra = set(document) - {payload_key, *ENVELOPE_KEYS}
        if not extra:
            overrides = {k: document[k] for k in ENVELOPE_KEYS if k in document}
            return document[payload_key], overrides
    return document, {}


def apply_envelope(trace: AgentTrace, overrides: dict[str, Any], where: Path) -> AgentTrace:
    """Return ``trace`` with the envelope's fields set; raise TraceFormatError on a wrong type."""
    expected = {
        "task_id": str, "input": str, "final_output": str, "actual_state": dict, "metadata": dict
    }
    for key, value in overrides.items():
        if not isinstance(value, expected[key]):
            raise TraceFormatError(
                f"expected {'a string' if expected[key] is str else 'a JSON object'}",
                source=where,
                location=key,
            )
    if "metadata" in overrides:
        overrides = {**overrides, "metadata": {**trace.metadata, **overrides["metadata"]}}
    return replace(trace, **overrides)
