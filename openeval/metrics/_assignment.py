"""Exact maximum-weight assignment, in pure Python.

Argument correctness pairs expected calls with executed calls of the same tool so that the
pairs agree on as many argument values as possible. Trying every pairing grows factorially; a
greedy pairing can under-score a correct agent. :func:`max_weight_assignment` is the Hungarian
method, O(n² m) over single rows and columns; :func:`max_weight_transport` solves the same
problem with identical rows and identical columns collapsed into groups, which keeps 200
identical expected calls against a million executed ones small (a handful of groups).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence


def max_weight_assignment(weights: Sequence[Sequence[int]]) -> list[int | None]:
    """Return, for each row, the column it is paired with (None when it gets none).

    ``weights[r][c]`` is the non-negative gain of pairing row ``r`` with column ``c``; no row or
    column is used twice, and the total gain is the largest possible. With fewer columns than
    rows some rows stay unpaired. Ties are broken the same way on every run.
    """
    rows = len(weights)
    cols = len(weights[0]) if rows else 0
    if rows == 0 or cols == 0:
        return [None] * rows
    if rows == 1:
        first = weights[0]
        return [max(range(cols), key=first.__getitem__)]
    if cols == 1:
        best = max(range(rows), key=lambda r: weights[r][0])
        return [0 if r == best else None for r in range(rows)]
    # Shortcut: when every row's best column is different, that pairing is optimal as is.
    best_cols = [max(range(cols), key=row.__getitem__) for row in weights]
    if len(set(best_cols)) == rows:
        return list(best_cols)
    if rows <= cols:
        return list(_hungarian([[-w for w in row] for row in weights]))
    # The method wants no more rows than columns: solve the transpose and invert the answer.
    by_col = _hungarian([[-weights[r][c] for r in range(rows)] for c in range(cols)])
    paired: list[int | None] = [None] * rows
    for col, row in enumerate(by_col):
        paired[row] = col
    return paired


def _hungarian(cost: list[list[int]]) -> list[int]:
    """Return the column of each row in a minimum-cost assignment; needs rows <= columns.

    Potentials ``u``/``v`` keep reduced costs non-negative; each row is added by a shortest
    augmenting path (1-based arrays, index 0 is the virtual start).
    """
    n, m = len(cost), len(cost[0])
    inf = float("inf")
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    owner = [0] * (m + 1)  # owner[j]: row (1-based) holding column j, 0 when free
    way = [0] * (m + 1)
    for i in range(1, n + 1):
        owner[0] = i
        j0 = 0
        minv = [inf] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[j0] = True
            i0 = owner[j0]
            row = cost[i0 - 1]
            ui0 = u[i0]
            delta = inf
            j1 = 0
            for j in range(1, m + 1):
                if not used[j]:
                    reduced = row[j - 1] - ui0 - v[j]
                    if reduced < minv[j]:
                        minv[j] = reduced
                        way[j] = j0
                    if minv[j] < delta:
                        delta = minv[j]
                        j1 = j
            for j in range(m + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    result = [0] * n
    for j in range(1, m + 1):
        if owner[j]:
            result[owner[j] - 1] = j - 1
    return result


def max_weight_transport(
    weights: Sequence[Sequence[int]], row_sizes: Sequence[int], col_sizes: Sequence[int]
) -> tuple[dict[tuple[int, int], int], int]:
    """Return ``(flows, work)``: an exact maximum-weight pairing between groups of rows and
    groups of columns, as the number of pairs each ``(row group, column group)`` carries.

    Row group ``r`` stands for ``row_sizes[r]`` identical rows, column group ``c`` for
    ``col_sizes[c]`` identical columns; a row and a column pair at most once each, and
    ``weights[r][c] >= 0`` is the gain of one such pair. This is the assignment problem with
    repeats collapsed, solved as a min-cost flow by successive shortest paths, so its size
    depends on the number of distinct rows and columns, not on how often each repeats.

    Each row group only needs its best columns up to a total capacity of ``sum(row_sizes)``
    (any other column it uses can be swapped for a free one among those, losing nothing), so
    the network has at most ``len(row_sizes) * sum(row_sizes)`` middle edges. ``work`` counts
    edge relaxations, for tests that bound the effort.
    """
    rows, cols = len(row_sizes), len(col_sizes)
    demand = sum(row_sizes)
    source, sink = rows + cols, rows + cols + 1
    head: list[list[int]] = [[] for _ in range(rows + cols + 2)]
    to: list[int] = []
    cap: list[int] = []
    cost: list[int] = []

    def add(u: int, v: int, capacity: int, gain: int) -> None:
        for a, b, c, g in ((u, v, capacity, -gain), (v, u, 0, gain)):
            head[a].append(len(to))
            to.append(b)
            cap.append(c)
            cost.append(g)

    middle: list[tuple[int, int, int]] = []
    work = 0
    for r in range(rows):
        add(source, r, row_sizes[r], 0)
        ranked = sorted((c for c in range(cols) if weights[r][c] > 0),
                        key=lambda c: (-weights[r][c], c))
        work += cols
        room = 0
        for c in ranked:
            if room >= demand:
                break
            middle.append((r, c, len(to)))
            add(r, rows + c, demand, weights[r][c])
            room += col_sizes[c]
    for c in range(cols):
        add(rows + c, sink, col_sizes[c], 0)

    nodes = rows + cols + 2
    while True:
        # Bellman-Ford with a FIFO queue: costs may be negative (never a negative cycle: the
        # residual network of a shortest-path augmentation has none), the network is small.
        best = [0] * nodes
        reached = [False] * nodes
        via = [-1] * nodes
        reached[source] = True
        queue = deque([source])
        queued = [False] * nodes
        queued[source] = True
        while queue:
            u = queue.popleft()
            queued[u] = False
            for e in head[u]:
                work += 1
                v = to[e]
                if cap[e] > 0 and (not reached[v] or best[u] + cost[e] < best[v]):
                    best[v] = best[u] + cost[e]
                    reached[v] = True
                    via[v] = e
                    if not queued[v]:
                        queued[v] = True
                        queue.append(v)
        if not reached[sink] or best[sink] >= 0:
            break  # no pairing left that gains anything
        amount = demand
        v = sink
        while v != source:
            e = via[v]
            amount = min(amount, cap[e])
            v = to[e ^ 1]
        v = sink
        while v != source:
            e = via[v]
            cap[e] -= amount
            cap[e ^ 1] += amount
            v = to[e ^ 1]
    flows = {(r, c): cap[e ^ 1] for r, c, e in middle if cap[e ^ 1] > 0}
    return flows, work
