"""Engines on this machine: in this process, or in a pool of worker processes.

Each worker receives the run plan once, when it starts, and case specs one chunk at a time;
workers rebuild registries and plans themselves, so the pool works under every start method
(``spawn`` included), and results come back in suite order.

The pool is ours rather than :mod:`concurrent.futures`' so that a run can end well when a
process dies (proposals/0060, "When a process dies"): a worker killed mid-run (the OOM killer,
``kill -9``) is one :class:`~openeval.errors.RunAborted` naming its pid, the signal and the case
it was scoring, where ``ProcessPoolExecutor`` raised ``BrokenProcessPool`` without either; when
the run is stopped (Ctrl-C, SIGTERM, an error in the caller) or a worker dies, every worker is
stopped before the error leaves :meth:`ProcessPoolEngine.run`, where the executor's shutdown
waited for all the queued work; and on Linux a worker dies with the process that started it, so
not even ``kill -9`` of the run leaves workers behind.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import suppress
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.context import BaseContext
from typing import Any

from openeval.errors import RunAborted
from openeval.printable import printable
from openeval.results.records import CaseResult
from openeval.suite.discover import CaseSpec
from openeval.suite.engines import wire
from openeval.suite.engines.base import run_spec
from openeval.suite.evaluate import RunPlan

PARALLEL_FROM = 500
"""Suites with fewer cases are scored in this process by default, on any machine."""

POOL_FROM_CPUS = 4
"""Machines with fewer usable CPUs score every suite in this process by default."""

MAX_WORKERS = 8
"""The most worker processes a run starts by default."""

STOP_GRACE_SECONDS = 2.0
"""How long a stopped worker may take to exit before it is killed."""


@dataclass(frozen=True)
class SerialEngine:
    """Scores every case in this process, one after the other."""

    name: str = "serial"

    def run(self, plan: RunPlan, cases: Sequence[CaseSpec]) -> Iterator[CaseResult]:
        """Yield one result per case, in order."""
        for spec in cases:
            yield run_spec(spec, plan)


@dataclass(frozen=True)
class ProcessPoolEngine:
    """Scores cases in ``workers`` processes started with ``start_method``.

    Raises RunAborted when a worker dies before its cases are scored (after stopping the
    others); stopping the iteration early, or an exception in the caller (KeyboardInterrupt
    included), stops every worker too.
    """

    workers: int
    start_method: str | None = None
    """``fork``, ``spawn`` or ``forkserver``; None: fork where it exists (fastest), else spawn."""
    name: str = "processes"

    def run(self, plan: RunPlan, cases: Sequence[CaseSpec]) -> Iterator[CaseResult]:
        """Yield one result per case, in order."""
        if not cases:
            return
        method = self.start_method or (
            "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        )
        size = max(1, min(256, len(cases) // (self.workers * 8)))
        chunks = [cases[i:i + size] for i in range(0, len(cases), size)]
        pool = _Pool(multiprocessing.get_context(method), plan, min(self.workers, len(chunks)))
        yield from pool.results(chunks)


# ---- the pool: one pipe per worker, results put back in order ----

_IDLE = -1
"""What a worker's ``current`` holds between chunks (else the suite position of its case)."""


@dataclass
class _Worker:
    process: Any  # a context's Process: its class depends on the start method
    connection: Connection
    current: Any  # a shared ctypes integer: the case being scored, or _IDLE
    chunk: int | None = None
    """The chunk sent and not yet answered."""


