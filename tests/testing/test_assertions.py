"""``assert_case`` and ``assert_trace``: results back when everything passed, an AssertionError
with one line per failed or errored check otherwise, never a silent pass on nothing judged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from openeval.adapters.registry import read_trace
from openeval.errors import TestCaseError
from openeval.jsonio import read_json_file
from openeval.models import AgentTrace
from openeval.testing import assert_case, assert_trace

SUITE = Path(__file__).resolve().parents[1] / "data" / "testing" / "suite"
CHECKS = SUITE / "checks"


def _files(case: str) -> tuple[Path, Path]:
    return SUITE / case / "trace.json", SUITE / case / "testcase.json"


def _trace(case: str) -> AgentTrace:
    return read_trace(SUITE / case / "trace.json")[0]


@pytest.mark.parametrize("form", ["paths", "json", "objects"])
def test_a_passing_case_returns_its_results(form: str) -> None:
    trace_file, case_file = _files("refund-ok")
    trace: Any = {"paths": trace_file, "json": read_json_file(trace_file),
                  "objects": _trace("refund-ok")}[form]
    test_case: Any = case_file if form == "paths" else read_json_file(case_file)
    checks_dir = None if form == "paths" else CHECKS  # a dict has no folder of its own
    if form != "paths":
        test_case["checks"][0]["code"] = "rules.py:refund_within_limit"
    results = assert_case(trace, test_case, checks_dir=checks_dir)
    assert [(r.name, r.verdict) for r in results] == [
        ("tool_selection_accuracy", "pass"), ("refund_within_limit", "pass"),
    ]


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("refund-too-big",
         "refund_within_limit: fail, score false: refunded 250, above the limit of 100"),
        ("refund-crash",
         "refund_within_limit: error: checks/rules.py:5: refund_within_limit raised "
         "KeyError: 'amount'"),
        ("chat-na", "nothing was judged: every result was n.a. (reply_length)"),
    ],
)
def test_a_case_that_did_not_pass_raises_one_line_per_failure(
    case: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(SUITE)  # messages show paths relative to the working folder
    with pytest.raises(AssertionError) as caught:
        assert_case(*_files(case))
    assert str(caught.value) == message


def test_a_failed_metric_line_names_the_score_and_its_pass_line() -> None:
    trace = _trace("refund-ok")
    with pytest.raises(AssertionError) as caught:
        assert_trace(trace, expected_tool_calls=[{"tool": "refund", "args": {"amount": 45}},
                                                 {"tool": "notify_customer"}])
    selection, arguments = str(caught.value).splitlines()
    # The metric's own details follow its verdict, its score and its pass line.
    assert selection.startswith("tool_selection_accuracy: fail, score 0.50 (threshold 1): ")
    assert "notify_customer" in selection
    assert arguments.startswith("argument_correctness: fail, score 0.00 (threshold 1): ")
    assert "expected 45, got 40" in arguments


def test_assert_trace_runs_only_what_it_is_given() -> None:
    trace = _trace("refund-ok")
    results = assert_trace(trace, expected_tool_calls=[{"tool": "refund"}])
    assert [r.name for r in results] == ["tool_selection_accuracy", "argument_correctness"]
    results = assert_trace(
        trace,
        checks=[{"code": "rules.py:refund_within_limit", "limit": 50, "name": "limit"},
                {"code": "rules.py:reply_length", "threshold": 5}],
        checks_dir=CHECKS,
    )
    assert [(r.name, r.verdict) for r in results] == [("limit", "pass"),
                                                       ("reply_length", "pass")]
    with pytest.raises(AssertionError, match=r"^limit: fail, score false: refunded 40, above"):
        assert_trace(trace, checks=[{"code": "rules.py:refund_within_limit", "limit": 10,
                                     "name": "limit"}], checks_dir=CHECKS)


def test_nothing_to_assert_is_a_mistake_not_a_pass() -> None:
    with pytest.raises(ValueError, match="nothing to assert"):
        assert_trace(_trace("refund-ok"))


def test_a_test_case_that_cannot_be_read_is_not_an_assertion() -> None:
    with pytest.raises(TestCaseError, match="expected_tool_call: unknown key"):
        assert_case(_trace("refund-ok"), {"task_id": "t", "expected_tool_call": []})


TOUR = Path(__file__).resolve().parents[2] / "examples" / "tour"
WHOLE_CASES = [
    # id, tour case (its test case file passed whole: assert_trace(trace, **case)), the
    # metrics that fail (as `openeval run` judges them; the case's expected.json agrees)
    ("calls-only", "01-refund-happy-path", set()),
    ("thresholds-timeout-state-output", "07-flight-booking-thresholds",
     {"step_efficiency", "step_budget"}),
    ("times", "11-refund-once-times-1", set()),
    ("state", "18-refund-state-extra-change", {"state_diff"}),
    ("turns", "19-per-turn-expectations-held", set()),
]


@pytest.mark.parametrize(("name", "failing"), [c[1:] for c in WHOLE_CASES],
                         ids=[c[0] for c in WHOLE_CASES])
def test_assert_trace_takes_a_whole_test_case_and_judges_as_run_does(
    name: str, failing: set[str]
) -> None:
    folder = TOUR / name
    case = read_json_file(folder / "testcase.json")
    case["$schema"] = "https://example.test/testcase.schema.json"  # a file may name its schema
    case["trace"] = "trace.json"  # and its trace
    expected = read_json_file(folder / "expected.json")  # each metric's verdict in `run`
    assert failing == {n for n, verdict in expected.items() if verdict == "fail"}
    trace = folder / "trace.json"
    if failing:
        with pytest.raises(AssertionError) as caught:
            assert_trace(trace, **case, checks_dir=folder)
        assert {line.split(":", 1)[0] for line in str(caught.value).splitlines()} == failing
        return
    results = assert_trace(trace, **case, checks_dir=folder)
    assert results
    assert {r.name: r.verdict for r in results}.items() <= expected.items()


def test_assert_trace_refuses_a_key_no_test_case_holds() -> None:
    with pytest.raises(TestCaseError, match="expected_tool_call"):
        assert_trace(_trace("refund-ok"), expected_tool_calls=[{"tool": "refund"}],
                     expected_tool_call=[])
