"""Matchers and the trajectory object are checked when a test case file is read."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openeval.errors import TestCaseError
from openeval.matching.validate import validate_test_case_matchers
from openeval.testcase_file import load_test_case

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
