"""Many traces per file, read lazily: files, folders and globs in, one record per trace out.

:func:`iter_traces` (and the per-file :func:`read_records`, :func:`read_blob_records` for bytes
already in memory) yields one :class:`TraceRecord` per trace, with the file and the 1-based line
it came from, or one :class:`Unreadable` per line (or file) that could not be read, so a caller
can account for every input line. The rules (proposals/0080-production-scoring.md):

- A JSON Lines file (plain or zstd) holds one trace per line, in the format of its first
  readable line (or ``trace_format``): native traces, OpenAI/Anthropic wrapper objects
  ``{"task_id", "messages"}``, LangChain runs, OTel OTLP/JSON lines. A line in another format
  is unreadable, naming both formats: one file, one format.
- Formats whose items belong to a trace by id are grouped, whatever order they come in: OTel
  spans by ``traceId``, LangChain/LangSmith runs by ``trace_id`` (a run without one is a whole
  run tree on its line). How is the adapter's to say (its ``grouping`` hook,
  :class:`~openeval.adapters.base.TraceGrouping`); this module knows no format.
  A first pass over the file finds the last line of each trace; the
  second yields each trace as soon as that line is read, so memory holds the traces still
  open plus a line number per trace of the file. A grouped trace's ``line`` is the first line
  holding a part of it; traces come in the order they end.
- A grouped OTel trace with no root span (every span names a parent) is unreadable: its root
  was never exported, so its answer and timing are missing, and scoring it would judge half a
  run. The same for a LangChain trace with no root run.
- A Fixtura JSON Lines file is one trace (its lines are events, the adapter says
  ``lines_are_one_trace``), read whole; so is any file that is one JSON document (unless its
  adapter groups it: an OTel document holding several traces is split by ``traceId``).
- A line over the line limit, a line that is not JSON, a corrupt or truncated zstd stream (the
  rest of the file cannot be read; one record says where it broke) are :class:`Unreadable`.
  A problem with the file itself (empty, not a regular file) is one record at line 0.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from openeval.adapters.base import (
    LoadOptions,
    TraceAdapter,
    TraceGrouping,
    TraceSource,
    item_count_note,
)
from openeval.adapters.registry import detect_format, format_names, get_adapter
from openeval.errors import OpenEvalError, TraceFormatError
from openeval.io import check_trace
from openeval.io.limits import ReadLimits
from openeval.io.lines import split_lines_tolerant
from openeval.models import AgentTrace

__all__ = [
    "TRACE_FILE_ENDINGS",
    "TraceRecord",
    "Unreadable",
    "expand_inputs",
    "folder_inputs",
    "iter_traces",
    "read_blob_records",
    "read_records",
    "trace_inputs",
]

TRACE_FILE_ENDINGS: tuple[str, ...] = (".json", ".jsonl", ".zst", ".trace", ".eval")
"""Which files of a folder are read: names ending so (case-insensitively)."""

_GLOB_CHARS = frozenset("*?[")


@dataclass(frozen=True)
class TraceRecord:
    """One trace read from a file of many, and where it came from."""

    trace: AgentTrace
    file: str
    """The file as displayed: relative when it was given relative (or found in a folder given
    relative), POSIX style."""
    line: int
    """The 1-based line the trace is on (a grouped trace: the first line holding part of it;
    a whole-file trace: 1)."""
    format: str = ""
    """The adapter that read it."""
    trace_id: str = ""
    """The trace's own id: OTel ``traceId``, LangChain ``trace_id`` or root run id, a native
    trace's ``metadata.trace_id``, else the ``task_id`` the line gives, else ``file:line``."""


_new = object.__new__
_set = object.__setattr__


def trace_record(trace: AgentTrace, file: str, line: int, format: str, trace_id: str
                 ) -> TraceRecord:
    """Return ``TraceRecord(trace, file, line, format, trace_id)``, equal to it, built without
    the frozen dataclass's ``__init__`` (one guarded ``setattr`` per field): a reader of many
    lines makes one per line (proposals/0315-score-read-once-per-line.md)."""
    record: TraceRecord = _new(TraceRecord)
    _set(record, "__dict__", {"trace": trace, "file": file, "line": line, "format": format,
                              "trace_id": trace_id})
    return record


