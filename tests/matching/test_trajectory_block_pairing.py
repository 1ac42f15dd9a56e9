"""A turn's calls are paired as the first fit over every edge pairs them, without every test.

``_Matching.pair_block`` tests, for each expected call in turn, only the calls of the block that
are still free, and builds the whole edge list only when that first fit leaves both sides with
something unpaired (proposals/0276-strict-first-fit.md). Here it is held against the pairing
the full edge list gives, on a table of blocks and on random ones.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openeval.matching.flow import SMALL, augment, max_pairs
from openeval.matching.trajectory import TrajectorySpec, _Matching, compile_calls
from openeval.models import TraceStep


def _matching(executed: list[tuple[str, int]], expected: list[tuple[str, int]]) -> _Matching:
    steps = [TraceStep(step_id=n + 1, type="tool_call", tool_name=tool, tool_args={"x": x},
                       turn=0) for n, (tool, x) in enumerate(executed)]
    spec = TrajectorySpec(mode="strict")
    calls = compile_calls([{"tool": tool, "args": {"x": x}} for tool, x in expected], spec)
    return _Matching(steps, calls, spec)


def _full_edges_pairing(
    matching: _Matching, segment: list[int], block: list[int]
) -> dict[int, int]:
    """The pairing as the first fit over every (expected, call) edge made it."""
    edges = [[b for b, p in enumerate(block)
              if matching.compatible(matching.kind_of[i], matching.group_of[p])]
             for i in segment]
    taken: set[int] = set()
    greedy: dict[int, int] = {}
    for i, options in zip(segment, edges, strict=True):
        for b in options:
            if b not in taken:
                taken.add(b)
                greedy[i] = block[b]
                break
    if len(greedy) == min(len(segment), len(block)):
        return greedy
    slot = {p: b for b, p in enumerate(block)}
    start = [slot[greedy[i]] if i in greedy else None for i in segment]
    if len(block) <= SMALL:
        held, _ = augment(start, edges, [1] * len(block))
        return {i: block[b] for i, b in zip(segment, held, strict=True) if b is not None}
    flows, _ = max_pairs([1] * len(segment), [1] * len(block), edges)
    return {segment[left]: block[right] for (left, right) in flows}


def _check(executed: list[tuple[str, int]], expected: list[tuple[str, int]]) -> None:
    segment, block = list(range(len(expected))), list(range(len(executed)))
    found = _matching(executed, expected).pair_block(segment, block)
    assert found == _full_edges_pairing(_matching(executed, expected), segment, block)


BLOCKS: dict[str, tuple[list[Any], list[Any]]] = {
    "same order": ([("a", 1), ("b", 2), ("c", 3)], [("a", 1), ("b", 2), ("c", 3)]),
    "reversed": ([("a", 1), ("b", 2), ("c", 3)], [("c", 3), ("b", 2), ("a", 1)]),
    "first fit takes the call a later one needs": (
        [("a", 1), ("a", 2)], [("a", 1), ("a", 1)]),
    "one differs": ([("a", 1), ("a", 2)], [("a", 2), ("a", 9)]),
    "identical calls": ([("a", 1)] * 3, [("a", 1)] * 3),
    "more expected than made": ([("a", 1)], [("a", 1), ("a", 1), ("b", 1)]),
    "more made than expected": ([("b", 1), ("a", 1), ("a", 1)], [("a", 1)]),
    "nothing pairs": ([("a", 1), ("b", 1)], [("c", 1), ("d", 1)]),
}


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_a_block_pairs_as_with_every_edge(name: str) -> None:
    executed, expected = BLOCKS[name]
    _check(executed, expected)


_CALL = st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 2))


@settings(max_examples=300, deadline=None)
@given(st.lists(_CALL, min_size=1, max_size=6), st.lists(_CALL, min_size=1, max_size=6))
def test_any_block_pairs_as_with_every_edge(
    executed: list[tuple[str, int]], expected: list[tuple[str, int]]
) -> None:
    _check(executed, expected)
