"""Maximum bipartite matching between groups of identical calls (Dinic's max flow).

Identical calls are collapsed into one node with a capacity (how many there are), so 10,000
copies of one call cost one node, not 10,000. The network is source -> left group (capacity:
its size) -> right group (unbounded, where the two are compatible) -> sink (capacity: its
size); its maximum flow is the largest number of one-to-one pairs. Dinic's method finds it in
O(sqrt(V)) phases of O(E) work each when every group has size one (Hopcroft-Karp's bound), and
in O(V^2 E) in general; groups only shrink V and E. The loops are iterative, so no input can
exhaust Python's stack.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence


def max_pairs(
    left_sizes: Sequence[int], right_sizes: Sequence[int], edges: Sequence[Sequence[int]]
) -> tuple[dict[tuple[int, int], int], int]:
    """Return ``(flows, work)``: how many pairs each ``(left, right)`` edge carries, maximal.

    ``edges[l]`` lists the right groups compatible with left group ``l``, in the order ties
    should prefer. ``work`` counts edge inspections, for tests that bound the effort.
    """
    left = len(left_sizes)
    source, sink = left + len(right_sizes), left + len(right_sizes) + 1
    nodes = sink + 1
    head: list[list[int]] = [[] for _ in range(nodes)]
    to: list[int] = []
    cap: list[int] = []

    def add(u: int, v: int, c: int) -> int:
        head[u].append(len(to))
        to.append(v)
        cap.append(c)
        head[v].append(len(to))
        to.append(u)
        cap.append(0)
        return len(to) - 2

    unbounded = sum(left_sizes) + 1
    for node, size in enumerate(left_sizes):
        add(source, node, size)
    middle: list[tuple[int, int, int]] = []
    for node, targets in enumerate(edges):
        for r in targets:
            middle.append((node, r, add(node, left + r, unbounded)))
    for r, size in enumerate(right_sizes):
        add(left + r, sink, size)

    work = len(to)
    while True:
        level = [-1] * nodes
        level[source] = 0
        queue = deque([source])
        while queue:
            u = queue.popleft()
            for e in head[u]:
                work += 1
                if cap[e] > 0 and level[to[e]] < 0:
                    level[to[e]] = level[u] + 1
                    queue.append(to[e])
        if level[sink] < 0:
            break
        cursor = [0] * nodes
        while True:
            pushed, steps = _augment(source, sink, head, to, cap, level, cursor)
            work += steps
            if not pushed:
                break
    flows = {(node, r): cap[e ^ 1] for node, r, e in middle if cap[e ^ 1] > 0}
    return flows, work


def _augment(
    source: int, sink: int, head: list[list[int]], to: list[int], cap: list[int],
    level: list[int], cursor: list[int],
) -> tuple[int, int]:
    """Push flow along one path of the level graph; return ``(amount, edges inspected)``."""
    path: list[int] = []
    u = source
    steps = 0
    while True:
        if u == sink:
            amount = min(cap[e] for e in path)
            for e in path:
                cap[e] -= amount
                cap[e ^ 1] += amount
            return amount, steps
        edges = head[u]
        while cursor[u] < len(edges):
            e = edges[cursor[u]]
            steps += 1
            if cap[e] > 0 and level[to[e]] == level[u] + 1:
                break
            cursor[u] += 1
        else:
            if u == source:
                return 0, steps
            level[u] = -1  # a dead end for the rest of this phase
            e = path.pop()
            u = to[e ^ 1]
            cursor[u] += 1
            continue
        path.append(e)
        u = to[e]