@dataclass(frozen=True)
class Unreadable:
    """One line (or file, at line 0) that could not be read as a trace, and why."""

    file: str
    line: int
    message: str
    """One line: the place inside the line (JSON path) and what was expected."""

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.message}"


Item = TraceRecord | Unreadable


# --- inputs ---------------------------------------------------------------------------------


def _display(path: Path) -> str:
    # The path's bytes read as UTF-8 whatever the locale (a Latin-1 one would turn ``ü`` into
    # ``Ã¼`` in every row), bytes that are not UTF-8 escaped: rows are the same everywhere.
    return os.fsencode(path.as_posix()).decode("utf-8", "backslashreplace")


def folder_inputs(folder: Path) -> list[Path | Unreadable]:
    """Return the trace files under ``folder`` (sorted by path) and, in their place, an
    :class:`Unreadable` for each folder that could not be listed.

    Folders are walked as ``openeval run`` walks a suite: a link to a folder is followed once
    per real folder (so a loop ends), hidden entries are left out, and a folder that cannot be
    listed is not dropped, so a run cannot pass with traces unaccounted for.
    """
    found: list[Path | Unreadable] = []

    def unlistable(error: OSError) -> None:
        where = Path(error.filename) if error.filename else folder
        reason = error.strerror or type(error).__name__
        found.append(Unreadable(
            _display(where), 0,
            f"cannot list this folder: {reason}; every trace below it is unaccounted for"))

    walked: set[str] = set()
    for root, dirs, files in os.walk(folder, onerror=unlistable, followlinks=True):
        real = os.path.realpath(root)
        if real in walked:  # a link back to a folder already walked: a loop, or a second name
            dirs[:] = []
            continue
        walked.add(real)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            if not name.startswith(".") and name.lower().endswith(TRACE_FILE_ENDINGS):
                found.append(Path(root) / name)
    return sorted(found, key=lambda i: _display(i) if isinstance(i, Path) else i.file)


def trace_inputs(inputs: Sequence[str | Path]) -> list[Path | Unreadable]:
    """Return the files that ``inputs`` name, in order (each input's files sorted), with an
    :class:`Unreadable` at the place of each folder that could not be listed.

    An input is a file, a folder (every file under it whose name ends in
    :data:`TRACE_FILE_ENDINGS`, hidden ones left out, recursively; see :func:`folder_inputs`)
    or a glob (``**`` reaches into sub-folders; a folder it matches is read as a folder). A
    file named twice is read once, where it first appears. Raises OpenEvalError for a missing
    path, a glob matching nothing, a folder holding no trace file, or no input at all.
    """
    if not inputs:
        raise OpenEvalError("no input given: name trace files, folders or globs")
    found: list[Path | Unreadable] = []
    seen: set[str] = set()

    def add(item: Path | Unreadable) -> None:
        key = os.path.normcase(os.path.abspath(item if isinstance(item, Path) else item.file))
        if key not in seen:
            seen.add(key)
            found.append(item)

    for given in inputs:
        path = Path(given)
        text = str(given)
        if not path.exists() and _GLOB_CHARS & set(text):
            matches = sorted(glob.glob(text, recursive=True))
            if not matches:
                raise OpenEvalError(f"no file matches the glob {text!r}")
            for match in matches:
                each = Path(match)
                for item in folder_inputs(each) if each.is_dir() else [each]:
                    add(item)
        elif path.is_dir():
            inside = folder_inputs(path)
            if not inside:
                raise OpenEvalError(
                    "holds no trace file (names ending in "
                    + ", ".join(TRACE_FILE_ENDINGS) + ")", source=_display(path))
            for item in inside:
                add(item)
        elif path.exists() or path.is_symlink():
            add(path)
        else:
            raise OpenEvalError("file not found", source=_display(path))
    return found


def expand_inputs(inputs: Sequence[str | Path]) -> list[Path]:
    """Return the trace files of :func:`trace_inputs`, leaving out the folders that could not
    be listed (kept for callers that want paths only; :func:`iter_traces` and ``openeval
    score`` keep those folders as unreadable records)."""
    return [item for item in trace_inputs(inputs) if isinstance(item, Path)]


