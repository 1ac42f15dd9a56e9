"""docs/semantics.md#no-vacuous-passes on traces the real producers wrote: a failed call is not a
made call, and a denial rule lets formats with no denial field judge recoveries.

The traces are the goldens the adapter tests regenerate from the producers themselves (the
anthropic SDK over a replayed transport, the OpenTelemetry SDK), so each verdict here is what
a user of that producer gets.
"""

from __future__ import annotations

from pathlib import Path

from openeval.adapters import load_trace
from openeval.models import EvalTestCase
from openeval.scoring import compile_plan, score

ROOT = Path(__file__).parents[2]
ANTHROPIC = ROOT / "examples" / "quickstart" / "05-anthropic-messages" / "trace.json"
OTEL = ROOT / "tests" / "data" / "adapters" / "otel" / "refund_errors.otlp.jsonl"


def verdicts(trace_path: Path, **testcase: object) -> dict[str, tuple[str, str]]:
    test_case = EvalTestCase.from_dict({"task_id": "t", **testcase})
    results = score(load_trace(trace_path), compile_plan(test_case))
    return {r.name: (r.verdict, r.details) for r in results}


def test_an_anthropic_tool_result_with_is_error_is_not_a_made_call() -> None:
    # The SDK loop's check_visa came back is_error: "permission denied: visa service ...".
    found = verdicts(ANTHROPIC, metrics=["tool_selection_accuracy"], expected_tool_calls=[
        {"tool": "search_flights"}, {"tool": "check_visa"},
    ])
    verdict, details = found["tool_selection_accuracy"]
    assert verdict == "fail"
    assert "missing: check_visa; check_visa: called but failed: permission denied" in details


def test_an_otel_tool_span_that_ended_in_error_is_not_a_made_call() -> None:
    found = verdicts(OTEL, metrics=["tool_selection_accuracy"], expected_tool_calls=[
        {"tool": "lookup_order"}, {"tool": "issue_refund"},
    ])
    verdict, details = found["tool_selection_accuracy"]
    assert verdict == "fail"
    assert "issue_refund: called but failed: payment gateway timeout" in details


def test_a_denial_rule_marks_refusals_the_format_cannot_mark() -> None:
    rule = {"metrics": ["denial_recovery_rate"], "denied_when": ["permission denied"]}
    verdict, details = verdicts(ANTHROPIC, **rule)["denial_recovery_rate"]
    # The agent went on to answer after the refusal: recovered.
    assert (verdict, details) == ("pass", "denied tool calls recovered: 1/1")
