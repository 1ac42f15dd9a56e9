"""The Ray Data engine of ``openeval score``: the local rows, scored on a Ray cluster.

Two doors (proposals/0081-distributed-scoring.md):

- :func:`score_dataset`: a Ray Dataset of traces in, a Dataset of result rows out, for code
  that already holds its traces in Ray (``ray.data.read_binary_files(..., include_paths=True)``
  over a bucket, or a table of trace JSON);
- :func:`score_rows`: what ``openeval score --engine ray`` runs: the files read through Ray
  Data, scored on the cluster, every row handed back in input order.

The unit of work is one input row: a whole file's bytes, or one trace's JSON. A worker reads it
with :func:`openeval.production.read_blob_records` and scores each record with
:func:`openeval.production.score_record`, the functions the local engine calls, so a row scored
on Ray is the local row. Ray is imported only when one of these functions runs
(``pip install "openeval-core[ray]"``).
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from numbers import Integral
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from openeval.errors import MissingDependencyError, OpenEvalError, SuiteError
from openeval.production.plan import ScorePlan, load_checks, plan_of
from openeval.production.records import TraceRecord, Unreadable, read_blob_records, read_records
from openeval.production.rows import row_line, score_record
from openeval.production.sample import BottomK, sample_key

if TYPE_CHECKING:
    from ray.data import Dataset

    from openeval.adapters.base import LoadOptions

__all__ = ["CONNECT_TIMEOUT_S", "RESULT_COLUMNS", "result_rows", "score_dataset", "score_rows"]

RESULT_COLUMNS: tuple[str, ...] = ("file", "line", "status", "trace_id", "row")
"""The columns of :func:`score_dataset`'s rows. ``row`` is the whole result row as JSON text
(keys sorted: the ``results.jsonl`` line without its newline); the others repeat its fields so
a Dataset can be filtered and grouped without parsing it. ``trace_id`` is null for a line that
could not be read."""

CONNECT_TIMEOUT_S = 10.0
"""How long connecting to ``--address`` may take before it is an error."""

_INSTALL = 'pip install "openeval-core[ray]"'
_KEY_BYTES = 8  # a sampling key is 64 bits


def score_dataset(
    ds: Dataset,
    checks: ScorePlan | str | Path | Sequence[Mapping[str, Any]],
    *,
    trace_format: str | None = None,
    options: LoadOptions | None = None,
) -> Dataset:
    """Return a Dataset of one result row per trace (or unreadable line) of ``ds``, in order.

    Each row of ``ds`` is one unit of work:

    - ``bytes``: a whole trace file's content (plain or zstd; any format ``openeval score``
      reads, OTel and LangSmith traces grouped within it), or one trace's JSON (bytes or text);
    - ``path`` or ``file``: the name its result rows carry (``file`` wins when both are there),
      as :func:`ray.data.read_binary_files` with ``include_paths=True`` gives it;
    - ``line`` (optional): the line of ``file`` that ``bytes`` starts at, for a table holding
      one trace per row; result rows then count lines from it (a trace with no id of its own
      is ``file:line``), and a problem with the row itself is reported at that line.

    ``checks`` is a :class:`~openeval.production.ScorePlan`, the path of a checks file, or a
    list of check entries (the same entries as a test case's ``checks``). The result rows have
    :data:`RESULT_COLUMNS`; :func:`result_rows` gives back the row dicts, which are the ones
    the local ``openeval score`` writes for the same bytes. The result keeps the order of
    ``ds`` (it sets ``preserve_order`` on the Dataset's context). Raises OpenEvalError for
    checks that configure nothing or an unknown ``trace_format``; a row without ``bytes`` or a
    name fails the Dataset's execution with an OpenEvalError saying what was expected.
    """
    _require_ray()
    return _scored(ds, _plan_of(checks), trace_format=trace_format, options=options)


def result_rows(scored: Dataset) -> Iterator[dict[str, Any]]:
    """Yield the result rows of a Dataset from :func:`score_dataset`, in its order."""
    for batch in scored.iter_batches(batch_format="pyarrow", batch_size=None):
        for text in _column(batch, "row"):
            yield orjson.loads(text)


def score_rows(
    files: Sequence[Path],
    plan: ScorePlan,
    *,
    address: str | None = None,
    sample: int | None = None,
    trace_format: str | None = None,
    options: LoadOptions | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield the rows ``openeval score`` writes for ``files``, scored on Ray, in input order.

    Connects to the cluster at ``address`` (``HOST:PORT`` of its head, ``ray://HOST:PORT`` or
    ``auto``), or, without one, lets ``ray.init()`` choose (``RAY_ADDRESS``, a cluster
    ``ray start`` left on this machine, else a new local one); when this process is already
    connected to Ray, that connection is used. The files are read with
    :func:`ray.data.read_binary_files` and scored by :func:`score_dataset`'s workers; a file
    that cannot be opened as a regular file within the size limit (a FIFO, a device, a file
    over ``max_decompressed_bytes``) is left to the local reader, which refuses it at once
    with the local message, so rows, order and the sample are exactly the local ones. With
    ``sample``, a first pass finds the bottom-``sample`` cut of the trace ids, as the local
    engine does. A cluster that cannot be reached within :data:`CONNECT_TIMEOUT_S` is an
    OpenEvalError naming the address; so is a Ray job that fails.
    """
    _require_ray()
    _check_once(files)
    names = [file.as_posix() for file in files]
    on_ray = [i for i, file in enumerate(files) if _ray_may_read(file, options)]
    with _connected(address), _quiet_ray_data():
        threshold = None
        if sample is not None:
            threshold = _sample_threshold(files, names, on_ray, sample,
                                          trace_format=trace_format, options=options)
        remote = _remote_rows(files, names, on_ray, plan, threshold,
                              trace_format=trace_format, options=options)
        local_rows = (
            (i, score_record(item, plan, sample_threshold=threshold))
            for i in sorted(set(range(len(files))) - set(on_ray))
            for item in read_records(files[i], trace_format=trace_format, options=options)
        )
        yield from _merged(remote, local_rows)


# --- the worker's side: one input row in, its result rows out -----------------------------


def _records(
    row: Mapping[str, Any], *, trace_format: str | None, options: LoadOptions | None,
    names: Mapping[str, str] | None,
) -> Iterator[TraceRecord | Unreadable]:
    """Yield the records of one input row (see :func:`score_dataset` for its columns)."""
    data = row.get("bytes")
    if isinstance(data, str):
        data = data.encode("utf-8")
    if not isinstance(data, bytes):
        raise OpenEvalError(
            f"a dataset row's 'bytes' is {type(data).__name__}; expected a column 'bytes' "
            "holding a trace file's content or a trace's JSON")
    name = row.get("file") or row.get("path")
    if not isinstance(name, str) or not name:
        raise OpenEvalError(
            "a dataset row names no file; expected a 'path' column (read_binary_files(..., "
            "include_paths=True)) or a 'file' column")
    if names is not None:
        name = names.get(name, name)
    first = row.get("line")
    records = read_blob_records(name, data, trace_format=trace_format, options=options)
    if first is None:
        return records
    if not isinstance(first, Integral) or isinstance(first, bool) or first < 1:
        raise OpenEvalError(f"{name}: a dataset row's 'line' is {first!r}; expected a line "
                            "number (1 or more)")
    return (_from_line(item, int(first)) for item in records)


def _from_line(item: TraceRecord | Unreadable, first: int) -> TraceRecord | Unreadable:
    """Return ``item`` with its line counted from line ``first`` of its file."""
    line = first + item.line - 1 if item.line else first
    if isinstance(item, Unreadable):
        return replace(item, line=line)
    # A trace with no id of its own is named by its place, which moved with it.
    own = item.trace_id != f"{item.file}:{item.line}"
    return replace(item, line=line, trace_id=item.trace_id if own else f"{item.file}:{line}")


def _score_row(
    row: Mapping[str, Any], *, plan: ScorePlan, threshold: int | None,
    trace_format: str | None, options: LoadOptions | None, names: Mapping[str, str] | None,
) -> Iterator[dict[str, Any]]:
    """Yield the result rows (:data:`RESULT_COLUMNS`) of one input row."""
    for item in _records(row, trace_format=trace_format, options=options, names=names):
        result = score_record(item, plan, sample_threshold=threshold)
        yield {"file": result["file"], "line": result["line"], "status": result["status"],
               "trace_id": result.get("trace_id"), "row": row_line(result)[:-1].decode()}


def _sample_keys(
    row: Mapping[str, Any], *, trace_format: str | None, options: LoadOptions | None,
    names: Mapping[str, str] | None,
) -> dict[str, Any]:
    """Return the sampling keys of one input row's traces, packed (8 bytes each)."""
    keys = b"".join(
        sample_key(item.trace_id).to_bytes(_KEY_BYTES, "big")
        for item in _records(row, trace_format=trace_format, options=options, names=names)
        if isinstance(item, TraceRecord))
    return {"keys": keys}


# --- the driver's side ----------------------------------------------------------------------


def _require_ray() -> None:
    try:
        import ray.data  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError(
            f"the Ray engine needs Ray Data ({exc}): {_INSTALL}") from None


def _plan_of(checks: ScorePlan | str | Path | Sequence[Mapping[str, Any]]) -> ScorePlan:
    if isinstance(checks, ScorePlan):
        return checks
    if isinstance(checks, (str, Path)):
        return load_checks(Path(checks))
    return plan_of(checks)


def _scored(
    ds: Dataset, plan: ScorePlan, *, trace_format: str | None, options: LoadOptions | None,
    threshold: int | None = None, names: Mapping[str, str] | None = None,
) -> Dataset:
    if trace_format is not None:
        from openeval.adapters.registry import get_adapter

        get_adapter(trace_format)  # an unknown format is one error here, not one per worker
    scored = ds.flat_map(partial(_score_row, plan=plan, threshold=threshold,
                                 trace_format=trace_format, options=options, names=names))
    scored.context.execution_options.preserve_order = True
    return scored


def _check_once(files: Sequence[Path]) -> None:
    seen: set[str] = set()
    for file in files:
        key = os.path.normcase(os.path.abspath(file))
        if key in seen:
            raise SuiteError(f"{file.as_posix()}: named twice; expected each file once (as "
                             "openeval.production.expand_inputs gives them)")
        seen.add(key)


def _ray_may_read(file: Path, options: LoadOptions | None) -> bool:
    """Return whether ``file`` is a regular file within the size limit, which Ray may read
    whole; anything else the local reader refuses before reading a byte."""
    from openeval.adapters.base import LoadOptions
    from openeval.io.files import open_regular

    limit = (options or LoadOptions()).max_decompressed_bytes
    try:
        handle, size = open_regular(file)
    except OpenEvalError:
        return False
    handle.close()
    return size <= limit


def _read_files(files: Sequence[Path], on_ray: Sequence[int]) -> tuple[Dataset, dict[str, str]]:
    """Return the Dataset of the files Ray reads, and each one's name as Ray gives it back
    mapped to the name local reading shows."""
    import ray.data

    paths = {os.path.abspath(files[i]): files[i].as_posix() for i in on_ray}
    ds = ray.data.read_binary_files(list(paths), include_paths=True)
    ds.context.print_on_execution_start = False
    ds.context.enable_progress_bars = False
    return ds, paths


def _sample_threshold(
    files: Sequence[Path], names: Sequence[str], on_ray: Sequence[int], sample: int, *,
    trace_format: str | None, options: LoadOptions | None,
) -> int | None:
    """Return the cut of the bottom-``sample`` sample of every trace of ``files``."""
    bottom = BottomK(sample)
    if on_ray:
        ds, paths = _read_files(files, on_ray)
        keyed = ds.map(partial(_sample_keys, trace_format=trace_format, options=options,
                               names=paths))
        with _ray_errors():
            for batch in keyed.iter_batches(batch_format="pyarrow", batch_size=None):
                for packed in _column(batch, "keys"):
                    bottom.update(int.from_bytes(packed[i:i + _KEY_BYTES], "big")
                                  for i in range(0, len(packed), _KEY_BYTES))
    for i in sorted(set(range(len(files))) - set(on_ray)):
        for item in read_records(files[i], trace_format=trace_format, options=options):
            if isinstance(item, TraceRecord):
                bottom.add(sample_key(item.trace_id))
    return bottom.threshold()


def _remote_rows(
    files: Sequence[Path], names: Sequence[str], on_ray: Sequence[int], plan: ScorePlan,
    threshold: int | None, *, trace_format: str | None, options: LoadOptions | None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(file index, row)`` for every row of the files Ray reads, in their order."""
    if not on_ray:
        return
    ds, paths = _read_files(files, on_ray)
    index = {names[i]: i for i in on_ray}
    scored = _scored(ds, plan, trace_format=trace_format, options=options,
                     threshold=threshold, names=paths)
    with _ray_errors():
        for batch in scored.iter_batches(batch_format="pyarrow", batch_size=None):
            for file, text in zip(_column(batch, "file"),
                                  _column(batch, "row"), strict=True):
                yield index[file], orjson.loads(text)


def _merged(
    remote: Iterator[tuple[int, dict[str, Any]]], local: Iterator[tuple[int, dict[str, Any]]]
) -> Iterator[dict[str, Any]]:
    """Yield the rows of both streams in file order (each stream is in file order already)."""
    pending = next(local, None)
    for index, row in remote:
        while pending is not None and pending[0] < index:
            yield pending[1]
            pending = next(local, None)
        yield row
    while pending is not None:
        yield pending[1]
        pending = next(local, None)


@contextmanager
def _connected(address: str | None) -> Iterator[None]:
    """Connect this process to Ray for the block (and disconnect after, if it connected)."""
    import ray

    if ray.is_initialized():
        if address is not None:
            raise SuiteError(f"--address {address}: this process is already connected to a "
                             "Ray cluster; pass no address to use that one")
        yield
        return
    if address is None:
        ray.init(include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
    else:
        _connect(address)
    try:
        yield
    finally:
        ray.shutdown()


def _connect(address: str) -> None:
    import ray

    target = _host_port(address)
    if target is not None:
        _check_reachable(address, *target)
    # Ray retries a silent head for minutes; a port that answers but is no Ray head must fail
    # within the timeout as well. The operator's own settings win.
    os.environ.setdefault("RAY_gcs_server_port_wait_time_s", str(int(CONNECT_TIMEOUT_S)))
    os.environ.setdefault("RAY_py_gcs_connect_timeout_s", str(int(CONNECT_TIMEOUT_S)))
    try:
        ray.init(address=address, logging_level=logging.ERROR, log_to_driver=False)
    except Exception as exc:  # Ray raises ConnectionError, RuntimeError (version), ValueError
        raise OpenEvalError(f"cannot connect to the Ray cluster at {address}: "
                            f"{_first_line(exc)}") from None


def _host_port(address: str) -> tuple[str, int] | None:
    """Return the host and port ``address`` names; None for ``auto`` (Ray looks it up)."""
    if address == "auto":
        return None
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    host = host.strip("[]")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise SuiteError(f"--address {address!r}: expected HOST:PORT of the cluster's head "
                         "(port 6379 unless it was started with another), ray://HOST:PORT or "
                         "auto")
    return host, int(port)


def _check_reachable(address: str, host: str, port: int) -> None:
    """Raise OpenEvalError unless something accepts a connection at ``host:port`` in time."""
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S):
            pass
    except TimeoutError:
        reason = f"no answer within {CONNECT_TIMEOUT_S:g} s"
    except OSError as exc:
        reason = exc.strerror or str(exc)
    else:
        return
    raise OpenEvalError(f"cannot reach the Ray cluster at {address}: {reason} (is "
                        "`ray start --head` running there, and is this its port?)")


@contextmanager
def _ray_errors() -> Iterator[None]:
    """Turn a failed Ray job into one OpenEvalError: the worker's own one when it raised one."""
    from ray.exceptions import RayError

    try:
        yield
    except RayError as exc:
        cause = _openeval_cause(exc, RayError)
        if cause is not None:
            raise cause from None
        raise OpenEvalError(f"the Ray job failed: {_first_line(exc)}") from None


def _openeval_cause(exc: BaseException, wrapper: type[BaseException]) -> OpenEvalError | None:
    """Return the OpenEvalError a worker raised under ``exc``, if any (Ray wraps it, maybe
    twice, in ``wrapper`` subclasses)."""
    current: BaseException | None = exc
    for _ in range(16):
        if current is None:
            return None
        if isinstance(current, OpenEvalError) and not isinstance(current, wrapper):
            return current
        cause = getattr(current, "cause", None)
        current = cause if isinstance(cause, BaseException) else (
            current.__cause__ or current.__context__)
    return None


def _column(batch: Any, name: str) -> list[Any]:
    """Return one column of a pyarrow batch as Python values."""
    values: list[Any] = batch.column(name).to_pylist()
    return values


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "cause", None) or exc).strip()
    line = text.splitlines()[0] if text else type(exc).__name__
    return line[:500]


@contextmanager
def _quiet_ray_data() -> Iterator[None]:
    """Keep Ray Data's execution logs off the console for the block: the command prints its
    own progress and summary."""
    logger = logging.getLogger("ray.data")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)
