"""A trace as readers see it: a file or bytes, its head, and its content parsed on demand.

Detection asks every adapter in turn, so the source reads lazily and caches what it parsed:
ten adapters sniffing one file cost one read of its head, and a JSON Lines file is never read
whole to find out that it is not one JSON document.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, BinaryIO

from openeval.errors import TraceFormatError
from openeval.io.files import check_size, open_regular, open_regular_fd, read_up_to
from openeval.io.limits import ReadLimits, check_json_values
from openeval.io.lines import iter_json_lines, parse_line_strictness, split_lines
from openeval.io.zstd import ZSTD_MAGIC, zstd_chunks
from openeval.jsonio import MAX_JSON_DEPTH, parse_json

HEAD_BYTES = 65536
"""How much of a file detection looks at before deciding anything."""
_READ_BYTES = 1 << 20
"""Size of one read from disk."""


@dataclass(frozen=True)
class _Opening:
    """What the start of the content says: its first JSON line, and whether more follows."""

    value: Any = None
    """The first non-blank line parsed; None when there is none or it is not JSON."""
    strict: bool = False
    """True when that line is strict JSON (orjson read it without Python's NaN fallback)."""
    error: TraceFormatError | None = None
    """Why the first line could not be read (corrupt zstd, invalid JSON, too long ...)."""
    more: bool = False
    """True when a non-blank line follows the first one."""


def _head_bytes(size: int) -> int:
    # A file shorter than the head is read whole in one buffer of its size (one more byte
    # tells a file that grew since it was measured), not into 64 KiB cut down after; a size
    # of 0 may be a file that does not know its size (procfs): the whole head is asked.
    return min(HEAD_BYTES, size + 1) if size else HEAD_BYTES


def first_byte(data: bytes) -> bytes:
    """Return the first byte of ``data`` that is no ASCII white space (``b""`` for none),
    without the copy of the whole text that ``data.lstrip()`` makes."""
    first = data[:1]
    return data.lstrip()[:1] if first.isspace() else first


def _one_more(size: int) -> int:
    return size + 1


NOT_A_LINE: Any = object()
"""What :func:`line_value` returns for a line the short way does not read."""


def line_value(data: bytes, limits: ReadLimits, path: Path) -> Any:
    """Return one JSON Lines line parsed, as :meth:`TraceSource.read_as_line` reads it, or
    :data:`NOT_A_LINE` when the short way does not apply (see there)."""
    if (data.startswith(ZSTD_MAGIC)
            or len(data) > min(limits.document_bytes, limits.max_decompressed_bytes)):
        return NOT_A_LINE
    try:
        value, strict = parse_line_strictness(data, 1, path)
    except TraceFormatError:
        return NOT_A_LINE
    return value if strict else NOT_A_LINE


class TraceSource:
    """One trace's bytes, from a file or (with ``data``) from memory.

    ``path`` names the trace in every error message (for bytes, any name standing for them).
    Every method reads only the first time it is asked and caches what it parsed. Only
    regular files are read (see :mod:`openeval.io.files`), and only within ``limits``.
    """

    def __init__(
        self, path: Path | str, limits: ReadLimits | None = None, *, data: bytes | None = None
    ) -> None:
        # A reader of many lines hands every line's source the same Path: no parse per line.
        self.path = path if isinstance(path, Path) else Path(path)
        self.limits = limits or ReadLimits()
        self._data = data

    @classmethod
    def from_bytes(
        cls, data: bytes, name: str = "<bytes>", limits: ReadLimits | None = None
    ) -> TraceSource:
        """Return a source reading ``data``; ``name`` stands for the file in messages."""
        return cls(name, limits, data=bytes(data))

    @property
    def file(self) -> Path | None:
        """Return the file read, or None for a source built from bytes."""
        return None if self._data is not None else self.path

    @contextmanager
    def _open(self) -> Iterator[tuple[BinaryIO, int]]:
        if self._data is not None:
            handle: BinaryIO = io.BytesIO(self._data)
            size = len(self._data)
        else:
            handle, size = open_regular(self.path)
        with handle:
            check_size(
                self.path, size, self.limits.max_decompressed_bytes, "--max-decompressed-bytes"
            )
            try:
                yield handle, size
            except OSError as exc:
                raise TraceFormatError(f"cannot read: {exc.strerror}", source=self.path) from None

    def _read_start(self, count: Callable[[int], int]) -> tuple[bytes, int]:
        """Return the first ``count(size)`` bytes of the content and its size, as
        :meth:`_open` reads them (same checks, same errors), with no file object made."""
        if self._data is not None:
            size = len(self._data)
            check_size(self.path, size, self.limits.max_decompressed_bytes,
                       "--max-decompressed-bytes")
            return self._data[:count(size)], size
        fd, size = open_regular_fd(self.path)
        try:
            check_size(
                self.path, size, self.limits.max_decompressed_bytes, "--max-decompressed-bytes"
            )
            try:
                return read_up_to(fd, count(size)), size
            except OSError as exc:
                raise TraceFormatError(f"cannot read: {exc.strerror}", source=self.path) from None
        finally:
            os.close(fd)

    @cached_property
    def _head_and_size(self) -> tuple[bytes, int]:
        return self._read_start(_head_bytes)

    @property
    def head(self) -> bytes:
        """Return the first bytes of the content (up to 64 KiB)."""
        return self._head_and_size[0]

    @property
    def size(self) -> int:
        """Return the size of the stored content (the file, or the bytes) in bytes."""
        return self._head_and_size[1]

    @property
    def is_zstd(self) -> bool:
        """True when the content starts with a zstd frame."""
        return self.head.startswith(ZSTD_MAGIC)

    # --- streaming -------------------------------------------------------------------------

    def _stored_chunks(self) -> Iterator[bytes]:
        """Yield the stored bytes from the start: the cached head, then the rest."""
        head, size = self._head_and_size
        yield head
        if len(head) >= size:
            return
        with self._open() as (handle, _):
            handle.seek(len(head))
            while block := handle.read(_READ_BYTES):
                yield block

    def chunks(self) -> Iterator[bytes]:
        """Yield the content in pieces: decompressed on the fly when it is zstd."""
        if self.is_zstd:
            return zstd_chunks(
                self._stored_chunks(), self.path, self.limits.max_decompressed_bytes
            )
        return self._stored_chunks()

    def json_lines(self) -> Iterator[tuple[int, Any]]:
        """Yield ``(line_number, value)`` for each non-blank line, decompressing zstd on the fly.

        Streams the content: memory stays bounded by the longest line plus a few MiB, however
        large the file or its decompressed content. A line or a decompressed size over its
        limit, corrupt or truncated compression, invalid UTF-8, invalid JSON or nesting past
        MAX_JSON_DEPTH raise TraceFormatError naming the file and the line.
        """
        return iter_json_lines(self.chunks(), self.path, self.limits.max_line_bytes,
                               self.limits.max_json_values)

    # --- the first line --------------------------------------------------------------------

    @cached_property
    def _opening(self) -> _Opening:
        lines = split_lines(self.chunks(), self.path, self.limits.max_line_bytes,
                            self.limits.max_json_values)
        try:
            found = next(lines, None)
            if found is None:
                return _Opening()
            line_no, line = found
            value, strict = parse_line_strictness(line, line_no, self.path)
            try:
                more = next(lines, None) is not None
            except TraceFormatError:
                more = True  # something follows the first line, even if it is broken
            return _Opening(value, strict, None, more)
        except TraceFormatError as exc:
            # Without its traceback: kept, the traceback's frames keep this source (and its
            # bytes) alive in a reference cycle until the cyclic collector runs.
            return _Opening(error=exc.with_traceback(None))
        finally:
            lines.close()

    def first_json_line(self) -> Any:
        """Return the first non-blank line parsed as JSON, or None if it is not JSON.

        Works on plain and zstd-compressed content; reads only as far as the start of the
        second line, and only once (several adapters sniff it during detection).
        """
        return self._opening.value

    @property
    def first_line_error(self) -> TraceFormatError | None:
        """Return why the first line cannot be read (corrupt zstd, invalid JSON ...), or None."""
        return self._opening.error

    @property
    def is_json_lines(self) -> bool:
        """True when the content is zstd frames, or JSON Lines: a complete JSON value on the
        first line and more lines after it (which one JSON document can never be)."""
        return self.is_zstd or (self._opening.value is not None and self._opening.more)

    def read_as_line(self) -> bool:
        """Parse bytes a line reader split out of JSON Lines, the short way; True if done.

        One line of strict JSON (and nothing after it) is its own document, so the head read,
        the line split and the document rules come to one parse: the value, and what every
        method answers, are what the lazy path finds, cached now. False, caching nothing, when
        the line is not strict JSON within the limits (not JSON, ``NaN``, too deep, too big,
        zstd): the lazy path then reads it and words its error as it always has.
        """
        data = self._data
        if data is None:
            return False
        value = line_value(data, self.limits, self.path)
        if value is NOT_A_LINE:
            return False
        cached = self.__dict__  # the cached_property slots the lazy path would fill
        cached["_head_and_size"] = (data[:HEAD_BYTES], len(data))
        cached["_opening"] = _Opening(value, True, None, False)
        cached["_document"] = (value, None)
        return True

    # --- the whole document ----------------------------------------------------------------

    @cached_property
    def _document(self) -> tuple[Any, TraceFormatError | None]:
        if self.is_zstd:
            return None, TraceFormatError("zstd-compressed, not a JSON document", source=self.path)
        if self.is_json_lines:
            return None, TraceFormatError(
                "JSON Lines (one value per line), not one JSON document", source=self.path
            )
        limit = self.limits.document_bytes
        if self.size > limit:
            return None, TraceFormatError(
                f"{self.size} bytes, over the {limit}-byte limit for a JSON document (raise "
                f"it with {self.limits.document_flag()})",
                source=self.path,
            )
        opening = self._opening
        if opening.value is not None and opening.strict:
            # One line of strict JSON and nothing after it: that line is the document.
            return opening.value, None
        try:
            return self._parse_document(), None
        except TraceFormatError as exc:
            return None, exc

    def _parse_document(self) -> Any:
        head, size = self._head_and_size
        if len(head) >= size:
            data = head  # the head is the whole file: no second read
        else:
            try:
                # Ask for what fstat says is there (plus one byte, to see it grow): a read of
                # the limit itself would allocate the limit up front.
                data, _ = self._read_start(_one_more)
            except MemoryError:
                raise TraceFormatError(
                    f"too large to read in the memory available ({size} bytes)",
                    source=self.path,
                ) from None
            if len(data) > self.limits.document_bytes:  # it grew while we read it
                raise TraceFormatError(
                    f"over the {self.limits.document_bytes}-byte limit for a JSON document",
                    source=self.path,
                )
        check_json_values(data, self.limits, self.path)
        return parse_json(
            data, source=self.path, error=TraceFormatError, max_depth=MAX_JSON_DEPTH
        )

    def plain_bytes(self) -> bytes | None:
        """Return the whole content when it may be one JSON document, read fresh and not kept;
        None when it cannot be (zstd, over the document limit, not starting with ``{``), or
        when reading it fails: the lazy path then reads it and words the error.

        For a reader that parses the bytes its own way first (the typed native decoder), so
        only what it parsed stays in memory, not the text beside a parsed copy.
        """
        try:
            head, size = self._head_and_size
        except TraceFormatError:
            return None
        if (head.startswith(ZSTD_MAGIC) or size > self.limits.document_bytes
                or first_byte(head) != b"{"):
            return None
        if len(head) >= size:
            return head
        try:
            data, _ = self._read_start(_one_more)
        except (TraceFormatError, MemoryError):
            return None
        return data if len(data) <= self.limits.document_bytes else None

    def document(self) -> Any:
        """Return the whole content parsed as one JSON value; raise TraceFormatError if not."""
        value, error = self._document
        if error is not None:
            raise error
        return value

    def document_or_none(self) -> Any:
        """Return the parsed JSON document, or None when the content is not one JSON value."""
        return self._document[0]