# --- reading one file -----------------------------------------------------------------------


def read_records(
    path: Path, *, trace_format: str | None = None, options: LoadOptions | None = None
) -> Iterator[Item]:
    """Yield the traces of one file, and an :class:`Unreadable` for each line that is not one.

    See the module docstring for the rules. Never raises for what the file holds; raises
    TraceFormatError only for an unknown ``trace_format``.
    """
    if trace_format is not None:
        get_adapter(trace_format)
    return _read(TraceSource(path, options), _display(path), trace_format)


def read_blob_records(
    name: str, data: bytes, *, trace_format: str | None = None,
    options: LoadOptions | None = None,
) -> Iterator[Item]:
    """Yield the records of a whole file's bytes, as :func:`read_records` reads the file.

    ``name`` is the file as displayed in records and messages. The same bytes always give
    the same records, whichever process reads them (a Ray worker gets a file's bytes).
    """
    if trace_format is not None:
        get_adapter(trace_format)
    return _read(TraceSource.from_bytes(data, name, options), name, trace_format)


def iter_traces(
    inputs: str | Path | Sequence[str | Path],
    *,
    trace_format: str | None = None,
    options: LoadOptions | None = None,
    unreadable: Literal["yield", "raise"] = "yield",
) -> Iterator[Item]:
    """Yield every trace of the files, folders and globs ``inputs`` name, lazily, in order.

    Each trace comes as a :class:`TraceRecord` (trace, file, line); each line that cannot be
    read as an :class:`Unreadable` (file, line, reason), so nothing is skipped silently. With
    ``unreadable="raise"``, the first one raises TraceFormatError instead. Raises
    OpenEvalError at once for a missing path or a glob matching nothing.
    """
    given = [inputs] if isinstance(inputs, (str, Path)) else list(inputs)
    files = trace_inputs(given)
    if trace_format is not None:
        get_adapter(trace_format)
    for file in files:
        records = [file] if isinstance(file, Unreadable) else read_records(
            file, trace_format=trace_format, options=options)
        for item in records:
            if isinstance(item, Unreadable) and unreadable == "raise":
                raise TraceFormatError(
                    item.message, source=item.file,
                    location=f"line {item.line}" if item.line else None,
                )
            yield item


def _reason(exc: OpenEvalError, file: str, line_no: int) -> str:
    """Return an error's message without the file and line a record already names."""
    location = exc.location or ""
    prefix = f"line {line_no}"
    if location == prefix:
        location = ""
    elif location.startswith(prefix + ": "):
        location = location[len(prefix) + 2:]
    elif location.startswith(prefix + " "):  # "line 3 column 7"
        location = location[len(prefix) + 1:]
    return f"{location}: {exc.message}" if location else exc.message


def _line_in(location: str | None) -> int:
    """Return the line number a location starts with (``line 12: ...``), or 0."""
    if location and location.startswith("line "):
        digits = location[5:].split(":", 1)[0].split(" ", 1)[0]
        if digits.isdigit():
            return int(digits)
    return 0


def _read(source: TraceSource, file: str, forced: str | None) -> Iterator[Item]:
    try:
        if not source.head.strip():
            yield Unreadable(file, 0, "empty file, expected traces")
            return
        whole = _whole_file_adapter(source, forced)
    except TraceFormatError as exc:
        yield Unreadable(file, 0, _reason(exc, file, 0))
        return
    except MemoryError:
        yield Unreadable(file, 0, "does not fit in the memory available")
        return
    if whole is not None:
        yield from _read_whole(source, file, whole)
        return
    yield from _read_lines(source, file, forced)


def _whole_file_adapter(source: TraceSource, forced: str | None) -> TraceAdapter | None:
    """Return the adapter reading the whole file as one document (or one trace), or None
    when the file is JSON Lines holding one trace per line."""
    if forced is not None:
        adapter = get_adapter(forced)
        if _lines_are_one_trace(adapter) or not source.is_json_lines:
            return adapter
        return None
    if source.is_json_lines:
        for name in format_names():
            adapter = get_adapter(name)
            if _lines_are_one_trace(adapter) and adapter.refusal(source) is None:
                return adapter
        return None
    return detect_format(source)


