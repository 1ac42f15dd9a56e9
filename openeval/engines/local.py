"""Old import path of :mod:`openeval.suite.engines.local`."""

from __future__ import annotations

from openeval.suite.engines.local import (
    MAX_WORKERS,
    PARALLEL_FROM,
    POOL_FROM_CPUS,
    STOP_GRACE_SECONDS,
    ProcessPoolEngine,
    SerialEngine,
    cpu_count,
    default_engine,
    ended_how,
    pool_size,
)

__all__ = [
    "MAX_WORKERS",
    "PARALLEL_FROM",
    "POOL_FROM_CPUS",
    "STOP_GRACE_SECONDS",
    "ProcessPoolEngine",
    "SerialEngine",
    "cpu_count",
    "default_engine",
    "ended_how",
    "pool_size",
]
