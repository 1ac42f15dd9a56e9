"""Loading test case files: 0.2.1 files unchanged, every broken file named with its place."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openeval.errors import TestCaseError
from openeval.metrics import metric_names
from openeval.models import EvalTestCase
from openeval.testcase_file import load_test_case

DATA = Path(__file__).parent / "data" / "suites"

VALID: dict[str, Any] = {
    "task_id": "refund-1",
    "input": "refund order 7",
    "expected_tool_calls": [{"tool": "refund_order", "args": {"order_id": "7"}}],
}


def test_a_021_test_case_loads_unchanged() -> None:
    path = DATA / "legacy_021" / "testcases" / "lookup.json"
    case = load_test_case(path)
    raw = json.loads(path.read_text())
    assert case == EvalTestCase(**raw)
    assert case.max_steps == 10 and case.timeout_seconds == 10.0
    assert case.metrics is None and case.thresholds == {}


def test_trace_key_is_kept_as_written(tmp_path: Path) -> None:
    path = tmp_path / "testcase.json"
    path.write_text(json.dumps({**VALID, "trace": "runs/first.trace"}))
    assert load_test_case(path).trace == "runs/first.trace"


def test_known_metric_names_are_accepted(tmp_path: Path) -> None:
    first, second = metric_names()[:2]
    path = tmp_path / "testcase.json"
    path.write_text(json.dumps({**VALID, "metrics": [first, second], "thresholds": {second: 0.5}}))
    case = load_test_case(path)
    assert case.metrics == [first, second] and case.thresholds == {second: 0.5}


BROKEN: list[tuple[str, str | None, str | None, str]] = [
    # id, file text (None: file missing), expected location, expected words
    ("missing-file", None, None, "file not found"),
    ("truncated", '{"task_id": "x", "input": ', "line 1 column 27", "invalid JSON"),
    ("not-an-object", "[1, 2]", None, "expected a JSON object"),
    ("no-task-id", '{"input": "x"}', None, "missing required key 'task_id'"),
    ("unknown-key", '{"task_id": "x", "expected_tool_call": []}', "expected_tool_call",
     "unknown key 'expected_tool_call'"),
    ("tool-not-string", '{"task_id": "x", "expected_tool_calls": [{"tool": 3}]}',
     "expected_tool_calls[0].tool", "expected a string, got an integer"),
    ("unknown-metric", '{"task_id": "x", "metrics": ["tool_selection_accuracy", "speed"]}',
     "metrics[1]", "unknown metric 'speed'; expected one of: tool_selection_accuracy"),
    ("unknown-threshold", '{"task_id": "x", "thresholds": {"goal_completion": 0.5}}',
     "thresholds.goal_completion", "unknown metric 'goal_completion'"),
    ("threshold-out-of-range", '{"task_id": "x", "thresholds": {"step_budget": 2}}',
     "thresholds.step_budget", "out of range"),
    # The same rules as a suite configuration and the plan (openeval.scoring.validate).
    ("threshold-for-a-metric-not-run",
     '{"task_id": "x", "metrics": ["step_budget"], "thresholds": {"step_efficiency": 0.5}}',
     "thresholds.step_efficiency", "configures nothing: the 'metrics' list leaves out"),
    ("threshold-on-a-verdict", '{"task_id": "x", "thresholds": {"fixture_freshness": 0.5}}',
     "thresholds.fixture_freshness", "configures nothing: fixture_freshness is a verdict"),
    ("expectation-no-metric-reads",
     '{"task_id": "x", "metrics": ["divergence_score"], "expected_final_state": {"a": 1}}',
     "expected_final_state", "no metric in 'metrics' reads 'expected_final_state'"),
    # A turn's checks follow the rules of the case's own checks, named at their turn.
    ("turn-check-unknown",
     '{"task_id": "x", "turns": [{"user": 1, "checks": [{"check": "contain"}]}]}',
     "turns[0].checks[0].check", "unknown check 'contain'"),
    ("turn-check-unknown-setting",
     '{"task_id": "x", "turns": [{"user": 1, "checks": [{"check": "contains", "value": "a"}]}]}',
     "turns[0].checks[0].value", "value"),
    ("turn-check-code",
     '{"task_id": "x", "turns": [{"user": 1, "checks": [{"check": "contains", "code": "c.py"}]}]}',
     "turns[0].checks[0].code", "a code check cannot run inside a turn"),
    ("turn-check-same-name",
     '{"task_id": "x", "turns": [{"user": 2, "checks": [{"check": "contains"}, '
     '{"check": "contains"}]}]}',
     "turns[0].checks[1].name", "already used by turns[0].checks[0]"),
    # An order edge only trajectory_match judges, and only with a trajectory: never unread.
    ("after-without-a-trajectory",
     '{"task_id": "x", "expected_tool_calls": [{"tool": "a", "id": "a"}, '
     '{"tool": "b", "after": ["a"]}]}',
     "expected_tool_calls[1].after", "configures nothing: 'after' is judged by trajectory_match"),
    ("uses-result-of-in-a-turn-without-a-trajectory",
     '{"task_id": "x", "turns": [{"user": 1, "expected_tool_calls": [{"tool": "a", "id": "a"}, '
     '{"tool": "b", "uses_result_of": ["a"]}]}]}',
     "turns[0].expected_tool_calls[1].uses_result_of", "'uses_result_of' is judged by"),
    ("turn-checks-not-a-list", '{"task_id": "x", "turns": [{"user": 1, "checks": {}}]}',
     "turns[0].checks", "expected a list"),
]


@pytest.mark.parametrize(
    ("text", "location", "words"), [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN]
)
def test_broken_test_cases_are_named_with_their_place(
    tmp_path: Path, text: str | None, location: str | None, words: str
) -> None:
    path = tmp_path / "testcase.json"
    if text is not None:
        path.write_text(text)
    with pytest.raises(TestCaseError) as caught:
        load_test_case(path)
    error = caught.value
    assert error.source == str(path)
    assert error.location == location
    assert words in error.message
    assert str(error).startswith(str(path))


@pytest.mark.parametrize("text", [
    '{"task_id": "t", "max_steps": 3, "max_steps": 30}',
    '{"task_id": "t", "expected_tool_calls": [{"tool": "a", "args": {"x": 1, "x": 2}}]}',
])
def test_a_key_said_twice_is_refused_naming_it(tmp_path: Path, text: str) -> None:
    # JSON parsers keep the last one silently: the case would run with a setting nobody saw.
    path = tmp_path / "testcase.json"
    path.write_text(text)
    with pytest.raises(TestCaseError, match="appears twice in one object") as caught:
        load_test_case(path)
    assert caught.value.source == str(path)
