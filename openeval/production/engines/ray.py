"""The Ray Data engine of ``openeval score``: the local rows, scored on a Ray cluster.

Two doors (proposals/0081-distributed-scoring.md):

- :func:`score_dataset`: a Ray Dataset of traces in, a Dataset of result rows out, for code
  that already holds its traces in Ray (``ray.data.read_binary_files(..., include_paths=True)``
  over a bucket, or a table of trace JSON);
- :func:`score_rows`: what ``openeval score --engine ray`` runs: a Dataset of the files, each
  read and scored by a worker, every row handed back in input order.

The unit of work is one input row: a file, a file's bytes, or one trace's JSON. A worker reads
it with the local reader (:func:`openeval.production.read_records`, or
:func:`~openeval.production.read_blob_records` for bytes) and scores each record with
:func:`openeval.production.score_record`, the functions the local engine calls, so a row scored
on Ray is the local row. Ray is imported only when one of these functions runs
(``pip install "openeval-core[ray]"``).
"""

from __future__ import annotations

import atexit
import logging
import os
import socket
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import replace
from functools import partial
from numbers import Integral
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from openeval.errors import MissingDependencyError, OpenEvalError, SuiteError
from openeval.jsonio import loads_exact
from openeval.production.plan import ScorePlan, as_plan
from openeval.production.records import TraceRecord, Unreadable, read_blob_records, read_records
from openeval.production.rows import row_line, score_record
from openeval.production.sample import BottomK, sample_key
from openeval.version import __version__

if TYPE_CHECKING:
    from ray.data import Dataset

    from openeval.adapters.base import LoadOptions
    from openeval.production.inputs import ScoreInput

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
    return _scored(ds, as_plan(checks), trace_format=trace_format, options=options)


def result_rows(scored: Dataset) -> Iterator[dict[str, Any]]:
    """Yield the result rows of a Dataset from :func:`score_dataset`, in its order.

    A failed Ray job is an OpenEvalError: the one a worker raised, or one naming the failure.
    """
    with _ray_errors():
        for batch in scored.iter_batches(batch_format="pyarrow", batch_size=None):
            for text in _column(batch, "row"):
                yield loads_exact(text)


