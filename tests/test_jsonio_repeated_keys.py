"""The duplicate-key screen of test case files against an exact reader of every member."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from run_profile import examples

from openeval.errors import TestCaseError
from openeval.jsonio import parse_json_file


class _Repeated(Exception):
    pass


def _no_repeat(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise _Repeated
    return dict(pairs)


def _repeats(text: bytes) -> bool:
    try:
        json.loads(text, object_pairs_hook=_no_repeat)
    except _Repeated:
        return True
    return False


def _refused(text: bytes) -> bool:
    try:
        parse_json_file(text, Path("testcase.json"), error=TestCaseError, unique_keys=True)
    except TestCaseError as exc:
        assert "appears twice in one object" in exc.message
        return True
    return False


TEXTS = {
    "no repeat": b'{"a": 1, "b": {"c": [1, {"d": 2}]}}',
    "a repeat": b'{"a": 1, "a": 1}',
    "a nested repeat": b'{"a": [{"x": 1, "x": 2}]}',
    "colons in strings": b'{"a:b": "c:d", "e": "::"}',
    "a repeat whose first value holds colons": b'{"a": "x:y", "a": "z"}',
    "a repeat whose key holds a colon": b'{"k:": 1, "k:": 2}',
    "an escaped colon in a string": b'{"a": "\\u003a", "b": 1}',
    "an escaped colon beside a repeat": b'{"a": "\\u003a", "a": 1}',
    # Written back, the escaped colon is a colon: as many as the repeat removed.
    "an escaped colon hiding a repeat": b'{"b": "\\u003a", "a": 1, "a": 2}',
    "an escaped quote": b'{"a": "say \\"x:y\\"", "a": 2}',
    "a big integer": b'{"n": 123456789012345678901234567890, "m": 1}',
    "a big integer and a repeat": b'{"n": 123456789012345678901234567890, "n": 1}',
    "not an object": b'[1, 2, "a:b"]',
}


@pytest.mark.parametrize("text", TEXTS.values(), ids=TEXTS.keys())
def test_refused_exactly_when_a_key_repeats(text: bytes) -> None:
    assert _refused(text) == _repeats(text)


_KEYS = st.sampled_from(["a", "b", "a:b", ":", "\\u003a", 'q\\"', "é"])
_SCALARS = st.one_of(st.integers(-5, 5), st.sampled_from(['"x:y"', '"\\u003a"', '"é"', "null",
                                                          "12345678901234567890123"]))


def _text(draw: st.DrawFn, depth: int) -> str:
    if depth == 0 or not draw(st.booleans()):
        return str(draw(_SCALARS))
    if draw(st.booleans()):
        items = draw(st.lists(st.just(0), max_size=3))
        return "[" + ", ".join(_text(draw, depth - 1) for _ in items) + "]"
    keys = draw(st.lists(_KEYS, max_size=4))
    return "{" + ", ".join(f'"{k}": {_text(draw, depth - 1)}' for k in keys) + "}"


@st.composite
def _documents(draw: st.DrawFn) -> bytes:
    return _text(draw, 3).encode()


@settings(max_examples=examples(300), deadline=None)
@given(_documents())
def test_any_document(text: bytes) -> None:
    assert _refused(text) == _repeats(text)
