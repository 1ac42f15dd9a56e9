"""argument_correctness's fast paths give what its general path gives, byte for byte
(tests/data/metrics/fast_path/argument_paths.json, a table of values JSON cannot hold, and a
Hypothesis property; proposals/0270-argument-fast-paths.md).

The general path is :func:`~openeval.metrics.arguments.measure_arguments` with
``fast=False``: every tool's calls paired by the assignment, every pair compared by
:func:`~openeval.values.json_compare` and explained. The fast paths (calls made as written
compared in C, plain JSON compared by ``==``, the diagonal pairing, matched pairs left
unexplained) must agree on the score, the details and the data.
"""

from __future__ import annotations

import enum
import json
import uuid
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from run_profile import examples

from openeval.errors import OpenEvalError
from openeval.metrics.arguments import (
    ExpectedArgs,
    _ExpectedArgs,
    _strict_text,
    measure_arguments,
    pair_calls,
)
from openeval.metrics.compiled import CompiledCase
from openeval.models import AgentTrace, EvalTestCase, TraceStep
from openeval.values import is_plain_json

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[1] / "data" / "metrics" / "fast_path" / "argument_paths.json")
    .read_text("utf-8"))["cases"]


class Colour(enum.Enum):
    RED = 1


class Size(enum.IntEnum):
    ONE = 1
    TWO = 2


class Word(str, enum.Enum):
    A = "a"


def _both(expected: list[list[Any]], executed: list[list[Any]]) -> tuple[Any, Any]:
    test_case = EvalTestCase(task_id="t", expected_tool_calls=[
        {"tool": tool, "args": args} for tool, args in expected])
    trace = AgentTrace(task_id="t", steps=[
        TraceStep(step_id=i + 1, type="tool_call", tool_name=call[0], tool_args=call[1],
                  denied=len(call) > 2 and call[2] == "denied")
        for i, call in enumerate(executed)])
    case = CompiledCase(test_case)
    fast = [_measured(trace, case, fast=True) for _ in range(2)]  # cold, then warm forms
    general = _measured(trace, CompiledCase(test_case), fast=False)
    assert fast[0] == fast[1]
    return fast[0], general


def _measured(trace: AgentTrace, case: CompiledCase, *, fast: bool) -> Any:
    """The measurement, or the error's message (a malformed expected value is refused)."""
    try:
        return measure_arguments(trace, case, fast=fast)
    except OpenEvalError as exc:
        return str(exc)


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_fast_paths_agree_with_the_general_path(case: dict[str, Any]) -> None:
    fast, general = _both(case["expected"], case["executed"])
    assert fast == general


PYTHON_VALUES = [
    pytest.param({"a": Decimal(5)}, {"a": 5}, id="a Decimal is not a number"),
    pytest.param({"a": (1, 2)}, {"a": [1, 2]}, id="a tuple is an array"),
    pytest.param({"a": [(1, 2)]}, {"a": [[1, 2]]}, id="a nested tuple is an array"),
    pytest.param({"a": float("nan")}, {"a": None}, id="NaN is not null"),
    pytest.param({"a": [float("nan")]}, {"a": [None]}, id="a nested NaN is not null"),
    pytest.param({"a": [Colour.RED]}, {"a": [1]}, id="an enum is not its value"),
    pytest.param({"a": [uuid.UUID(int=1)]}, {"a": [str(uuid.UUID(int=1))]},
                 id="a UUID is not its text"),
    pytest.param({"a": {1: "x"}}, {"a": {"1": "x"}}, id="a key that is no string"),
    pytest.param({"a": [2**70]}, {"a": [2**70]}, id="an integer past 64 bits"),
    pytest.param({"a": [True]}, {"a": [1.0]}, id="true is not 1.0"),
    pytest.param({"a": Size.TWO, "b": [Size.TWO]}, {"a": 2, "b": [2]},
                 id="an int enum is its value"),
    pytest.param({"a": Size.ONE, "b": [Size.ONE]}, {"a": True, "b": [True]},
                 id="an int enum of 1 is not true"),
    pytest.param({"a": Word.A, "b": [Word.A]}, {"a": "a", "b": ["a"]},
                 id="a str enum is its value"),
]


