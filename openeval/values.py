"""Equality and display of JSON values, as metrics compare tool arguments and final state.

JSON has one number type, so ``1`` and ``1.0`` are the same value; but a string is never a
number (``"42"`` is not ``42``) and a boolean is never a number (``true`` is not ``1``).
Python's ``==`` gets the last rule wrong (``True == 1``), hence :func:`json_equal`.

Integers compare exactly at any size (``12345678901234567890123456789`` is not
``...788``): :func:`openeval.jsonio.parse_json` keeps integers beyond 64 bits as Python
integers instead of rounding them to floats.

Nothing here recurses without bound: comparisons and keys descend one frame per level and stop
at :data:`MAX_JSON_DEPTH`, and :func:`short_json` writes by a loop. Two values that agree down
to that depth and are nested further compare as *not known to be equal*: :func:`json_compare`
answers None, :func:`json_equal` False, and :func:`first_difference` names the place as
:data:`TOO_DEEP`.
"""

from __future__ import annotations

import math
import re
import reprlib
from collections.abc import Hashable, Iterator, Mapping
from typing import Any, cast

import orjson

JSON_TYPES: tuple[str, ...] = ("string", "number", "integer", "boolean", "array", "object", "null")
"""The JSON type names (JSON Schema's), in the order messages list them."""


def json_type_is(value: Any, name: str) -> bool:
    """Return whether ``value`` is of JSON type ``name`` (one of :data:`JSON_TYPES`).

    The one rule for JSON types (matchers' ``$type``, ``json_validity``'s ``key_types``; the
    schema validator applies JSON Schema's, which agrees): a bool is not a number, and a whole
    float is an integer (``3.0`` is ``3``, as JSON has one number type). A tuple counts as an
    array and any mapping as an object (values built in Python, not parsed).
    """
    if name == "string":
        return isinstance(value, str)
    is_number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "number":
        return is_number
    if name == "integer":
        return is_number and (not isinstance(value, float) or value.is_integer())
    if name == "boolean":
        return isinstance(value, bool)
    if name == "array":
        return isinstance(value, (list, tuple))
    if name == "object":
        return isinstance(value, Mapping)
    return name == "null" and value is None


MAX_JSON_DEPTH = 200
"""Deepest nesting (objects and arrays inside each other) that is compared.

Real tool arguments and states nest a few levels; orjson reads up to 1024. Beyond this depth two
values are never called equal, so a hostile value cannot pass a check by being deep, nor crash
one with a RecursionError."""

_SHORT_LIMIT = 40
_SCALARS = frozenset({str, int, float, bool, type(None)})
_OBJECT, _ARRAY, _NUMBER, _BOOL, _STRING, _NULL, _OTHER = range(7)
_KIND_OF_TYPE: dict[type, int] = {
    dict: _OBJECT, list: _ARRAY, tuple: _ARRAY, int: _NUMBER, float: _NUMBER, bool: _BOOL,
    str: _STRING, type(None): _NULL,
}


def _kind(value: Any) -> int:
    kind = _KIND_OF_TYPE.get(type(value))
    if kind is not None:
        return kind
    # Subclasses (an OrderedDict, an IntEnum, a str enum ...) are rare: classify them slowly.
    if isinstance(value, bool):
        return _BOOL
    if isinstance(value, (int, float)):
        return _NUMBER
    if isinstance(value, str):
        return _STRING
    if isinstance(value, Mapping):
        return _OBJECT
    if isinstance(value, (list, tuple)):
        return _ARRAY
    return _OTHER


def json_compare(expected: Any, actual: Any) -> bool | None:
    """Return True when two JSON values are deeply equal, False when they differ.

    None means "cannot tell": the values agree as far as they were compared, but both nest
    deeper than :data:`MAX_JSON_DEPTH` there. Callers treat None as "not equal" and as "not
    different" alike (a ``$not`` of it does not match either).
    """
    kind = type(expected)
    if kind is type(actual) and kind in _SCALARS:
        # Same plain scalar type: == is JSON equality (True == 1 cannot happen here).
        return bool(expected == actual)
    return _compare(expected, actual, 0)


