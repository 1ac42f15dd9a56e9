"""Matchers and the trajectory object are checked when a test case file is read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from run_profile import examples

from openeval.errors import TestCaseError
from openeval.matching.trajectory import TrajectorySpec, compile_calls
from openeval.matching.validate import calls_need_compiling, validate_test_case_matchers
from openeval.testcase_file import load_test_case
from openeval.values import MAX_JSON_DEPTH

CALL = {"tool": "refund", "args": {"amount": {"$approx": 59.9, "$tol": 0.01}}}


@pytest.mark.parametrize(
    ("document", "location", "words"),
    [
        ({"expected_tool_calls": [CALL, {"tool": "refund", "args": {"amount": {"$aprox": 1}}}]},
         "expected_tool_calls[1].args.amount", 'unknown matcher "$aprox"; expected one of: $any'),
        ({"expected_tool_calls": [{"tool": "find", "args": {"q": {"$regex": "("}}}]},
         "expected_tool_calls[0].args.q.$regex", "invalid regular expression"),
        ({"expected_final_state": {"status": {"$type": "str"}}},
         "expected_final_state.status.$type", 'unknown type "str"'),
        ({"expected_final_state": {"items": [{"$optional": 1}]}},
         "expected_final_state.items[0]", '"$optional" says whether an object key is present'),
        ({"trajectory": {"mode": "strcit"}}, "trajectory.mode",
         '"strcit" is not one of strict, in_order, unordered, superset, subset'),
        ({"trajectory": {"per_tool": {"find": ["filter.status"]}},
          "expected_tool_calls": [{"tool": "find", "args": {"filter": {"$exists": True}}}]},
         "expected_tool_calls[0].args", "goes through a matcher at 'filter'"),
    ],
)
def test_a_bad_matcher_or_trajectory_names_the_file_and_path(
    tmp_path: Path, document: dict[str, Any], location: str, words: str
) -> None:
    path = tmp_path / "testcase.json"
    path.write_text(json.dumps({"task_id": "t", **document}))
    with pytest.raises(TestCaseError) as caught:
        validate_test_case_matchers({"task_id": "t", **document}, source=path)
    assert caught.value.location == location
    assert caught.value.source == str(path)
    assert words in caught.value.message
    # The file reader runs the same check (the schema may word a bad choice first).
    with pytest.raises(TestCaseError) as loaded:
        load_test_case(path)
    assert loaded.value.location == location
    assert loaded.value.source == str(path)


def test_a_test_case_with_good_matchers_and_trajectory_loads(tmp_path: Path) -> None:
    document = {
        "task_id": "t",
        "expected_tool_calls": [CALL, {"tool": "notify"}],
        "expected_final_state": {"status": {"$any": ["refunded", "closed"]}, "n": 1},
        "trajectory": {"mode": "strict", "args": "exact", "per_tool": {"notify": "ignore"},
                       "ignore_args": ["*_id"], "defaults": {"refund": {"currency": "USD"}}},
    }
    path = tmp_path / "testcase.json"
    path.write_text(json.dumps(document))
    case = load_test_case(path)
    assert case.trajectory == document["trajectory"]
    assert case.expected_final_state == document["expected_final_state"]


def test_a_021_test_case_is_still_valid() -> None:
    legacy = Path(__file__).resolve().parents[1] / "data" / "suites" / "legacy_021" / "testcases"
    for path in sorted(legacy.glob("*.json")):
        assert load_test_case(path).trajectory is None


_LEAVES = st.one_of(
    st.sampled_from([0, 1, 2.5, True, None, "a", "$x", "$regex", float("nan"), 2**70]),
    st.just({"$regex": "("}), st.just({"$approx": 1}), st.just({"$aprox": 1}))
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.lists(inner, max_size=2).map(tuple),
                            st.dictionaries(st.sampled_from(["p", "$q", 1]), inner,
                                            max_size=2)),
    max_leaves=6,
)
_CALL = st.fixed_dictionaries(
    {"tool": st.sampled_from(["f", "g", "", 3])},
    optional={"args": st.one_of(st.none(), st.just([]),
                                st.dictionaries(st.sampled_from(["a", "b", "$c"]), _VALUES,
                                                max_size=3))})


def _deep(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(_CALL, max_size=4))
def test_calls_left_uncompiled_compile_without_a_fault(calls: list[Any]) -> None:
    # Reading a case skips compiling its calls only where compiling could refuse nothing
    # (proposals/0305): then compiling them finds every call plain, and raises nothing.
    if calls_need_compiling(calls):
        return
    compiled = compile_calls(calls, TrajectorySpec())
    assert all(call.plain for call in compiled)


@pytest.mark.parametrize("calls", [
    pytest.param([{"tool": "f", "args": {"a": {"$regex": "("}}}], id="a malformed matcher"),
    pytest.param([{"tool": "f", "args": {"a": _deep(MAX_JSON_DEPTH + 1)}}], id="too deep"),
    pytest.param([{"tool": "f", "args": {"a": 2**70}}], id="an integer orjson cannot write"),
    pytest.param([{"tool": "", "args": {}}], id="an empty tool name"),
    pytest.param([{"tool": "f", "args": [1]}], id="arguments that are no object"),
    pytest.param(({"tool": "f"},), id="calls that are no list"),
])
def test_calls_that_may_be_wrong_are_compiled(calls: Any) -> None:
    assert calls_need_compiling(calls)


def test_plain_calls_are_not_compiled_to_be_read() -> None:
    calls = [{"tool": "f", "args": {"a": [1, {"b": "x"}], "c": None}}, {"tool": "g"},
             {"tool": "h", "args": None}]
    assert not calls_need_compiling(calls)
    validate_test_case_matchers({"task_id": "t", "expected_tool_calls": calls})
