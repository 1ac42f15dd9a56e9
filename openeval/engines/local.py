"""Old import path of :mod:`openeval.suite.engines.local`."""

from __future__ import annotations

from openeval.suite.engines.local import (
    PARALLEL_FROM,
    STOP_GRACE_SECONDS,
    ProcessPoolEngine,
    SerialEngine,
    cpu_count,
    default_engine,
    ended_how,
)

__all__ = [
    "PARALLEL_FROM",
    "STOP_GRACE_SECONDS",
    "ProcessPoolEngine",
    "SerialEngine",
    "cpu_count",
    "default_engine",
    "ended_how",
]
