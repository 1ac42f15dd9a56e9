"""The exact assignment used to pair expected and executed calls, against brute force."""

from __future__ import annotations

from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st

from openeval.metrics._assignment import max_weight_assignment


def _best_total(weights: list[list[int]]) -> int:
    rows, cols = len(weights), len(weights[0]) if weights else 0
    if rows <= cols:
        return max(
            sum(weights[r][c] for r, c in enumerate(perm))
            for perm in permutations(range(cols), rows)
        )
    return max(
        sum(weights[r][c] for c, r in enumerate(perm)) for perm in permutations(range(rows), cols)
    )


matrices = st.integers(1, 6).flatmap(
    lambda rows: st.integers(1, 6).flatmap(
        lambda cols: st.lists(
            st.lists(st.integers(0, 5), min_size=cols, max_size=cols),
            min_size=rows, max_size=rows,
        )
    )
)


@settings(max_examples=300, deadline=None)
@given(matrices)
def test_assignment_is_optimal_and_one_to_one(weights: list[list[int]]) -> None:
    paired = max_weight_assignment(weights)
    assert len(paired) == len(weights)
    used = [c for c in paired if c is not None]
    assert len(used) == len(set(used)) == min(len(weights), len(weights[0]))
    total = sum(weights[r][c] for r, c in enumerate(paired) if c is not None)
    assert total == _best_total(weights)


def test_greedy_trap_is_avoided() -> None:
    # Greedy by row takes (0,0)=2 and leaves row 1 with 0; the optimum pairs crosswise.
    assert max_weight_assignment([[2, 1], [2, 0]]) == [1, 0]


def test_no_columns_leaves_every_row_unpaired() -> None:
    assert max_weight_assignment([[], []]) == [None, None]
    assert max_weight_assignment([]) == []


def test_forty_by_forty_is_exact_on_a_known_optimum() -> None:
    # Diagonal worth 3, everything else 1: the only optimum is the identity, total 120.
    weights = [[3 if r == c else 1 for c in range(40)] for r in range(40)]
    assert max_weight_assignment(weights) == list(range(40))