@dataclass
class _Pool:
    context: BaseContext
    plan: RunPlan
    size: int
    workers: list[_Worker] = field(default_factory=list)

    def results(self, chunks: list[Sequence[CaseSpec]]) -> Iterator[CaseResult]:
        """Yield the results of ``chunks`` in order, stopping every worker at the end."""
        starts = [0]
        for chunk in chunks[:-1]:
            starts.append(starts[-1] + len(chunk))
        flat = [spec for chunk in chunks for spec in chunk]
        finished = False
        try:
            self.workers = [self._start() for _ in range(self.size)]
            sent = 0
            answered: dict[int, list[CaseResult]] = {}
            next_chunk = 0
            # Chunks run at most this far ahead of the first unanswered one, so results that
            # wait for a slow chunk stay few.
            ahead = 4 * self.size
            while next_chunk < len(chunks):
                # Work is handed out before each result goes to the caller, so workers keep
                # scoring while the caller (a progress bar ...) takes its time.
                for worker in self.workers:
                    if worker.chunk is None and sent < min(len(chunks), next_chunk + ahead):
                        worker.chunk = sent
                        worker.connection.send((sent, starts[sent], chunks[sent]))
                        sent += 1
                if next_chunk not in answered:
                    self._collect(answered, flat)
                    continue
                yield from answered.pop(next_chunk)
                next_chunk += 1
            finished = True
        finally:
            self._stop(gently=finished)

    def _start(self) -> _Worker:
        ours, theirs = self.context.Pipe()
        current = self.context.Value("q", _IDLE, lock=False)
        process = self.context.Process(  # type: ignore[attr-defined]
            target=_serve, args=(self.plan, theirs, current, os.getpid()), daemon=True,
            name="openeval-worker",
        )
        process.start()
        theirs.close()  # the worker holds its end; ours would keep the pipe open after it died
        return _Worker(process, ours, current)

    def _collect(self, answered: dict[int, list[CaseResult]], flat: list[CaseSpec]) -> None:
        """Wait for answers; file them in ``answered``; raise RunAborted if a worker died."""
        busy = {w.connection: w for w in self.workers if w.chunk is not None}
        ended = {w.process.sentinel: w for w in self.workers}
        ready = wait([*busy, *ended])
        # Answers first: a worker that answered and then died still gave its results.
        for connection in (r for r in ready if isinstance(r, Connection)):
            worker = busy[connection]
            try:
                kind, index, payload = wire.loads(connection.recv_bytes())
            except (EOFError, OSError):
                raise self._died(worker, flat) from None
            if kind == "failed":
                raise RunAborted(
                    f"the run did not finish: a worker process failed: {printable(payload)} "
                    "(a bug in OpenEval; please report it)"
                )
            answered[index] = payload
            worker.chunk = None
        for sentinel in (r for r in ready if isinstance(r, int)):
            raise self._died(ended[sentinel], flat)

    def _died(self, worker: _Worker, flat: list[CaseSpec]) -> RunAborted:
        worker.process.join(STOP_GRACE_SECONDS)
        position = worker.current.value
        doing = (f" while scoring {printable(flat[position].case_id)}"
                 if 0 <= position < len(flat) else "")
        return RunAborted(
            f"the run did not finish: worker process {worker.process.pid} "
            f"{ended_how(worker.process.exitcode)}{doing}"
        )

    def _stop(self, *, gently: bool) -> None:
        """End every worker: asked to when the run finished, else terminated (then killed)."""
        for worker in self.workers:
            if gently:
                with suppress(OSError):  # it died meanwhile: join below sees it
                    worker.connection.send(None)
            elif worker.process.is_alive():
                worker.process.terminate()
        for worker in self.workers:
            worker.process.join(STOP_GRACE_SECONDS)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.connection.close()
        self.workers = []


def ended_how(exitcode: int | None) -> str:
    """Return how a process ended, from its ``exitcode``: ``was killed by SIGKILL`` ..."""
    if exitcode is None:
        return "stopped answering"
    if exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"was killed by {name}"
    return f"exited with status {exitcode}"


def _serve(plan: RunPlan, connection: Connection, current: Any, parent: int) -> None:
    """A worker's life: score each chunk it is sent, until told to stop or its parent goes."""
    if not _leave_signals_to_the_parent(parent):
        return
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        index, start, specs = message
        try:
            results = []
            for offset, spec in enumerate(specs):
                current.value = start + offset
                results.append(run_spec(spec, plan))
            current.value = _IDLE
            connection.send_bytes(wire.dumps(("done", index, results)))
        except Exception as exc:  # run_spec isolates each case: this is a bug, say it once
            connection.send_bytes(wire.dumps(("failed", None, f"{type(exc).__name__}: {exc}")))


def _leave_signals_to_the_parent(parent: int) -> bool:
    """Set up this worker's signals; return False when its parent is already gone."""
    # Ctrl-C reaches every process of the terminal's group: the parent stops the workers, so a
    # worker ignores it (else each would print a KeyboardInterrupt traceback). SIGTERM and
    # SIGHUP end a worker at once, whatever handler it inherited through fork.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        libc = ctypes.CDLL(None, use_errno=True)
        # Die with the parent, even when it is killed with SIGKILL and cannot stop us.
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl: nobody will stop us
            return False
    return True


def cpu_count() -> int:
    """Return the CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def default_engine(cases: int, workers: int | None = None) -> SerialEngine | ProcessPoolEngine:
    """Return the engine for a suite of ``cases``: ``workers`` processes when given, else a
    pool only where it pays (:func:`pool_size`), else this process."""
    count = workers if workers is not None else pool_size(cases, cpu_count())
    return ProcessPoolEngine(count) if count > 1 else SerialEngine()


def pool_size(cases: int, cpus: int) -> int:
    """Return how many worker processes score ``cases`` on ``cpus`` CPUs by default; 1 means
    this process alone.

    A worker's results cross a pipe (pickled there, unpickled here: about a tenth of scoring a
    case) and every case still passes through this process, so on fewer than POOL_FROM_CPUS
    CPUs the pool spends more than it saves: on 2 CPUs it took 1.1-1.6x the CPU time of one
    process (proposals/0180). Small suites are over before a pool is up.
    """
    if cpus < POOL_FROM_CPUS or cases < PARALLEL_FROM:
        return 1
    return min(cpus, MAX_WORKERS, cases // (PARALLEL_FROM // 2))
