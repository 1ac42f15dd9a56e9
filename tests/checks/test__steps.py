"""The call key's quick form (one dump) agrees with the general form on every value, and the
quick count of repeated calls agrees with the walk."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openeval.checks._steps import (
    Call,
    _most_common,
    _walk,
    call_key,
    general_call_key,
    most_repeated,
)

scalars = st.one_of(
    st.none(), st.booleans(), st.text(max_size=8),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1.0, 2.0, 1e16, -0.0, 1e-7, 0.5]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(max_size=4), inner, max_size=4),
        st.dictionaries(st.integers(0, 3), inner, max_size=2),
    ),
    max_leaves=20,
)


@given(st.dictionaries(st.text(max_size=6), values, max_size=5))
def test_quick_key_is_the_general_key(args: dict[str, Any]) -> None:
    assert call_key("refund", args) == general_call_key("refund", args)


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def test_nesting_past_the_cap_takes_the_general_form() -> None:
    assert call_key("t", nested(100)) == general_call_key("t", nested(100))


def test_json_equal_arguments_share_a_key() -> None:
    assert call_key("t", {"n": 1, "m": "x"}) == call_key("t", {"m": "x", "n": 1.0})
    assert call_key("t", {"n": True}) != call_key("t", {"n": 1})


# --- the count of repeated calls: the quick count of calls with no retry is the walk's ------


CALL_TABLE: dict[str, list[tuple[str, Any]]] = {
    "no calls": [],
    "one call": [("a", {})],
    "all distinct": [("a", {"x": 1}), ("b", {"x": 1}), ("a", {"x": 2})],
    "a pair, later a triple": [("a", {}), ("b", {}), ("a", {}), ("c", {}), ("c", {}),
                               ("c", {})],
    "a tie goes to the first seen": [("b", {}), ("a", {}), ("a", {}), ("b", {})],
    "JSON-equal arguments": [("a", {"n": 1}), ("a", {"n": 1.0}), ("a", {"n": True})],
    "no name": [("", {}), ("", {}), ("x", "raw text")],
    "a name with a NUL": [("a\x00{}", {}), ("a", {}), ("a\x00{}", {})],
}


def calls_of(rows: list[tuple[str, Any]]) -> list[Call]:
    return [Call(i, name, args, None, False, False) for i, (name, args) in enumerate(rows, 1)]


def same_count(found: tuple[int, Call | None], wanted: tuple[int, Call | None]) -> bool:
    return found[0] == wanted[0] and found[1] is wanted[1]


@pytest.mark.parametrize("rows", CALL_TABLE.values(), ids=CALL_TABLE.keys())
def test_the_quick_count_is_the_walk(rows: list[tuple[str, Any]]) -> None:
    calls = calls_of(rows)
    assert same_count(_most_common(calls), _walk(calls, in_a_row=False))
    assert same_count(most_repeated(calls, in_a_row=False), _walk(calls, in_a_row=False))


@given(st.lists(st.tuples(st.sampled_from(["a", "b", ""]),
                          st.sampled_from([{}, {"n": 1}, {"n": 1.0}, {"n": 2}, "x"])),
                max_size=12))
def test_the_quick_count_is_the_walk_on_any_calls(rows: list[tuple[str, Any]]) -> None:
    calls = calls_of(rows)
    assert same_count(_most_common(calls), _walk(calls, in_a_row=False))


def test_a_failed_call_takes_the_walk_that_excuses_its_retry() -> None:
    calls = [Call(1, "a", {}, None, True, False), Call(2, "a", {}, None, False, False)]
    assert most_repeated(calls, in_a_row=False)[0] == 1


def test_checks_sharing_a_trace_memo_count_as_checks_of_their_own() -> None:
    from openeval.checks._context import CheckContext, TraceMemo
    from openeval.checks.agent import tool_call_validity
    from openeval.checks.trace import repeated_tool_calls
    from openeval.models import AgentTrace, TraceStep

    steps = [TraceStep(step_id=i, type="tool_call", tool_name=name, tool_args=args)
             for i, (name, args) in enumerate(CALL_TABLE["a pair, later a triple"], 1)]
    trace = AgentTrace(task_id="t", steps=steps)
    memo = TraceMemo()
    for check in (repeated_tool_calls, tool_call_validity, repeated_tool_calls):
        assert check(CheckContext(trace, memo=memo)) == check(CheckContext(trace))