def _lines_are_one_trace(adapter: TraceAdapter) -> bool:
    return getattr(adapter, "lines_are_one_trace", False) is True


def _grouping(adapter: TraceAdapter, source: TraceSource, whole: bool) -> TraceGrouping | None:
    """Return the adapter's grouping of ``source`` (see :class:`TraceGrouping`), if it has one."""
    hook = getattr(adapter, "grouping", None)
    return hook(source, whole) if callable(hook) else None


def _read_whole(source: TraceSource, file: str, adapter: TraceAdapter) -> Iterator[Item]:
    grouping = _grouping(adapter, source, True)
    if grouping is not None:
        yield from _grouped_document(source, file, adapter.name, grouping)
        return
    if callable(getattr(adapter, "load_many", None)):
        yield from _many_document(source, file, adapter)
        return
    try:
        trace = adapter.load(source)
        check_trace(trace, source.limits, file)
    except TraceFormatError as exc:
        line = _line_in(exc.location) or (0 if source.is_json_lines else 1)
        yield Unreadable(file, line, _reason(exc, file, line))
        return
    except MemoryError:
        yield Unreadable(file, 0, "does not fit in the memory available while it is read")
        return
    yield TraceRecord(trace, file, 1, adapter.name, _own_id(trace, None) or trace.task_id)


def _many_document(source: TraceSource, file: str, adapter: Any) -> Iterator[Item]:
    """Yield the traces of a format holding many in one document (``adapter.load_many``:
    Inspect samples, Agents SDK trace ids), each one record; a broken one is unreadable."""
    try:
        for trace in adapter.load_many(source):
            if isinstance(trace, TraceFormatError):
                yield Unreadable(file, 1, _reason(trace, file, 1))
                continue
            try:
                check_trace(trace, source.limits, file)
            except TraceFormatError as exc:
                yield Unreadable(file, 1, _reason(exc, file, 1))
                continue
            yield TraceRecord(trace, file, 1, adapter.name, _own_id(trace, None) or trace.task_id)
    except TraceFormatError as exc:
        yield Unreadable(file, 1, _reason(exc, file, 1))
    except MemoryError:
        yield Unreadable(file, 0, "does not fit in the memory available while it is read")


def _grouped_document(
    source: TraceSource, file: str, name: str, grouping: TraceGrouping
) -> Iterator[Item]:
    """Yield each trace of one document holding many, in the order each first appears."""
    try:
        items = grouping.items(source, 0)
    except TraceFormatError as exc:
        yield Unreadable(file, 1, _reason(exc, file, 1))
        return
    groups: dict[str, list[tuple[int, Any]]] = {}
    for key, item in items:
        groups.setdefault(key, []).append((1, item))
    for key, group in groups.items():
        yield _finish(grouping, name, key, group, file, source.limits)


def _own_id(trace: AgentTrace, value: Any) -> str | None:
    """Return the id a trace gives itself: ``metadata.trace_id``, else the line's task_id."""
    given = trace.metadata.get("trace_id")
    if isinstance(given, str) and given:
        return given
    if isinstance(value, dict) and isinstance(value.get("task_id"), str) and value["task_id"]:
        return trace.task_id
    return None


# --- one trace per line ---------------------------------------------------------------------


class _LineFormat:
    """The format a JSON Lines file's traces are in, fixed by its first readable line."""

    def __init__(self, forced: str | None) -> None:
        self.adapter: TraceAdapter | None = get_adapter(forced) if forced else None
        self.line = 0  # where it was detected (0: forced)

    def of(self, source: TraceSource, line_no: int) -> TraceAdapter:
        """Return the adapter for one line; raise TraceFormatError when the line is not in the
        file's format."""
        if self.adapter is None:
            self.adapter = detect_format(source)
            self.line = line_no
            return self.adapter
        if not self.line:
            return self.adapter  # forced: read as that format, as load_trace(format=) does
        reason = self.adapter.refusal(source)
        if reason is None:
            return self.adapter
        where = f"line {self.line}"
        try:
            other = detect_format(source).name
        except TraceFormatError:
            raise TraceFormatError(
                f"not a {self.adapter.name} trace ({reason}); this file's traces are "
                f"{self.adapter.name} ({where})") from None
        raise TraceFormatError(
            f"a {other} trace in a file of {self.adapter.name} traces ({where}); keep one "
            "format per file")