def _compare(expected: Any, actual: Any, depth: int) -> bool | None:
    """:func:`json_compare` below the top: one frame per level, at most MAX_JSON_DEPTH deep."""
    kind = _KIND_OF_TYPE.get(type(expected)) or _kind(expected)
    if kind != (_KIND_OF_TYPE.get(type(actual)) or _kind(actual)):
        return False
    if kind == _OBJECT:
        if len(expected) != len(actual):
            return False
        if depth >= MAX_JSON_DEPTH:
            return None
        unknown = False
        for key, want in expected.items():
            got = actual.get(key, _ABSENT)
            if got is _ABSENT:
                return False
            step = type(want)
            if step is type(got) and step in _SCALARS:
                if want != got:
                    return False
                continue
            verdict = _compare(want, got, depth + 1)
            if verdict is False:
                return False
            unknown = unknown or verdict is None
        return None if unknown else True
    if kind == _ARRAY:
        if len(expected) != len(actual):
            return False
        if depth >= MAX_JSON_DEPTH:
            return None
        unknown = False
        for want, got in zip(expected, actual, strict=True):
            step = type(want)
            if step is type(got) and step in _SCALARS:
                if want != got:
                    return False
                continue
            verdict = _compare(want, got, depth + 1)
            if verdict is False:
                return False
            unknown = unknown or verdict is None
        return None if unknown else True
    if kind == _OTHER:
        return type(expected) is type(actual) and bool(expected == actual)
    return bool(expected == actual)


_ABSENT: Any = object()

STRICT_DUMP = (orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS
                | orjson.OPT_PASSTHROUGH_DATETIME)
"""orjson refuses, with these, every subclass of a JSON type, a dataclass and a datetime."""


def is_plain_json(value: Any) -> bool:
    """Return True when ``value`` holds only exact JSON types: ``dict`` with ``str`` keys,
    ``list``, ``str``, ``int`` (64 bits), ``float`` (finite), ``bool`` and None, and nests no
    deeper than orjson writes; or enums of ``int`` or ``str``, which orjson writes as their
    values and which compare as their values under ``==`` and :func:`json_equal` alike.

    Between such values, Python's ``==`` is :func:`json_equal` except that a boolean equals
    the number 0 or 1 (``True == 1``): no tuple against a list, no other subclass, no NaN. A
    caller that knows both sides are plain compares with ``==`` in C instead of walking them.
    Decided by one round trip through orjson: a value it cannot write (a subclass, a
    ``Decimal``, an integer past 64 bits) fails, and one it writes as something else (a tuple
    as an array, NaN as null, an enum as its value) comes back unequal.
    """
    try:
        return bool(orjson.loads(orjson.dumps(value, option=STRICT_DUMP)) == value)
    except (TypeError, orjson.JSONDecodeError):
        return False


def plain_literal(value: Any) -> tuple[bool, bool]:
    """Return ``(plain, boolish)`` for an expected value: ``plain`` when it holds only exact
    JSON types (see :func:`is_plain_json`) and nests less than :data:`MAX_JSON_DEPTH` deep,
    ``boolish`` when a boolean or a number equal to 0 or 1 may stand somewhere inside it: the
    only leaves for which ``==`` and :func:`json_equal` can disagree between plain values.

    Read from orjson's text: ``boolish`` is also True when a string merely holds ``true`` or
    ``:1,`` (it only costs a confirming comparison), and a value whose text holds
    :data:`MAX_JSON_DEPTH` brackets is not called plain, whatever its depth."""
    try:
        text = orjson.dumps(value, option=STRICT_DUMP)
    except TypeError:
        return False, False
    if (text.count(b"[") + text.count(b"{") >= MAX_JSON_DEPTH
            or orjson.loads(text) != value):
        return False, False
    return True, b"true" in text or b"false" in text or _ZERO_OR_ONE.search(text) is not None


_ZERO_OR_ONE = re.compile(rb"(?:^|[:\[,])-?[01](?:\.0)?(?:$|[,\]}])")
"""A number equal to 0 or 1 as orjson writes it, alone or inside an object or array (``0``,
``1``, ``0.0``, ``-0.0``, ``1.0``)."""


def json_equal(expected: Any, actual: Any) -> bool:
    """Return True when two JSON values are deeply equal.

    Numbers compare by value (``1 == 1.0``, integers of any size exactly); a string, a boolean,
    null, an array and an object each equal only a value of their own kind. Objects compare key
    by key, arrays in order. Values nested deeper than :data:`MAX_JSON_DEPTH` are not equal.
    """
    return json_compare(expected, actual) is True