@pytest.mark.parametrize(("actual", "wanted"), PYTHON_VALUES)
def test_values_json_cannot_hold_take_the_exact_way(actual: Any, wanted: Any) -> None:
    for expected, executed in ((wanted, actual), (actual, wanted), (wanted, wanted)):
        calls = [["f", expected], ["f", {**expected, "n": 2}], ["f", {**expected, "n": 3}]]
        made = [["f", executed], ["f", {**executed, "n": 2}], ["f", {**executed, "n": 3}]]
        fast, general = _both(calls, made)
        assert fast == general


_LEAVES = st.one_of(
    st.sampled_from([0, 1, 2, 0.0, 1.0, 2.5, True, False, None, "a", "b", "$x"]),
    st.sampled_from([Size.ONE, Size.TWO, Word.A, Decimal(2)]), st.just(float("nan")))
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.lists(inner, max_size=2).map(tuple),
                            st.dictionaries(st.sampled_from(["p", "q"]), inner, max_size=2)),
    max_leaves=6,
)
_ARGS = st.dictionaries(st.sampled_from(["a", "b", "c"]), _VALUES, min_size=1, max_size=3)
_CALLS = st.lists(st.tuples(st.sampled_from(["f", "g"]), _ARGS), max_size=6)


@settings(max_examples=examples(300), deadline=None)
@given(_CALLS, st.data())
def test_fast_paths_agree_on_any_calls(expected: list[tuple[str, Any]], data: Any) -> None:
    # Executed calls drawn freely, or as written with some changed: the fast paths' cases.
    executed = data.draw(st.one_of(
        _CALLS,
        st.just(list(expected)),
        st.permutations(expected).map(list),
        st.lists(st.sampled_from(expected), max_size=6) if expected else st.just([]),
    ))
    fast, general = _both([list(c) for c in expected], [list(c) for c in executed])
    assert fast == general


@settings(max_examples=examples(300), deadline=None)
@given(_ARGS, _ARGS)
def test_a_call_is_whole_where_its_count_is_full(expected: dict[str, Any],
                                                  actual: dict[str, Any]) -> None:
    # The search's early-ending test against the count the pairing uses.
    try:
        row = ExpectedArgs(expected, "args")
    except OpenEvalError:
        return  # a malformed matcher: refused before any comparison
    for executed in (actual, {**actual, **expected}, {**expected, **actual}):
        assert row.whole(executed) == (row.weight(executed) == len(row.items))
        if is_plain_json(executed):
            assert row.whole_plain(executed) == (row.weight_plain(executed) == len(row.items))
            assert row.weight_plain(executed) == row.weight(executed)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["f", "g"]), _ARGS), min_size=1, max_size=5),
       st.data())
def test_fast_paths_agree_when_the_calls_hide_among_others(
    expected: list[tuple[str, Any]], data: Any
) -> None:
    # The expected calls made among others, in any order, maybe one short: the search for
    # each call's first whole match walks past calls of another purpose.
    noise = data.draw(st.lists(st.tuples(st.sampled_from(["f", "g"]), _ARGS), max_size=4))
    executed = data.draw(st.permutations([*expected, *noise]))
    if data.draw(st.booleans()):
        executed = executed[1:]
    fast, general = _both([list(c) for c in expected], [list(c) for c in executed])
    assert fast == general


_KEYED = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.lists(inner, max_size=2).map(tuple),
        st.dictionaries(st.sampled_from(["p", "q", "$regex", "$approx", "$x"]), inner,
                        max_size=2)),
    max_leaves=6,
)


def _row_items(row: ExpectedArgs) -> list[tuple[Any, ...]]:
    return [(key, plain, type(field), None if field is None else field.source)
            for key, plain, field in row.items]


class _Key(str):
    """A key orjson will not write strictly: such arguments never get plain rows."""


