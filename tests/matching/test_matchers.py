"""Argument matchers against the table in ``tests/data/matching/matcher_cases.json``.

A case is ``id``, ``expected`` (the value as a test case writes it) and either ``error``
(``where``: the JSON path the error names, ``message``: a substring) or the actual value:
``actual``, ``absent: true`` (the key is missing) or ``actual_repeat`` (``[text, n, tail]``:
``text * n + tail``, for long strings), with ``matched`` (true, false, or null for "cannot
tell") and optionally ``details`` (a substring of the explanation).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from openeval.errors import TestCaseError
from openeval.jsonio import read_json_file
from openeval.matching.matchers import (
    MATCHERS,
    compile_expected,
    compile_fields,
    loose_text,
)
from openeval.values import MAX_JSON_DEPTH, MISSING

DATA = Path(__file__).resolve().parents[1] / "data" / "matching" / "matcher_cases.json"
WHERE = "expected_tool_calls[1].args.amount"
ROWS: list[dict[str, Any]] = read_json_file(DATA)
CASES = [pytest.param(case, id=case["id"]) for case in ROWS]


def _actual(case: dict[str, Any]) -> Any:
    if case.get("absent"):
        return MISSING
    if "actual_repeat" in case:
        text, count, *tail = case["actual_repeat"]
        return text * count + "".join(tail)
    return case["actual"]


@pytest.mark.parametrize("case", CASES)
def test_matcher_case(case: dict[str, Any]) -> None:
    if "error" in case:
        with pytest.raises(TestCaseError) as caught:
            compile_expected(case["expected"], WHERE, source="case.json")
        assert caught.value.location == case["error"]["where"]
        assert caught.value.source == "case.json"
        assert case["error"]["message"] in caught.value.message
        return
    pattern = compile_expected(case["expected"], "amount")
    actual = _actual(case)
    assert pattern.test(actual) is case["matched"]
    explained = pattern.explain(actual, "amount")
    assert (explained is None) == (case["matched"] is True)
    if "details" in case:
        assert explained is not None
        assert case["details"] in str(explained)
    # Compiling is pure: the same value compiles to a matcher with the same verdict.
    assert compile_expected(case["expected"], "amount").test(actual) is case["matched"]


def test_the_table_covers_every_matcher_matching_and_not() -> None:
    seen: dict[str, set[Any]] = {name: set() for name in MATCHERS}
    for case in ROWS:
        head = case["expected"]
        if isinstance(head, dict) and "error" not in case:
            for key in head:
                if key in seen:
                    seen[key].add(case["matched"])
    assert all({True, False} <= verdicts for verdicts in seen.values()), seen


def test_allows_missing_says_which_keys_may_be_absent() -> None:
    fields = compile_fields(
        {"a": {"$optional": 1}, "b": {"$exists": False}, "c": {"$exists": True}, "d": 1,
         "e": {"$any": [{"$exists": False}, 1]}, "f": {"$not": 1}},
        "args",
    )
    assert {k for k, f in fields.items() if f.allows_missing} == {"a", "b", "e"}


def test_an_arguments_object_is_never_itself_a_matcher() -> None:
    # A tool whose argument is literally named "$regex" is compared, not read as a matcher.
    fields = compile_fields({"$regex": "a"}, "args")
    assert fields["$regex"].test("a") is True
    assert fields["$regex"].test("ba") is False


def test_repr_shows_what_was_written_and_describe_what_is_wanted() -> None:
    pattern = compile_expected({"$approx": 59.9, "$tol": 0.01}, "amount")
    assert repr(pattern) == 'Approx({"$approx":59.9,"$tol":0.01})'
    assert pattern.describe() == "59.9 ± 0.01"
    assert repr(compile_expected({"a": [1]}, "x")) == 'Literal({"a":[1]})'


@pytest.mark.parametrize(
    ("text", "loose"),
    [("New York, NY", "newyorkny"), ("a.b/c-d_e*f^g", "abcdefg"), ("It's", 'it"s'),
     ("tab\tstays", "tab\tstays")],
)
def test_loose_text_is_bfcls_rule(text: str, loose: str) -> None:
    assert loose_text(text) == loose


def _nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(depth):
        value = {"a": value}
    return value


def test_an_expected_value_nested_too_deeply_is_an_error_with_its_path() -> None:
    with pytest.raises(TestCaseError, match=f"nested deeper than {MAX_JSON_DEPTH} levels"):
        compile_expected(_nested(MAX_JSON_DEPTH + 5, {"$type": "string"}), "state.x")


def test_a_deep_actual_value_never_raises() -> None:
    # orjson reads 1024 levels; nothing in matching may recurse that far.
    deep = _nested(1000, "x")
    pattern = compile_expected({"a": {"$type": "object"}}, "x")
    assert pattern.test(deep) is True
    literal = compile_expected(_nested(MAX_JSON_DEPTH - 2, "x"), "x")
    assert literal.test(deep) is False
    assert literal.explain(deep, "x") is not None
    contains = compile_expected({"$contains": _nested(3, 1)}, "x")
    assert contains.test([deep, deep]) is False


def test_two_equally_deep_values_cannot_be_called_equal() -> None:
    deep = _nested(MAX_JSON_DEPTH + 10, 1)
    pattern = compile_expected({"$eq": 0}, "x")
    assert pattern.test(deep) is False
    # A literal at the depth limit agreeing all the way down: not known to be equal.
    from openeval.values import json_compare

    assert json_compare(deep, _nested(MAX_JSON_DEPTH + 10, 1)) is None


def test_approx_of_an_integer_too_large_for_a_float_is_no_match() -> None:
    assert compile_expected({"$approx": 1.5}, "x").test(10**400) is False
