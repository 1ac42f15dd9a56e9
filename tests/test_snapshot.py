"""Drafting a test case from a trace: the draft must pass on the trace it came from."""

from __future__ import annotations

from pathlib import Path

import pytest

from openeval.metrics import all_metrics
from openeval.models import AgentTrace, EvalTestCase, TraceStep
from openeval.snapshot import case_document, draft_test_case, expected_calls, trace_reference


def _trace() -> AgentTrace:
    return AgentTrace(
        task_id="refund-7",
        input="Refund order 7",
        steps=[
            TraceStep(1, "thought", "let me look"),
            TraceStep(2, "tool_call", tool_name="lookup", tool_args={"id": 7}, tool_result="ok"),
            TraceStep(3, "tool_call", tool_name="delete_all", tool_args={}, denied=True,
                      error="permission denied"),
            TraceStep(4, "tool_call", tool_name="refund", content="[7]", tool_args=None,
                      error="arguments are not a JSON object: a list"),
            TraceStep(5, "tool_result", content="orphan result"),
        ],
        final_output="Refunded order 7.\nAnything else?",
        actual_state={"refunded": [7], "notes": {"by": "agent"}},
    )


def test_expected_calls_skip_denied_and_failed_calls() -> None:
    # The refund call failed (its arguments were not an object): it achieved nothing, so a
    # known-good run is not expected to make it (CONTRACT 2.1).
    assert expected_calls(_trace()) == [{"tool": "lookup", "args": {"id": 7}}]


def test_draft_fields() -> None:
    case = draft_test_case(_trace(), trace_ref="trace.json")
    assert case == EvalTestCase(
        task_id="refund-7",
        input="Refund order 7",
        expected_tool_calls=[{"tool": "lookup", "args": {"id": 7}}],
        expected_final_state={"refunded": [7], "notes": {"by": "agent"}},
        expected_output_contains=[],
        max_steps=3,
        optimal_steps=3,
        trace="trace.json",
    )
    assert draft_test_case(_trace(), task_id="other").task_id == "other"


def test_draft_is_a_copy_not_a_view() -> None:
    trace = _trace()
    case = draft_test_case(trace)
    trace.actual_state["notes"]["by"] = "someone else"
    trace.steps[1].tool_args = {"id": 8}
    assert case.expected_final_state["notes"] == {"by": "agent"}
    assert case.expected_tool_calls[0]["args"] == {"id": 7}


def test_every_applicable_metric_passes_on_the_source_trace() -> None:
    trace = _trace()
    case = draft_test_case(trace)
    results = {m.name: m.score(trace, case) for m in all_metrics()}
    failed = {n: r.details for n, r in results.items() if r.passed is False}
    # The trace's denied call is followed by other calls and never retried, so it counts as
    # recovered; nothing the draft asks for is missing from the trace it came from.
    assert failed == {}


def test_case_document_drops_unset_keys() -> None:
    document = case_document(draft_test_case(_trace()))
    assert "trace" not in document and "thresholds" not in document and "metrics" not in document
    assert EvalTestCase.from_dict(document) == draft_test_case(_trace())


@pytest.mark.parametrize(
    ("trace", "testcase", "expected"),
    [
        ("cases/a/trace.json", "cases/a/testcase.json", "trace.json"),
        ("traces/a.jsonl", "cases/a/testcase.json", "../../traces/a.jsonl"),
        ("a.trace", "testcase.json", "a.trace"),
    ],
)
def test_trace_reference_is_relative_to_the_test_case(
    tmp_path: Path, trace: str, testcase: str, expected: str
) -> None:
    assert trace_reference(tmp_path / trace, tmp_path / testcase) == expected
