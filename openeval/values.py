"""Equality and display of JSON values, as metrics compare tool arguments and final state.

JSON has one number type, so ``1`` and ``1.0`` are the same value; but a string is never a
number (``"42"`` is not ``42``) and a boolean is never a number (``true`` is not ``1``).
Python's ``==`` gets the last rule wrong (``True == 1``), hence :func:`json_equal`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

_NUMBER_TYPES = (int, float)
_SHORT_LIMIT = 40


def _is_number(value: Any) -> bool:
    return isinstance(value, _NUMBER_TYPES) and not isinstance(value, bool)


def _is_array(value: Any) -> bool:
    return isinstance(value, (list, tuple))


def json_equal(expected: Any, actual: Any) -> bool:
    """Return True when two JSON values are deeply equal.

    Numbers compare by value (``1 == 1.0``); a string, a boolean, null, an array and an object
    each equal only a value of their own kind. Objects compare key by key, arrays in order.
    """
    kind = type(expected)
    if kind is type(actual):
        # Same concrete type: only containers need a deep look.
        if kind is dict:
            return _dicts_equal(expected, actual)
        if kind is list or kind is tuple:
            return _arrays_equal(expected, actual)
        return bool(expected == actual)
    if _is_number(expected):
        return _is_number(actual) and bool(expected == actual)
    if isinstance(expected, bool) or isinstance(actual, bool):
        # Subclass games aside, a bool only equals a bool of the same value.
        return (
            isinstance(expected, bool) and isinstance(actual, bool) and expected is actual
        )
    if isinstance(expected, str):
        return isinstance(actual, str) and expected == actual
    if isinstance(expected, Mapping):
        return isinstance(actual, Mapping) and _dicts_equal(expected, actual)
    if _is_array(expected):
        return _is_array(actual) and _arrays_equal(expected, actual)
    return expected is None and actual is None


def _dicts_equal(expected: Mapping[Any, Any], actual: Mapping[Any, Any]) -> bool:
    if len(expected) != len(actual):
        return False
    for key, value in expected.items():
        if key not in actual or not json_equal(value, actual[key]):
            return False
    return True


def _arrays_equal(expected: Any, actual: Any) -> bool:
    if len(expected) != len(actual):
        return False
    return all(json_equal(e, a) for e, a in zip(expected, actual, strict=True))


def first_difference(expected: Any, actual: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """Return ``(path, expected part, actual part)`` of the first place two values differ.

    ``path`` is extended with ``.key`` and ``[index]`` as the walk goes down; object keys are
    visited in sorted order so the answer is deterministic. Returns None when the values are
    :func:`json_equal`. An object key missing on the actual side is reported with the
    :data:`MISSING` marker as its actual part; an array of another length is reported whole.
    """
    if json_equal(expected, actual):
        return None
    if isinstance(expected, Mapping) and isinstance(actual, Mapping):
        for key in sorted(set(expected) | set(actual), key=str):
            here = f"{path}.{key}" if path else str(key)
            if key not in actual:
                return here, expected[key], MISSING
            if key not in expected:
                return here, MISSING, actual[key]
            found = first_difference(expected[key], actual[key], here)
            if found is not None:
                return found
    if _is_array(expected) and _is_array(actual) and len(expected) == len(actual):
        for index, (e, a) in enumerate(zip(expected, actual, strict=True)):
            found = first_difference(e, a, f"{path}[{index}]")
            if found is not None:
                return found
    return path, expected, actual


class _Missing:
    """The marker :func:`first_difference` uses for an absent object key."""

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""Stands for "no such key" in :func:`first_difference` answers; shown as ``missing``."""


def short_json(value: Any, limit: int = _SHORT_LIMIT) -> str:
    """Return ``value`` as compact JSON text cut to at most ``limit`` characters.

    Strings keep their quotes, so ``"42"`` and ``42`` read differently in a CI log. A value
    JSON cannot hold falls back to its ``repr``; :data:`MISSING` reads ``missing``.
    """
    if value is MISSING:
        return "missing"
    try:
        text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        text = repr(value)
    if len(text) > limit:
        return text[: max(limit - 3, 1)] + "..."
    return text