def score_rows(
    files: Sequence[ScoreInput],
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
    connected to Ray, that connection is used. The files become a Ray Dataset of one row per
    file; each worker reads its file with the local reader
    (:func:`openeval.production.read_records`: streamed, within the same limits, refusing what
    it refuses) and scores it, so rows, order and the sample are exactly the local ones. The
    workers must see the files at the same paths (one machine, or a shared file system). With
    ``sample``, a first pass finds the bottom-``sample`` cut of the trace ids, as the local
    engine does. A cluster that cannot be reached within :data:`CONNECT_TIMEOUT_S` is an
    OpenEvalError naming the address; so is a Ray job that fails.
    """
    if address is not None and not _already_connected():
        _check_address(address)
    _require_ray()
    if trace_format is not None:
        from openeval.adapters.registry import get_adapter

        get_adapter(trace_format)  # an unknown format is one error here, not one per worker
    if not files:
        return
    reading = partial(_file_records, trace_format=trace_format, options=options)
    with _connected(address), _quiet_ray_data():
        threshold = None
        if sample is not None:
            threshold = _sample_threshold(_file_rows(files), sample, reading)
        scored = _file_rows(files).flat_map(
            partial(_score_row, plan=plan, threshold=threshold, reading=reading,
                    version=__version__))
        scored.context.execution_options.preserve_order = True
        yield from result_rows(scored)


# --- the worker's side: one input row in, its result rows out -----------------------------

Reading = Callable[[Mapping[str, Any]], Iterator[TraceRecord | Unreadable]]
"""How a worker turns one input row into records."""


def _blob_records(
    row: Mapping[str, Any], *, trace_format: str | None, options: LoadOptions | None
) -> Iterator[TraceRecord | Unreadable]:
    """Yield the records of one :func:`score_dataset` input row (see there for its columns)."""
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
    first = row.get("line")
    records = read_blob_records(name, data, trace_format=trace_format, options=options)
    if first is None:
        return records
    if not isinstance(first, Integral) or isinstance(first, bool) or first < 1:
        raise OpenEvalError(f"{name}: a dataset row's 'line' is {first!r}; expected a line "
                            "number (1 or more)")
    named = _names_its_task(data)
    return (_moved(item, line=int(first), own_id=named) for item in records)


def _names_its_task(data: bytes) -> bool | None:
    """Return whether one trace's JSON gives a ``task_id`` (a line without one, and no
    ``metadata.trace_id``, is named by its place, as in a JSON Lines file); None when
    ``data`` is not one JSON document (lines, zstd: read as a file, they name themselves)."""
    try:
        value = loads_exact(data)
    except orjson.JSONDecodeError:
        return None
    task_id = value.get("task_id") if isinstance(value, dict) else None
    return isinstance(task_id, str) and bool(task_id)


def _file_records(
    row: Mapping[str, Any], *, trace_format: str | None, options: LoadOptions | None
) -> Iterator[TraceRecord | Unreadable]:
    """Yield the records of the file a :func:`score_rows` row names, as local reading does.

    The worker reads the absolute ``path`` (its working folder is not the caller's); the
    records carry ``file``, the name local reading shows.
    """
    path, name = Path(row["path"]), row["file"]
    if row.get("problem"):
        yield Unreadable(name, 0, row["problem"])
        return
    shown = path.as_posix()
    for item in read_records(path, trace_format=trace_format, options=options):
        yield item if shown == name else _moved(item, file=name)


def _moved(
    item: TraceRecord | Unreadable, *, file: str | None = None, line: int | None = None,
    own_id: bool | None = None,
) -> TraceRecord | Unreadable:
    """Return ``item`` renamed to ``file`` and/or with its line counted from line ``line``
    of its file (a problem with the whole input is reported at that line). ``own_id``: whether
    the input, one trace's JSON, gave the trace a task id (None: the record knows)."""
    new_file = item.file if file is None else file
    new_line = item.line if line is None else (line + item.line - 1 if item.line else line)
    if isinstance(item, Unreadable):
        return replace(item, file=new_file, line=new_line)
    # A trace with no id of its own is named by its place, which moved with it. (Read whole,
    # one trace's JSON without an id was named after its file; in a file of lines, it is not.)
    if own_id is None:
        own = item.trace_id != f"{item.file}:{item.line}"
    else:
        given = item.trace.metadata.get("trace_id")
        own = own_id or (isinstance(given, str) and bool(given))
    return replace(item, file=new_file, line=new_line,
                   trace_id=item.trace_id if own else f"{new_file}:{new_line}")


def _score_row(
    row: Mapping[str, Any], *, plan: ScorePlan, threshold: int | None, reading: Reading,
    version: str,
) -> Iterator[dict[str, Any]]:
    """Yield the result rows (:data:`RESULT_COLUMNS`) of one input row."""
    _same_version(version)
    for item in reading(row):
        result = score_record(item, plan, sample_threshold=threshold)
        yield {"file": result["file"], "line": result["line"], "status": result["status"],
               "trace_id": result.get("trace_id"), "row": row_line(result)[:-1].decode()}


def _sample_keys(
    row: Mapping[str, Any], *, reading: Reading, version: str
) -> dict[str, Any]:
    """Return the sampling keys of one input row's traces, packed (8 bytes each)."""
    _same_version(version)
    keys = b"".join(sample_key(item.trace_id).to_bytes(_KEY_BYTES, "big")
                    for item in reading(row) if isinstance(item, TraceRecord))
    return {"keys": keys}


def _same_version(driver: str) -> None:
    """Raise OpenEvalError when this worker runs another OpenEval than the caller: its rows
    could differ from the local ones."""
    if driver != __version__:
        raise OpenEvalError(f"the Ray workers run openeval-core {__version__}, this process "
                            f"{driver}; install the same version on the cluster")


# --- the driver's side ----------------------------------------------------------------------


def _require_ray() -> None:
    try:
        import ray.data  # noqa: F401
    except ImportError as exc:
        raise MissingDependencyError(
            f"the Ray engine needs Ray Data ({exc}): {_INSTALL}") from None


def _already_connected() -> bool:
    """Return whether this process is connected to Ray (False when Ray is not loaded)."""
    import sys

    ray = sys.modules.get("ray")
    return ray is not None and bool(ray.is_initialized())


def _scored(
    ds: Dataset, plan: ScorePlan, *, trace_format: str | None, options: LoadOptions | None
) -> Dataset:
    if trace_format is not None:
        from openeval.adapters.registry import get_adapter

        get_adapter(trace_format)  # an unknown format is one error here, not one per worker
    reading = partial(_blob_records, trace_format=trace_format, options=options)
    scored = ds.flat_map(partial(_score_row, plan=plan, threshold=None, reading=reading,
                                 version=__version__))
    scored.context.execution_options.preserve_order = True
    return scored


_MAX_FILE_BLOCKS = 1000
"""Most blocks the file list is cut into: one file per block (and task) below that."""


def _file_rows(files: Sequence[ScoreInput]) -> Dataset:
    """Return a Dataset of one row per file: its absolute path, its name as shown, and, for
    a folder that could not be listed, why (``problem``; empty for a file)."""
    import ray.data

    rows = [
        {"path": os.path.abspath(file), "file": file.as_posix(), "problem": ""}
        if isinstance(file, Path) else {"path": file.file, "file": file.file,
                                          "problem": file.message}
        for file in files
    ]
    ds = ray.data.from_items(rows, override_num_blocks=max(1, min(len(rows), _MAX_FILE_BLOCKS)))
    ds.context.print_on_execution_start = False
    ds.context.enable_progress_bars = False
    return ds


def _sample_threshold(ds: Dataset, sample: int, reading: Reading) -> int | None:
    """Return the cut of the bottom-``sample`` sample of every trace the rows of ``ds`` hold."""
    bottom = BottomK(sample)
    keyed = ds.map(partial(_sample_keys, reading=reading, version=__version__))
    with _ray_errors():
        for batch in keyed.iter_batches(batch_format="pyarrow", batch_size=None):
            for packed in _column(batch, "keys"):
                bottom.update(int.from_bytes(packed[i:i + _KEY_BYTES], "big")
                              for i in range(0, len(packed), _KEY_BYTES))
    return bottom.threshold()


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
        cramped = local_node_refusal()
        if cramped is not None:
            raise OpenEvalError(f"cannot start or find a Ray cluster: {cramped}")
        try:
            ray.init(include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
        except Exception as exc:  # no room for the object store, a stale RAY_ADDRESS ...
            message = (f"cannot start or find a Ray cluster: {_first_line(exc)}; name one with "
                       "--address")
            if not stopped_within(ray.shutdown, SHUTDOWN_TIMEOUT_S):
                # The half-started node holds this process: Ray's own exit hook would wait
                # on it again (673 s once, deaf to SIGTERM). The error is still said first.
                atexit.unregister(ray.shutdown)
                end_process_after(SHUTDOWN_TIMEOUT_S, STUCK_EXIT_CODE)
                message += (f" (the half-started Ray node did not stop within "
                            f"{SHUTDOWN_TIMEOUT_S:g} s: this process ends {SHUTDOWN_TIMEOUT_S:g} "
                            "s from now)")
            raise OpenEvalError(message) from None
    else:
        _connect(address)
    try:
        yield
    finally:
        ray.shutdown()


STORE_SHARE = 0.3
"""The share of the machine's memory a local Ray node maps as its object store (Ray's
default, ``RAY_DEFAULT_OBJECT_STORE_MEMORY_PROPORTION``; Ray may take less, never more)."""
LOCAL_NODE_ROOM = 2 * 2**30
"""Address space a local Ray node's process needs beyond its object store: at 2.2 GiB more it
started on a 24 GiB machine, at 0.6 GiB more it hung (proposals/0292-a-failed-ray-start-ends.md)."""


def local_node_refusal(
    limit: int | None = None, memory: int | None = None, share: float | None = None,
) -> str | None:
    """Return why a local Ray node cannot start under this process's address-space limit
    (``ulimit -v``, inherited by the node's processes), or None when it has room.

    Under too small a limit Ray does not fail cleanly: its node hangs in a call that holds the
    interpreter (no thread, no timer can end it), or a native thread aborts the process. So the
    limit is compared before Ray starts. ``limit``, ``memory`` (bytes) and ``share`` default to
    this process's soft limit, the machine's memory and Ray's store share.
    """
    if limit is None:
        try:
            import resource
        except ImportError:  # no address-space limits on this platform
            return None
        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        if limit == resource.RLIM_INFINITY:
            return None
    if memory is None:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    if share is None:
        try:
            share = float(os.environ.get("RAY_DEFAULT_OBJECT_STORE_MEMORY_PROPORTION",
                                         STORE_SHARE))
        except ValueError:
            share = STORE_SHARE
    store = int(memory * share)
    needed = store + LOCAL_NODE_ROOM
    if limit >= needed:
        return None
    return (f"this process may map {_gib(limit)} (ulimit -v), and a local Ray node needs "
            f"{_gib(needed)}: its object store ({_gib(store)}) and its threads; under less it "
            "hangs instead of failing. Raise the limit, or name a running cluster with "
            "--address")


def _gib(size: int) -> str:
    return f"{size / 2**30:.1f} GiB"


SHUTDOWN_TIMEOUT_S = 15.0
"""How long a Ray node that failed to start is given to stop, and then how long the process
is given to say so and end before it is ended (proposals/0292-a-failed-ray-start-ends.md)."""
STUCK_EXIT_CODE = 2
"""The exit code of a process ended that way: the command's own for an error (EXIT_USAGE)."""


def stopped_within(stop: Callable[[], object], seconds: float) -> bool:
    """Run ``stop`` in a daemon thread; True when it returned (or raised) within ``seconds``.

    A daemon thread, so that a ``stop`` that never returns does not hold the process at exit.
    """
    def run() -> None:
        with suppress(Exception):  # a failed stop is a finished one: nothing more to wait for
            stop()

    thread = threading.Thread(target=run, name="openeval-ray-stop", daemon=True)
    thread.start()
    thread.join(seconds)
    return not thread.is_alive()


def end_process_after(seconds: float, code: int) -> None:
    """End the process with ``code`` in ``seconds`` unless it has ended by then.

    For a process that threads or exit hooks it cannot stop would otherwise keep alive: the
    timer is a daemon thread, so a process that ends on its own ends as it would have.
    """
    timer = threading.Timer(seconds, os._exit, args=(code,))
    timer.daemon = True
    timer.start()


def _check_address(address: str) -> None:
    """Raise OpenEvalError unless a Ray head answers at ``address`` within the timeout.

    Runs before Ray is imported: Ray itself retries a head that does not answer for minutes,
    so the connection is tried here first, and the retry settings Ray reads when it loads are
    bounded by the same timeout (settings the operator made win).
    """
    target = _host_port(address)
    if target is not None:
        _check_reachable(address, *target)
    os.environ.setdefault("RAY_gcs_server_port_wait_time_s", str(int(CONNECT_TIMEOUT_S)))
    os.environ.setdefault("RAY_py_gcs_connect_timeout_s", str(int(CONNECT_TIMEOUT_S)))


def _connect(address: str) -> None:
    import ray

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


_HTTP2_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes(
    (0, 0, 0, 4, 0, 0, 0, 0, 0))  # the client preface, then an empty SETTINGS frame
_SETTINGS_FRAME = 4


def _check_reachable(address: str, host: str, port: int) -> None:
    """Raise OpenEvalError unless something at ``host:port`` accepts a connection and answers
    the HTTP/2 handshake every gRPC server (a Ray head, a Ray Client server) answers."""
    hint = "(is `ray start --head` running there, and is this its port?)"
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S) as conn:
            if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
                return  # a TLS head answers only a TLS handshake; Ray checks that itself
            conn.sendall(_HTTP2_HELLO)
            header = conn.recv(9)
    except TimeoutError:
        reason = f"no answer within {CONNECT_TIMEOUT_S:g} s"
    except OSError as exc:
        reason = exc.strerror or str(exc)
    else:
        if len(header) >= 4 and header[3] == _SETTINGS_FRAME:
            return
        reason = "something answers there, but not a Ray cluster (no gRPC handshake)"
    raise OpenEvalError(f"cannot reach the Ray cluster at {address}: {reason} {hint}")


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
