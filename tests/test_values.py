"""JSON value equality (numbers by value; strings and booleans never equal numbers)."""

from __future__ import annotations

from typing import Any

import pytest

from openeval.values import MISSING, first_difference, json_equal, short_json

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
