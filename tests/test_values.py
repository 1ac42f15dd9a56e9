"""JSON value equality (numbers by value; strings and booleans never equal numbers), bounded."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from run_profile import examples

from openeval.values import (
    MAX_JSON_DEPTH,
    MISSING,
    TOO_DEEP,
    canonical_key,
    first_difference,
    json_compare,
    json_equal,
    short_json,
)

EQUAL: list[tuple[Any, Any]] = [
    (1, 1), (1, 1.0), (0, -0.0), (2.5, 2.5), ("a", "a"), ("", ""), (True, True),
    (False, False), (None, None), ([], []), ({}, {}), ([1, "x"], [1.0, "x"]),
    ({"a": {"b": [1, {"c": 2}]}}, {"a": {"b": [1.0, {"c": 2.0}]}}),
    ({"a": 1, "b": 2}, {"b": 2, "a": 1}), ((1, 2), [1, 2]), (10**20, 10**20),
]
UNEQUAL: list[tuple[Any, Any]] = [
    (1, "1"), ("1", 1), (1.0, "1.0"), (True, 1), (1, True), (False, 0), (0, False),
    (True, 1.0), (True, "true"), (None, 0), (None, ""), (None, False), ([], {}),
    ([1, 2], [2, 1]), ([1], [1, 1]), ({"a": 1}, {"a": 1, "b": 2}), ({"a": 1}, {"b": 1}),
    ({"a": [True]}, {"a": [1]}), ({"a": {"b": "2"}}, {"a": {"b": 2}}), ("a", "A"),
    (float("nan"), float("nan")), ([None], []),
]


@pytest.mark.parametrize(("a", "b"), EQUAL, ids=repr)
def test_equal_values(a: Any, b: Any) -> None:
    assert json_equal(a, b)
    assert json_equal(b, a)
    assert first_difference(a, b) is None


@pytest.mark.parametrize(("a", "b"), UNEQUAL, ids=repr)
def test_unequal_values(a: Any, b: Any) -> None:
    assert not json_equal(a, b)
    assert not json_equal(b, a)
    assert first_difference(a, b) is not None


@pytest.mark.parametrize(
    ("expected", "actual", "answer"),
    [
        ({"a": {"b": [1, 2]}}, {"a": {"b": [1, 3]}}, ("x.a.b[1]", 2, 3)),
        ({"a": 1, "z": 2}, {"z": 2}, ("x.a", 1, MISSING)),
        ({"a": 1}, {"a": 1, "b": 0}, ("x.b", MISSING, 0)),
        ([1, 2], [1, 2, 3], ("x", [1, 2], [1, 2, 3])),
        ({"n": True}, {"n": 1}, ("x.n", True, 1)),
    ],
)
def test_first_difference_names_the_path(expected: Any, actual: Any, answer: Any) -> None:
    assert first_difference(expected, actual, "x") == answer


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (42, "42"), ("42", '"42"'), (True, "true"), (None, "null"), (MISSING, "missing"),
        ({"b": 1, "a": [1.5]}, '{"a":[1.5],"b":1}'), ("x" * 100, '"' + "x" * 36 + "..."),
        ({1, 2}, "{1, 2}"),
    ],
)
def test_short_json(value: Any, text: str) -> None:
    assert short_json(value) == text


def _nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for level in range(depth):
        value = {"a": value} if level % 2 else [value]
    return value


def test_values_nested_past_the_limit_never_raise_and_are_not_equal() -> None:
    deep = _nested(1000, 1)  # orjson reads 1024 levels
    assert json_compare(deep, _nested(1000, 1)) is None
    assert not json_equal(deep, _nested(1000, 1))
    assert json_equal(_nested(MAX_JSON_DEPTH - 1, 1), _nested(MAX_JSON_DEPTH - 1, 1.0))
    # A difference below the limit is not seen: "cannot tell", never "equal".
    assert json_compare(deep, _nested(1000, 2)) is None
    path, _, actual = first_difference(deep, _nested(1000, 1), "x") or ("", None, None)
    assert actual is TOO_DEEP and path.startswith("x.a[0].a[0]")
    assert short_json(deep).startswith('{"a":[{"a":[') and len(short_json(deep)) == 40
    assert short_json(TOO_DEEP).startswith("(nested deeper than")


def test_a_difference_above_the_limit_is_still_found() -> None:
    assert json_compare([1, _nested(1000, 1)], [2, _nested(1000, 1)]) is False


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        (12345678901234567890123456789, 12345678901234567890123456789, True),
        (12345678901234567890123456789, 12345678901234567890123456788, False),
        (2**70, float(2**70), True),
        ({"a": [2**64]}, {"a": [2.0**64]}, True),
        ({"a": 10**16}, {"a": 1e16}, True),
        ({"a": 1e16, "b": "x"}, {"b": "x", "a": 10000000000000000}, True),
        (12345678901234567890123456789, 1.2345678901234568e28, False),
    ],
)
def test_big_integers_compare_exactly(a: Any, b: Any, equal: bool) -> None:
    assert json_equal(a, b) is equal
    assert (canonical_key(a) == canonical_key(b)) is equal
    if isinstance(a, int):
        assert short_json(a) == (str(a)[:37] + "..." if len(str(a)) > 40 else str(a))


JSON = st.recursive(
    st.none() | st.booleans()
    | st.sampled_from([0, 1, -1, 2**64, 10**16, 0.0, -0.0, 1.0, 1.5, 2.0**64, 1e16, 1e-7])
    | st.sampled_from(["", "1", "a", "null", "1.0"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["a", "b", "1"]), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=examples(400), deadline=None)
@given(JSON, JSON)
def test_canonical_keys_are_equal_exactly_for_json_equal_values(a: Any, b: Any) -> None:
    assert (canonical_key(a) == canonical_key(b)) is json_equal(a, b)
    assert canonical_key(a) == canonical_key(a) or not json_equal(a, a)


def test_nan_gets_a_key_of_its_own() -> None:
    nan = float("nan")
    assert canonical_key(nan) != canonical_key(nan)
    assert canonical_key({"a": nan}) != canonical_key({"a": None})
    assert canonical_key(float("inf")) == canonical_key(float("inf"))
    assert canonical_key({"a": float("inf")}) != canonical_key({"a": None})
