"""relaxed_collector: the heap frozen and collections rare inside, everything given back."""

from __future__ import annotations

import gc

import pytest

from openeval.scoring.collector import RUN_THRESHOLDS, relaxed_collector


def test_the_collector_is_relaxed_inside_and_restored_after() -> None:
    before = gc.get_threshold()
    with relaxed_collector():
        assert gc.get_threshold() == RUN_THRESHOLDS
        assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_restored_when_the_run_raises() -> None:
    before = gc.get_threshold()
    with pytest.raises(KeyboardInterrupt), relaxed_collector():
        raise KeyboardInterrupt
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_cycles_made_inside_are_still_collected() -> None:
    class Node:
        pass

    collected: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "stop":
            collected.append(info["collected"])

    gc.callbacks.append(count)
    try:
        with relaxed_collector():
            for _ in range(RUN_THRESHOLDS[0] * 2):  # enough allocations for a collection
                node = Node()
                node.self = node  # type: ignore[attr-defined]
    finally:
        gc.callbacks.remove(count)
    assert sum(collected) > 0
