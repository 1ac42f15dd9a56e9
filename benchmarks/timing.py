"""The one timing loop the in-process benchmarks share: CPU time, least of several runs (on a
shared machine the least is the run the neighbours disturbed least)."""

from __future__ import annotations

import time
from collections.abc import Callable


def best_cpu(repeat: int, run: Callable[[], object]) -> float:
    """Return the least CPU seconds of ``repeat`` calls of ``run``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return best