def _line_sources(
    source: TraceSource, file: str,
    decode: Callable[[bytes], AgentTrace | None] | None = None,
) -> Generator[tuple[int, TraceSource | Unreadable | AgentTrace], None, None]:
    """Yield each non-blank line as a source of its own, or as why it cannot be read; with
    ``decode`` (the format's ``typed_decode`` hook), a line it reads as the trace itself."""
    limits = source.limits
    shown = Path(file)
    longest = min(limits.document_bytes, limits.max_decompressed_bytes)
    for line_no, line in split_lines_tolerant(source.chunks(), file, limits.max_line_bytes,
                                              limits.max_json_values):
        if isinstance(line, TraceFormatError):
            yield line_no, Unreadable(file, line_no, _reason(line, file, line_no))
            continue
        if decode is not None and len(line) <= longest:
            trace = decode(bytes(line))
            if trace is not None:  # what the native adapter would read: no source needed
                yield line_no, _within_limits(trace, len(line), limits, file, line_no)
                continue
        one = TraceSource(shown, source.options, data=bytes(line))
        if one.read_as_line():
            yield line_no, one
            continue
        try:
            one.document()
        except TraceFormatError as exc:
            yield line_no, Unreadable(file, line_no, _reason(exc, file, 1))
            continue
        yield line_no, one


def _within_limits(
    trace: AgentTrace, size: int, limits: ReadLimits, file: str, line_no: int
) -> AgentTrace | Unreadable:
    """Return ``trace`` read from a line of ``size`` bytes, or why it is over ``limits``
    (:func:`~openeval.io.check_trace`'s error, which counts only the steps of a line no
    longer than ``max_text_chars``)."""
    try:
        check_trace(trace, limits, file, size=size)
    except TraceFormatError as exc:
        return Unreadable(file, line_no, _reason(exc, file, 1))
    return trace


