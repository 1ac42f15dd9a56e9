"""Exact maximum-weight assignment (the Hungarian method), in pure Python.

Argument correctness pairs expected calls with executed calls of the same tool so that the
pairs agree on as many argument values as possible. Trying every pairing grows factorially;
this is O(n² m) and exact, which matters: a greedy pairing can under-score a correct agent.
"""

from __future__ import annotations

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
