"""The bounds and errors of ``turn_expectations`` that a case table cannot show: the records kept
in the result's data, and a turn's check that cannot judge its segment."""

from __future__ import annotations

from openeval.metrics import get_metric
from openeval.models import AgentTrace, EvalTestCase, Message, TraceStep
from openeval.scoring import compile_plan, score

TRACE = AgentTrace(
    task_id="t",
    steps=[TraceStep(step_id=1, type="tool_call", tool_name="refund", tool_args={}, turn=1)],
    messages=[Message(role="user", content="Refund it"),
              Message(role="assistant", content="Refunded.", turn=1)],
)


def test_the_turn_records_are_bounded_and_the_rest_counted() -> None:
    turns = [{"user": 1, "expected_tool_calls": [{"tool": "refund"}]}] * 45
    found = get_metric("turn_expectations").measure(TRACE, EvalTestCase(task_id="t", turns=turns))
    assert found.score == 1.0
    assert len(found.data["turns"]) == 40
    assert found.data["turns_cut"] == {"turns": 45, "kept": 40}


def test_a_turn_check_that_cannot_judge_is_an_error_naming_the_turn() -> None:
    # exact_match with no reference and no expected_output: no verdict is possible.
    case = EvalTestCase(task_id="t", turns=[{"user": 1, "checks": [{"check": "exact_match"}]}])
    [result] = score(TRACE, compile_plan(case, metrics=["turn_expectations"]))
    assert result.verdict == "error"
    assert result.details.startswith("turns[0].checks[0] (exact_match): ")
