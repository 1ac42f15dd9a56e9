"""Maximum pairing between groups: Dinic's flow and Kuhn's augmenting paths vs brute force."""

from __future__ import annotations

from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st
from run_profile import examples

from openeval.matching.flow import augment, max_pairs


@st.composite
def graphs(draw: st.DrawFn) -> tuple[list[int], list[int], list[list[int]]]:
    left = draw(st.lists(st.integers(1, 2), min_size=0, max_size=3))
    right = draw(st.lists(st.integers(1, 2), min_size=1, max_size=3))
    edges = [sorted(draw(st.sets(st.integers(0, len(right) - 1), max_size=len(right))))
             for _ in left]
    return left, right, edges


def _brute(left: list[int], right: list[int], edges: list[list[int]]) -> int:
    items = [node for node, size in enumerate(left) for _ in range(size)]
    slots = [node for node, size in enumerate(right) for _ in range(size)]
    best = 0
    for order in permutations(range(len(slots)), min(len(items), len(slots))):
        best = max(best, sum(1 for i, s in zip(items, order, strict=False)
                             if slots[s] in edges[i]))
    if len(items) > len(slots):
        for order in permutations(range(len(items)), len(slots)):
            best = max(best, sum(1 for s, i in enumerate(order) if slots[s] in edges[items[i]]))
    return best


@settings(max_examples=examples(300), deadline=None)
@given(graphs())
def test_flow_and_paths_find_the_maximum(
    graph: tuple[list[int], list[int], list[list[int]]],
) -> None:
    left, right, edges = graph
    flows, _ = max_pairs(left, right, edges)
    for (node, target), amount in flows.items():
        assert target in edges[node] and amount > 0
    assert all(sum(a for (n, _), a in flows.items() if n == node) <= size
               for node, size in enumerate(left))
    assert all(sum(a for (_, t), a in flows.items() if t == target) <= size
               for target, size in enumerate(right))
    best = _brute(left, right, edges)
    assert sum(flows.values()) == best
    items = [node for node, size in enumerate(left) for _ in range(size)]
    held, _ = augment([None] * len(items), [edges[node] for node in items], right)
    assert sum(group is not None for group in held) == best
    assert all(held.count(group) <= size for group, size in enumerate(right))
