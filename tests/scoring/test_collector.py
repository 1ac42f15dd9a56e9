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


def test_what_survives_a_young_collection_is_frozen_until_the_end() -> None:
    kept: list[list[int]] = []
    with relaxed_collector():
        frozen = gc.get_freeze_count()
        kept.extend([n] for n in range(1_000))  # tracked containers, as a run's results
        gc.collect(0)
        assert gc.get_freeze_count() >= frozen + len(kept)
        assert not any(kept[0] is o for o in gc.get_objects(0))  # never walked again
    assert gc.get_freeze_count() == 0
    assert any(o is kept[0] for o in gc.get_objects(2))  # given back to the collector


def test_the_freezing_stops_with_the_block() -> None:
    callbacks = list(gc.callbacks)
    with relaxed_collector():
        assert len(gc.callbacks) == len(callbacks) + 1
    assert gc.callbacks == callbacks
    gc.collect(0)
    assert gc.get_freeze_count() == 0
