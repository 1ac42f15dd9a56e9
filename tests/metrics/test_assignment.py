"""The exact assignment used to pair expected and executed calls, against brute force."""

from __future__ import annotations

from itertools import permutations

from hypothesis import given, settings
from hypothesis import strategies as st
from run_profile import examples

from openeval.metrics._assignment import max_weight_assignment, max_weight_transport


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


@settings(max_examples=examples(300), deadline=None)
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


groups = st.integers(1, 3).flatmap(
    lambda rows: st.integers(1, 3).flatmap(
        lambda cols: st.tuples(
            st.lists(st.lists(st.integers(0, 4), min_size=cols, max_size=cols),
                     min_size=rows, max_size=rows),
            st.lists(st.integers(1, 3), min_size=rows, max_size=rows),
            st.lists(st.integers(1, 3), min_size=cols, max_size=cols),
        )
    )
)


@settings(max_examples=examples(300), deadline=None)
@given(groups)
def test_transport_equals_the_assignment_of_the_expanded_matrix(
    case: tuple[list[list[int]], list[int], list[int]],
) -> None:
    weights, row_sizes, col_sizes = case
    flows, _ = max_weight_transport(weights, row_sizes, col_sizes)
    for r, size in enumerate(row_sizes):
        assert sum(f for (row, _), f in flows.items() if row == r) <= size
    for c, size in enumerate(col_sizes):
        assert sum(f for (_, col), f in flows.items() if col == c) <= size
    rows = [r for r, size in enumerate(row_sizes) for _ in range(size)]
    cols = [c for c, size in enumerate(col_sizes) for _ in range(size)]
    expanded = [[weights[r][c] for c in cols] for r in rows]
    assert sum(weights[r][c] * f for (r, c), f in flows.items()) == _best_total(expanded)
