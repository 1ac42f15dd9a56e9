"""Engines on this machine: in this process, or in a pool of worker processes.

The pool receives the run plan once per worker (through the pool's initializer) and case specs
one chunk at a time; workers rebuild registries and plans themselves, so the pool works under
every start method (``spawn`` included), and ``map`` keeps suite order.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from openeval.engines.base import run_spec
from openeval.results.records import CaseResult
from openeval.suite.discover import CaseSpec
from openeval.suite.evaluate import RunPlan

PARALLEL_FROM = 500
"""Suites with at least this many cases are scored in worker processes by default."""


@dataclass(frozen=True)
class SerialEngine:
    """Scores every case in this process, one after the other."""

    name: str = "serial"

    def run(self, plan: RunPlan, cases: Sequence[CaseSpec]) -> Iterator[CaseResult]:
        """Yield one result per case, in order."""
        for spec in cases:
            yield run_spec(spec, plan)


_worker_plan: RunPlan | None = None
"""The plan of this worker process, set once by the pool's initializer."""


def _start_worker(plan: RunPlan) -> None:
    global _worker_plan
    _worker_plan = plan


def _run_in_worker(spec: CaseSpec) -> CaseResult:
    if _worker_plan is None:  # only ProcessPoolEngine starts workers, always with a plan
        raise RuntimeError("worker started without a run plan")
    return run_spec(spec, _worker_plan)


@dataclass(frozen=True)
class ProcessPoolEngine:
    """Scores cases in ``workers`` processes started with ``start_method``."""

    workers: int
    start_method: str | None = None
    """``fork``, ``spawn`` or ``forkserver``; None: fork where it exists (fastest), else spawn."""
    name: str = "processes"

    def run(self, plan: RunPlan, cases: Sequence[CaseSpec]) -> Iterator[CaseResult]:
        """Yield one result per case, in order."""
        from concurrent.futures import ProcessPoolExecutor

        method = self.start_method or (
            "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        )
        context = multiprocessing.get_context(method)
        chunk = max(1, min(256, len(cases) // (self.workers * 8)))
        with ProcessPoolExecutor(
            self.workers, mp_context=context, initializer=_start_worker, initargs=(plan,)
        ) as pool:
            yield from pool.map(_run_in_worker, cases, chunksize=chunk)


def cpu_count() -> int:
    """Return the CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def default_engine(cases: int, workers: int | None = None) -> SerialEngine | ProcessPoolEngine:
    """Return the engine for a suite of ``cases``: a pool of up to 8 workers from
    PARALLEL_FROM cases (or ``workers`` when given), else this process."""
    count = workers if workers is not None else (
        max(1, min(cpu_count(), 8)) if cases >= PARALLEL_FROM else 1
    )
    return ProcessPoolEngine(count) if count > 1 else SerialEngine()
