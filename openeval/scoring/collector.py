"""The cyclic garbage collector during a run: the import-time heap frozen, collections rare.

A run allocates many small containers (steps, dicts, results) and keeps most of them until
its result is written; the collector's youngest generation then fills every 700 allocations
and each collection walks objects that are all still alive. Scoring makes no reference
cycles (the last one, a kept traceback in format detection, is gone), so collections find
next to nothing: on the 2,000-case benchmark suite 264 collections found 284 objects in all,
about a twentieth of the run's CPU time. :func:`relaxed_collector` freezes what the imports
allocated (never collected, never walked again) and raises the thresholds for the run;
garbage cycles, should a check make some, are still collected, after 100,000 allocations
instead of 700, so memory stays bounded. Measured in proposals/0182-the-collector-during-a-run.md.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

RUN_THRESHOLDS = (100_000, 50, 1_000)
"""The collector's thresholds during a run (the defaults are 700, 10, 10)."""


@contextmanager
def relaxed_collector() -> Iterator[None]:
    """Freeze the heap allocated so far and collect rarely until the block ends; the
    thresholds and the frozen objects are given back on the way out, however it ends."""
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(*RUN_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()
