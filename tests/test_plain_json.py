"""What :func:`openeval.values.is_plain_json` and :func:`~openeval.values.plain_literal`
call plain: only exact JSON types, between which ``==`` is JSON equality but for booleans."""

from __future__ import annotations

import enum
from collections import OrderedDict
from decimal import Decimal
from typing import Any

import pytest

from openeval.values import MAX_JSON_DEPTH, is_plain_json, plain_literal


class Size(enum.IntEnum):
    ONE = 1


class Word(str):
    pass


@pytest.mark.parametrize("value", [
    {"a": [1, 2.5, "x", True, None, {"b": []}]}, [], {}, "text", 2**63 - 1, -0.0,
    [Size.ONE],  # an int enum compares as its value both ways
], ids=repr)
def test_plain_values(value: Any) -> None:
    assert is_plain_json(value)


@pytest.mark.parametrize("value", [
    (1, 2), [float("nan")], [float("inf")], Decimal(1), [2**64], OrderedDict(a=1),
    [Word("x")], {1: "x"}, ["\ud800"],
], ids=repr)
def test_values_that_are_not_plain(value: Any) -> None:
    assert not is_plain_json(value)
    assert plain_literal(value) == (False, False)


@pytest.mark.parametrize(("value", "boolish"), [
    ({"a": 2, "b": "true?"}, True),  # a string may say so: only a confirming comparison
    ({"a": 2, "b": [10, 11.5, -2]}, False),
    ({"a": [1]}, True), ({"a": 0.0}, True), ({"a": -0.0}, True), ({"a": [2, 1.0]}, True),
    ({"a": False}, True), ({"a": 0.5}, False), ({"a": 1.05}, False), ({"a": 100}, False),
    (Size.ONE, True), (1, True), (-0.0, True), (10, False),
], ids=repr)
def test_boolish_leaves_are_found(value: Any, boolish: bool) -> None:
    assert plain_literal(value) == (True, boolish)


def test_deep_values_are_not_plain_literals() -> None:
    value: Any = 1
    for _ in range(MAX_JSON_DEPTH):
        value = [value]
    assert plain_literal(value) == (False, False)