def first_difference(expected: Any, actual: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """Return ``(path, expected part, actual part)`` of the first place two values differ.

    ``path`` is extended with ``.key`` and ``[index]`` as the walk goes down; object keys are
    visited in sorted order so the answer is deterministic. Returns None when the values are
    :func:`json_equal`. An object key missing on the actual side is reported with the
    :data:`MISSING` marker as its actual part; an array of another length is reported whole.
    Where two values agree down to :data:`MAX_JSON_DEPTH` and nest further, the actual part is
    the :data:`TOO_DEEP` marker.
    """
    verdict = json_compare(expected, actual)
    if verdict is True:
        return None
    # The walk below descends at most MAX_JSON_DEPTH frames: one per level of nesting.
    return _difference(expected, actual, path, 0)


def _difference(expected: Any, actual: Any, path: str, depth: int) -> tuple[str, Any, Any]:
    if depth >= MAX_JSON_DEPTH:
        return path, expected, TOO_DEEP
    kind = _kind(expected)
    if kind == _OBJECT and _kind(actual) == _OBJECT:
        for key in sorted(set(expected) | set(actual), key=str):
            here = f"{path}.{key}" if path else str(key)
            if key not in actual:
                return here, expected[key], MISSING
            if key not in expected:
                return here, MISSING, actual[key]
            if json_compare(expected[key], actual[key]) is not True:
                return _difference(expected[key], actual[key], here, depth + 1)
    if kind == _ARRAY and _kind(actual) == _ARRAY and len(expected) == len(actual):
        for index, (e, a) in enumerate(zip(expected, actual, strict=True)):
            if json_compare(e, a) is not True:
                return _difference(e, a, f"{path}[{index}]", depth + 1)
    return path, expected, actual


class _Marker:
    """A named stand-in value that never equals a JSON value."""

    def __init__(self, name: str, shown: str) -> None:
        self._name = name
        self.shown = shown

    def __repr__(self) -> str:
        return self._name


MISSING: Any = _Marker("MISSING", "missing")
"""Stands for "no such key" in :func:`first_difference` answers; shown as ``missing``."""

TOO_DEEP: Any = _Marker("TOO_DEEP", f"(nested deeper than {MAX_JSON_DEPTH} levels: not compared)")
"""Stands for a part nested past :data:`MAX_JSON_DEPTH` in :func:`first_difference` answers."""

_OBJECT_TAG = _Marker("OBJECT", "object")
_TRUE = _Marker("TRUE", "true")
_FALSE = _Marker("FALSE", "false")


def canonical_key(value: Any) -> Hashable:
    """Return a hashable key such that JSON-equal values, and only they, get equal keys.

    ``1`` and ``1.0`` share a key, ``true`` and ``1`` do not, object key order does not matter.
    A value that equals nothing (NaN, a value nested past :data:`MAX_JSON_DEPTH`, a non-JSON
    object) gets a key of its own, so grouping by key never merges values that differ.
    """
    kind = type(value)
    if kind is str or kind is int:
        return cast(Hashable, value)  # exact types: True is not an int here; "1" is not 1
    if kind is float or kind is bool or value is None:
        return _canonical(value, 0)
    # A container's key is its compact JSON (sorted keys) with whole floats written as
    # integers; orjson writes it in about a microsecond. A value orjson cannot write (integers
    # beyond 64 bits, deep nesting, odd keys) or that holds NaN or infinity gets a tuple key.
    try:
        text = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return _canonical(value, 0)
    if b".0" not in text and b"e+" not in text and b"null" not in text:
        return text  # the quick form of _is_normal: most values stop here
    return container_key(value, text)


def container_key(value: Any, text: bytes | None) -> Hashable:
    """Return :func:`canonical_key` of ``value`` given ``text``, its orjson dump with sorted
    keys (None when orjson could not write it), so a caller that has the text saves a dump."""
    if text is None:
        return _canonical(value, 0)
    if (b".0" not in text and b"e+" not in text and b"null" not in text) or _is_normal(text):
        return text
    normal = _normalized(value, 0)
    if normal is _NOT_NORMAL:
        return _canonical(value, 0)
    written = _dumps_sorted(normal)
    return _canonical(value, 0) if written is None else written


def _dumps_sorted(value: Any) -> bytes | None:
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        return None


def _is_normal(text: bytes) -> bool:
    """Return True when orjson's ``text`` holds no whole float and no null (how it writes NaN).

    orjson writes a whole float as "3.0" (then "," "]" "}" or the end) or, from 1e16 on, as
    "1e+16"; a fraction such as 12.05 never looks so, nor a negative exponent ("1e-7"). Text
    inside a string that merely looks alike only costs the slower, exact path.
    """
    return (
        b".0," not in text and b".0]" not in text and b".0}" not in text
        and b"e+" not in text and b"null" not in text and not text.endswith(b".0")
    )


_NOT_NORMAL: Any = object()


def _normalized(value: Any, depth: int) -> Any:
    """Return ``value`` with whole floats as ints (``-0.0`` as ``0``); _NOT_NORMAL when it
    holds NaN or infinity, or nests past MAX_JSON_DEPTH."""
    kind = type(value)
    if kind is float:
        if not math.isfinite(value):
            return _NOT_NORMAL
        return int(value) if value.is_integer() else value
    if kind is dict or kind is list:
        if depth >= MAX_JSON_DEPTH:
            return _NOT_NORMAL
        items = value.items() if kind is dict else enumerate(value)
        out: Any = {} if kind is dict else [None] * len(value)
        for key, item in items:
            normal = _normalized(item, depth + 1)
            if normal is _NOT_NORMAL:
                return _NOT_NORMAL
            out[key] = normal
        return out
    if isinstance(value, float):  # a float subclass: the slow path decides
        return _NOT_NORMAL
    if isinstance(value, (Mapping, list, tuple)) and kind is not dict and kind is not list:
        return _NOT_NORMAL
    return value


def _canonical(value: Any, depth: int) -> Hashable:
    kind = type(value)
    if kind is str or kind is int:
        return cast(Hashable, value)  # the usual cases first; type() is exact: no bools
    if kind is float:
        if value != value:  # NaN equals nothing, not even itself
            return object()
        return int(value) if value.is_integer() else value
    if kind is dict or kind is list:
        if depth >= MAX_JSON_DEPTH:
            return object()
        if kind is list:
            return tuple([_canonical(item, depth + 1) for item in value])
        if all(type(key) is str for key in value):
            return (_OBJECT_TAG, tuple([(key, _canonical(value[key], depth + 1))
                                        for key in sorted(value)]))
    return _canonical_other(value, depth)


def _canonical_other(value: Any, depth: int) -> Hashable:
    """:func:`canonical_key` for the rare shapes: bools, null, subclasses, odd keys."""
    kind = _kind(value)
    if kind == _STRING:
        return str(value)
    if kind == _NUMBER:
        return _canonical(float(value) if isinstance(value, float) else int(value), depth)
    if kind == _BOOL:
        return _TRUE if value else _FALSE
    if kind == _NULL:
        return None
    if depth >= MAX_JSON_DEPTH or kind == _OTHER:
        return object()
    if kind == _ARRAY:
        return tuple(_canonical(item, depth + 1) for item in value)
    items = sorted(
        ((key if type(key) is str else repr(key), _canonical(item, depth + 1))
         for key, item in value.items()),
        key=lambda pair: pair[0],
    )
    return (_OBJECT_TAG, tuple(items))


_REPR = reprlib.Repr()
_REPR.maxstring = _SHORT_LIMIT
_REPR.maxother = _SHORT_LIMIT


def short_json(value: Any, limit: int = _SHORT_LIMIT) -> str:
    """Return ``value`` as compact JSON text cut to at most ``limit`` characters.

    Strings keep their quotes, so ``"42"`` and ``42`` read differently in a CI log; object keys
    are sorted. Only about ``limit`` characters are ever produced, whatever the size or depth
    of the value. A value JSON cannot hold is shown by a bounded ``repr``; :data:`MISSING`
    reads ``missing``.
    """
    if isinstance(value, _Marker):
        return value.shown
    kind = _kind(value)
    try:
        # orjson is fast and right for all but integers beyond 64 bits and deep nesting.
        text = (
            _scalar_text(value, kind, limit + 1) if kind not in (_OBJECT, _ARRAY)
            else orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()
        )
    except TypeError:
        text = "".join(_bounded(_json_tokens(value, limit + 1), limit))
    if len(text) > limit:
        return text[: max(limit - 3, 1)] + "..."
    return text


WINDOW_SCAN = 8192
"""How far into two values' JSON texts :func:`short_pair` looks for their first difference."""


def short_pair(expected: Any, actual: Any, limit: int = _SHORT_LIMIT) -> tuple[str, str]:
    """Return ``expected`` and ``actual`` as short JSON texts that show where they differ.

    Like :func:`short_json` on each, except when both texts are longer than ``limit`` and
    agree on their first ``limit`` characters: cut at the start, they would read the same and
    hide the difference (two 26-item arrays differing in their last item). Then each text is a
    window of about ``limit`` characters around the first differing character, ``...`` marking
    what is left out on either side. Only the first :data:`WINDOW_SCAN` characters of each
    text are ever written; a difference past them is named as such.
    """
    if isinstance(expected, _Marker) or isinstance(actual, _Marker):
        return short_json(expected, limit), short_json(actual, limit)
    left = "".join(_bounded(_json_tokens(expected, WINDOW_SCAN), WINDOW_SCAN))[:WINDOW_SCAN]
    right = "".join(_bounded(_json_tokens(actual, WINDOW_SCAN), WINDOW_SCAN))[:WINDOW_SCAN]
    same = 0
    for a, b in zip(left, right, strict=False):
        if a != b:
            break
        same += 1
    if same < limit - 3 or (len(left) <= limit and len(right) <= limit):
        return short_json(expected, limit), short_json(actual, limit)
    if same == min(len(left), len(right)) == WINDOW_SCAN:
        note = f"... (the first {WINDOW_SCAN:,} characters agree)"
        return note, note
    start = max(same - limit // 3, 0)
    return _window(left, start, limit), _window(right, start, limit)


def _window(text: str, start: int, limit: int) -> str:
    end = start + max(limit - 6, 1)
    head = "..." if start else ""
    tail = "..." if end < len(text) else ""
    return head + text[start:end] + tail


def _bounded(tokens: Iterator[str], limit: int) -> Iterator[str]:
    size = 0
    for token in tokens:
        yield token
        size += len(token)
        if size > limit:
            return


def _json_tokens(value: Any, budget: int) -> Iterator[str]:
    """Yield the compact JSON text of ``value`` piece by piece (a loop, not recursion)."""
    stack: list[Iterator[Any]] = [iter((value,))]
    while stack:
        item: Any = next(stack[-1], _END)
        if item is _END:
            stack.pop()
        elif isinstance(item, _Text):
            yield item.text
        else:
            kind = _kind(item)
            if kind == _OBJECT:
                stack.append(_object_parts(item))
            elif kind == _ARRAY:
                stack.append(_array_parts(item))
            else:
                yield _scalar_text(item, kind, budget)


class _Text:
    """A piece of punctuation or a key, already written as JSON text."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


_END: Any = object()
_COMMA, _COLON = _Text(","), _Text(":")


def _object_parts(value: Mapping[Any, Any]) -> Iterator[Any]:
    yield _Text("{")
    for index, key in enumerate(sorted(value, key=str)):
        if index:
            yield _COMMA
        yield _Text(_scalar_text(str(key), _STRING, _SHORT_LIMIT * 4))
        yield _COLON
        yield value[key]
    yield _Text("}")


def _array_parts(value: Any) -> Iterator[Any]:
    yield _Text("[")
    for index, item in enumerate(value):
        if index:
            yield _COMMA
        yield item
    yield _Text("]")


def _scalar_text(value: Any, kind: int, budget: int) -> str:
    if kind == _STRING:
        # Only the head can be shown: escape no more of a long string than that.
        return orjson.dumps(str(value)[:budget]).decode() if len(value) > budget else (
            orjson.dumps(str(value)).decode()
        )
    if kind == _NUMBER and not isinstance(value, float):
        return str(int(value))  # orjson refuses integers beyond 64 bits
    if kind in (_NUMBER, _BOOL, _NULL):
        return orjson.dumps(value).decode()
    return _REPR.repr(value)
