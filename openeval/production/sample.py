"""The deterministic sample of ``--sample N``: the N traces with the smallest hash of their id.

A bottom-k sample of a stable hash (BLAKE2b, 64 bits, of the trace id's UTF-8) needs no random
seed and no coordination: any engine, on any machine, in any order, picks the same traces.
It takes two passes: the first finds the k-th smallest key (:class:`BottomK`, memory O(k)),
the second scores the traces whose key is at most that one. Traces sharing an id share a key,
so they are in or out together (a sample may then hold a few more than N).
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Iterable


def sample_key(trace_id: str) -> int:
    """Return the 64-bit sampling key of ``trace_id`` (the same in every process and version)."""
    digest = hashlib.blake2b(trace_id.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "big")


class BottomK:
    """The ``k`` smallest sampling keys seen so far; :meth:`threshold` is the cut."""

    def __init__(self, k: int) -> None:
        if k < 1:
            raise ValueError("a sample holds at least one trace")
        self.k = k
        self._heap: list[int] = []  # negated: the largest kept key is on top
        self._kept: set[int] = set()

    def add(self, key: int) -> None:
        """Count one trace's key (a key seen before changes nothing)."""
        if key in self._kept:
            return
        if len(self._heap) < self.k:
            heapq.heappush(self._heap, -key)
            self._kept.add(key)
        elif key < -self._heap[0]:
            dropped = -heapq.heappushpop(self._heap, -key)
            self._kept.discard(dropped)
            self._kept.add(key)

    def update(self, keys: Iterable[int]) -> None:
        """Count many keys."""
        for key in keys:
            self.add(key)

    def merge(self, other: BottomK) -> None:
        """Count every key ``other`` kept (the bottom-k of a union is that of the parts')."""
        self.update(-key for key in other._heap)

    def threshold(self) -> int | None:
        """Return the largest key in the sample; None when fewer than ``k`` ids were seen
        (every trace is sampled)."""
        if len(self._heap) < self.k:
            return None
        return -self._heap[0]


def sampled(trace_id: str, threshold: int | None) -> bool:
    """Return whether the trace ``trace_id`` is in the sample cut at ``threshold``."""
    return threshold is None or sample_key(trace_id) <= threshold