@settings(max_examples=examples(500), deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "b", "$c", "B", 1, _Key("k")]), _KEYED,
                       min_size=1, max_size=3))
def test_plain_rows_are_the_compiled_rows(args: dict[str, Any]) -> None:
    """Where a tool's arguments have a strict text (no ``"$``, shallow, no NaN), the row
    built without the compiler holds what compiling gives: each value a Literal of itself."""
    if _strict_text([args]) is None:
        return
    compiled = ExpectedArgs(args, "expected_tool_calls[0].args")
    built = ExpectedArgs.plain(args, "expected_tool_calls[0].args")
    assert _row_items(built) == _row_items(compiled)
    assert all(a[2] is b[2] or a[2].source is b[2].source
               for a, b in zip(built.items, compiled.items, strict=True))
    assert (built.args, built.where, built.plain_items) == (
        compiled.args, compiled.where, compiled.plain_items)
    # whole() tries the scalars first: the same items, another order.
    assert sorted(built.first, key=lambda item: item[0]) == built.items
    assert compiled.first == compiled.items


def test_plain_rows_are_taken_where_the_text_allows() -> None:
    """A tool of plain calls has a text (its rows are built without the compiler); a tool
    whose calls hold a matcher has none, and its row keeps the compiled matcher."""
    case = EvalTestCase(task_id="t", expected_tool_calls=[
        {"tool": "f", "args": {"a": [1, 2], "b": {"p": "x"}}},
        {"tool": "g", "args": {"a": {"$regex": "^x"}}},
    ])
    form = _ExpectedArgs(case)
    rows = form.rows(plain=True)
    assert form.text("f") is not None and form.text("g") is None
    assert [type(f).__name__ for _, _, f in rows[0].items] == ["Literal", "Literal"]
    assert type(rows[1].items[0][2]).__name__ != "Literal"
    # Keys that are not exact strings leave no strict text, so no plain rows (which sort
    # their pairs by key alone).
    assert _strict_text([{1: "a"}]) is None and _strict_text([{_Key("k"): 1}]) is None


@settings(max_examples=examples(400), deadline=None)
@given(st.lists(_ARGS, min_size=1, max_size=4), st.data())
def test_the_first_whole_pairing_is_the_table_pairing(expected: list[dict[str, Any]],
                                                     data: Any) -> None:
    """Paired without the table where each call's first whole match is its own, a tool
    gets the partners, count and gains of the table (plain or not)."""
    executed = data.draw(st.one_of(
        st.lists(_ARGS, max_size=6),
        st.permutations(expected).map(list),
        st.lists(st.sampled_from(expected), max_size=6),
        st.lists(st.one_of(st.sampled_from(expected), _ARGS), max_size=6),
    ))
    try:
        rows = [ExpectedArgs(args, f"expected_tool_calls[{i}].args")
                for i, args in enumerate(expected)]
    except OpenEvalError:
        return  # a NaN the case may not hold: no row to pair
    for plain in (False, True) if is_plain_json(executed) else (False,):
        fast = pair_calls(rows, executed, plain=plain, first_whole=True)
        table = pair_calls(rows, executed, plain=plain)
        assert (fast.partners, fast.matched, fast.gains, fast.work) == (
            table.partners, table.matched, table.gains, table.work)


def test_the_first_whole_pairing_is_taken_and_left() -> None:
    """Taken where each call has its own first whole match; left to the table where two
    calls would share one, or a call has none."""
    from openeval.metrics.arguments import _first_whole_pairing

    rows = [ExpectedArgs({"a": 1}, "x"), ExpectedArgs({"a": 2}, "y")]
    taken = _first_whole_pairing(rows, [{"a": 2}, {"a": 1}, {"a": 1}])
    assert taken is not None and taken.partners == [1, 0]
    same = [ExpectedArgs({"a": 1}, "x"), ExpectedArgs({"a": 1}, "y")]
    assert _first_whole_pairing(same, [{"a": 1}, {"a": 1}]) is None
    assert _first_whole_pairing(rows, [{"a": 1}, {"a": 3}]) is None