def _line_values(source: TraceSource, file: str) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, value)`` for each non-blank line: its JSON value as the line's
    source reads it (:func:`_line_sources`), None when it reads none; a source is built only
    for a line the short way does not read (the first pass of a grouped file)."""
    from openeval.io.source import NOT_A_LINE, line_value

    limits = source.limits
    shown = Path(file)
    for line_no, line in split_lines_tolerant(source.chunks(), file, limits.max_line_bytes,
                                              limits.max_json_values):
        if isinstance(line, TraceFormatError):
            continue
        data = bytes(line)
        value = line_value(data, limits, shown)
        if value is NOT_A_LINE:
            value = TraceSource(shown, source.options, data=data).document_or_none()
        yield line_no, value


def _read_lines(source: TraceSource, file: str, forced: str | None) -> Iterator[Item]:
    fmt = _LineFormat(forced)
    first = _first_readable(source, file, fmt)
    grouping = _grouping_of(first, fmt)
    if grouping is not None and fmt.adapter is not None:
        yield from _read_grouped(source, file, fmt, fmt.adapter.name, grouping)
        return
    adapter = fmt.adapter
    decode = getattr(adapter, "typed_decode", None)
    for line_no, one in _line_sources(source, file, decode):
        if isinstance(one, Unreadable):
            yield one
        elif isinstance(one, AgentTrace) and adapter is not None:
            yield _typed_line(one, source, file, line_no, adapter.name)
        elif isinstance(one, TraceSource):
            yield _load_line(one, file, line_no, fmt)


def _typed_line(
    trace: AgentTrace, source: TraceSource, file: str, line_no: int, name: str
) -> Item:
    """The record :func:`_load_line` makes of a line, for one the format's ``typed_decode``
    read (and :func:`_line_sources` held to the limits): that hook answers only for a line
    the format's refusal and load would accept as this trace (a JSON object whose ``task_id``
    the trace holds)."""
    given = trace.metadata.get("trace_id")
    own = given if isinstance(given, str) and given else trace.task_id
    return trace_record(trace, file, line_no, name, own or f"{file}:{line_no}")


def _first_readable(source: TraceSource, file: str, fmt: _LineFormat) -> TraceSource | None:
    """Return the first line that is a trace of a known format, fixing the file's format by
    it (unless forced); None when no line is. Reads only as far as that line."""
    lines = _line_sources(source, file)
    try:
        for line_no, one in lines:
            if not isinstance(one, TraceSource):  # unreadable (untyped: never a trace)
                continue
            try:
                fmt.of(one, line_no)
            except TraceFormatError:
                continue
            return one
        return None
    finally:
        lines.close()


def _load_line(one: TraceSource, file: str, line_no: int, fmt: _LineFormat) -> Item:
    try:
        adapter = fmt.of(one, line_no)
        trace = adapter.load(one)
        check_trace(trace, one.limits, file)
    except TraceFormatError as exc:
        return Unreadable(file, line_no, _reason(exc, file, 1))
    except MemoryError:
        return Unreadable(file, line_no, "does not fit in the memory available")
    own = _own_id(trace, one.document_or_none())
    return TraceRecord(trace, file, line_no, adapter.name, own or f"{file}:{line_no}")


# --- grouped formats ------------------------------------------------------------------------


def _grouping_of(first: TraceSource | None, fmt: _LineFormat) -> TraceGrouping | None:
    """Return the grouping for a file whose first readable line is in a format whose items
    belong to traces by id, else None."""
    if first is None or fmt.adapter is None:
        return None
    return _grouping(fmt.adapter, first, False)


def _read_grouped(
    source: TraceSource, file: str, fmt: _LineFormat, name: str, grouping: TraceGrouping
) -> Iterator[Item]:
    last_line: dict[str, int] = {}
    for line_no, value in _line_values(source, file):
        for key in grouping.keys(value):
            last_line[key] = line_no
    open_groups: dict[str, list[tuple[int, Any]]] = {}
    for line_no, one in _line_sources(source, file):
        if not isinstance(one, TraceSource):  # untyped: an Unreadable, never a trace
            if isinstance(one, Unreadable):
                yield one
            continue
        try:
            adapter = fmt.of(one, line_no)
            if adapter.name != name:
                raise TraceFormatError(
                    f"a {adapter.name} trace in a file of {name} traces (line "
                    f"{fmt.line}); keep one format per file")
            items = grouping.items(one, line_no)
        except TraceFormatError as exc:
            yield Unreadable(file, line_no, _reason(exc, file, 1))
            continue
        touched: list[str] = []
        for key, item in items:
            group = open_groups.get(key)
            if group is None:
                group = open_groups[key] = []
                touched.append(key)
            elif not group or group[-1][0] != line_no:
                touched.append(key)
            group.append((line_no, item))
        ended = [k for k in touched if last_line.get(k, line_no) <= line_no]
        if len(ended) > 1:
            order = {k: i for i, k in enumerate(open_groups)}
            ended.sort(key=order.__getitem__)
        for key in ended:
            last_line.pop(key, None)
            yield _finish(grouping, name, key, open_groups.pop(key), file, source.limits)
    for key, group in open_groups.items():  # lines that broke in the second pass only
        yield _finish(grouping, name, key, group, file, source.limits)


def _finish(
    grouping: TraceGrouping, name: str, key: str, items: list[tuple[int, Any]], file: str,
    limits: Any,
) -> Item:
    """Return the record of one complete trace, or why its items make none."""
    first = items[0][0]
    if not key:
        return Unreadable(
            file, first, f"{item_count_note(items, grouping.item)} carry no "
            f"{grouping.key_field}: which trace they belong to is unknown")
    try:
        trace, trace_id = grouping.finish(key, items, file)
        check_trace(trace, limits, file)
    except TraceFormatError as exc:
        return Unreadable(file, first, f"trace {key}: {_reason(exc, file, first)}")
    return TraceRecord(trace, file, first, name, trace_id)
