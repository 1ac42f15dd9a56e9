"""The data model: round trips, defaults, and the files of openeval-core 0.2.1."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from openeval.errors import OpenEvalError
from openeval.models import (
    AgentTrace,
    EvalTestCase,
    MetricResult,
    RunDuration,
    TraceStep,
    _run_duration,
    run_duration,
)

FULL_STEP = TraceStep(
    step_id=3,
    type="tool_call",
    content="",
    tool_name="refund_order",
    tool_args={"order_id": "A-17", "amount": 42.5, "items": [{"sku": "x", "qty": 2}]},
    tool_result='{"ok": true}',
    timestamp=1732900000.25,
    error="permission denied",
    denied=True,
    finish_reason="tool_calls",
    provider="openai",
    model="gpt-4o",
    tokens={"input": 12, "output": 40},
    latency_ms=812.5,
    divergent=True,
)

VALUES: list[Any] = [
    TraceStep(step_id=1, type="thought"),
    FULL_STEP,
    AgentTrace(task_id="t"),
    AgentTrace(
        task_id="refund-1",
        input="Refund order A-17",
        steps=[TraceStep(step_id=1, type="thought", content="Looking it up"), FULL_STEP],
        final_output="Refunded.",
        actual_state={"refunded": True, "amount": 42.5},
        metadata={"fingerprint": {"verdict": "PASS"}},
    ),
    EvalTestCase(task_id="t"),
    EvalTestCase(
        task_id="refund-1",
        input="Refund order A-17",
        expected_tool_calls=[{"tool": "lookup"}, {"tool": "refund_order", "args": {"id": 1}}],
        expected_final_state={"refunded": True},
        expected_output_contains=["Refunded"],
        max_steps=4,
        timeout_seconds=30.0,
        optimal_steps=2,
        thresholds={"step_efficiency": 0.8},
        metrics=["tool_selection_accuracy"],
        trace="trace.json",
    ),
    MetricResult("tool_selection_accuracy", 0.5, False, "missing: refund_order"),
    MetricResult("fixture_freshness", 1.0, None, "never drift-checked"),
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_from_dict_inverts_to_dict(value: Any) -> None:
    assert type(value).from_dict(value.to_dict()) == value


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_to_dict_is_plain_json(value: Any) -> None:
    import orjson

    assert orjson.loads(orjson.dumps(value.to_dict())) == value.to_dict()


@pytest.mark.parametrize(
    ("cls", "data", "key"),
    [
        (EvalTestCase, {"task_id": "t", "expected_tool_cals": []}, "expected_tool_cals"),
        (AgentTrace, {"task_id": "t", "stpes": []}, "stpes"),
        (AgentTrace, {"task_id": "t", "steps": [{"step_id": 1, "type": "thought", "deny": 1}]},
         "deny"),
        (MetricResult, {"metric_name": "m", "score": 1.0, "passed": True, "details": "",
                        "extra": 1}, "extra"),
    ],
)
def test_unknown_keys_are_named(cls: Any, data: dict[str, Any], key: str) -> None:
    with pytest.raises(OpenEvalError, match=repr(key)):
        cls.from_dict(data)


def test_unknown_step_key_error_points_at_the_step() -> None:
    data = {"task_id": "t", "steps": [{"step_id": 1, "type": "thought"},
                                      {"step_id": 2, "type": "thought", "deny": 1}]}
    with pytest.raises(OpenEvalError) as caught:
        AgentTrace.from_dict(data)
    assert caught.value.location == "steps[1]"


@pytest.mark.parametrize("score", [-0.01, 1.5, float("nan")])
def test_metric_result_refuses_scores_outside_unit_interval(score: float) -> None:
    with pytest.raises(ValueError, match="outside"):
        MetricResult("m", score, True, "")


def test_openeval_0_2_1_files_load_unchanged() -> None:
    """The test case and trace shapes written for openeval-core 0.2.1 are subsets of ours."""
    old_case = {
        "task_id": "quickstart-1",
        "input": "Search for weather in Tokyo",
        "expected_tool_calls": [{"tool": "search", "args": {"query": "weather in Tokyo"}}],
        "expected_final_state": {"searched": True},
        "expected_output_contains": [],
        "max_steps": 5,
        "timeout_seconds": 10.0,
    }
    old_trace = {
        "task_id": "quickstart-1",
        "input": "Search for weather in Tokyo",
        "steps": [{"step_id": 1, "type": "tool_call", "content": "", "tool_name": "search",
                   "tool_args": {"query": "weather in Tokyo"}, "tool_result": "85F",
                   "timestamp": 0.0}],
        "final_output": "It is 85F.",
        "actual_state": {"searched": True},
        "metadata": {},
    }
    case = EvalTestCase.from_dict(old_case)
    trace = AgentTrace.from_dict(old_trace)
    assert case.max_steps == 5 and case.optimal_steps is None and case.thresholds == {}
    assert trace.steps[0].tool_args == {"query": "weather in Tokyo"}
    assert trace.steps[0].denied is False


def test_tool_calls_keeps_denied_calls_in_order() -> None:
    trace = AgentTrace(
        task_id="t",
        steps=[
            TraceStep(step_id=1, type="thought"),
            TraceStep(step_id=2, type="tool_call", tool_name="a", denied=True),
            TraceStep(step_id=3, type="tool_result", content="orphan"),
            TraceStep(step_id=4, type="tool_call", tool_name="b"),
        ],
    )
    assert [s.step_id for s in trace.tool_calls()] == [2, 4]


RUN_DURATION = json.loads(
    (Path(__file__).parent / "data" / "models" / "run_duration_cases.json").read_text())


@pytest.mark.parametrize("row", RUN_DURATION["cases"], ids=[r["id"] for r in RUN_DURATION["cases"]])
def test_run_duration(row: dict[str, Any]) -> None:
    steps = [TraceStep(step_id=i, type="tool_call", tool_name="t", timestamp=float(stamp),
                       latency_ms=latency)
             for i, (stamp, latency) in enumerate(row["steps"], 1)]
    trace = AgentTrace(task_id="t", steps=steps)
    if "error" in row:
        with pytest.raises(OpenEvalError, match=re.escape(row["error"])):
            trace.run_duration()
        return
    found = trace.run_duration()
    if row.get("none"):
        assert found is None
        return
    assert found is not None
    assert found.seconds == pytest.approx(row["seconds"])
    assert found.milliseconds == pytest.approx(row["seconds"] * 1000)
    assert found.source == row["source"]


def _duration_or_error(steps: list[TraceStep], measure: Any) -> object:
    try:
        return measure(steps)
    except OpenEvalError as exc:
        return ("error", str(exc))
    except TypeError as exc:
        return ("type error", str(exc))


_STAMPS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True), st.integers(-5, 10**6),
    st.sampled_from([0.0, -0.0, 1e308, -1e308, 5e-324, 1767225600.0, True]),
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(_STAMPS, st.one_of(st.none(), st.floats(), st.integers(-3, 9)))))
@example([(0.0, 8.988465674311579e307), (0.0, 8.98846567431158e307)])  # fsum overflows
def test_run_duration_fast_path_is_the_loop(rows: list[tuple[Any, Any]]) -> None:
    """The fast path of ``run_duration`` (every timestamp finite, span found in C) gives the
    step-by-step rule's figure, or its error, on every list of steps."""
    steps = [TraceStep(step_id=i, type="tool_call", timestamp=stamp, latency_ms=latency)
             for i, (stamp, latency) in enumerate(rows, 1)]
    fast = _duration_or_error(steps, run_duration)
    slow = _duration_or_error(steps, _run_duration)
    assert fast == slow
    if isinstance(fast, RunDuration):
        assert (type(fast.seconds), type(fast.milliseconds)) == (
            type(slow.seconds), type(slow.milliseconds))  # type: ignore[union-attr]
