"""openeval-core 0.2.1's Python API, as its real clients call it: deprecated, still working."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from openeval.metrics import (
    ArgumentCorrectness,
    BaseMetric,
    GoalCompletionRate,
    StepEfficiency,
    ToolSelectionAccuracy,
)
from openeval.models import AgentTrace, EvalTestCase, MetricResult, TraceStep
from openeval.runner import run_eval, run_suite

DATA = Path(__file__).parent / "data"
FIXTURA = Path(sys.executable).parent / "fixtura"


@pytest.mark.skipif(sys.version_info < (3, 11), reason="fixtura itself needs Python 3.11")
def test_fixtura_eval_runs_against_this_package() -> None:
    # fixtura 2.0.1 imports openeval.runner.run_eval and four metric classes, then prints what
    # run_eval returned; an ImportError is printed as "Error: ..." and exits 0, so read stdout.
    done = subprocess.run(
        [str(FIXTURA), "eval", str(DATA / "adapters" / "fixtura" / "checkout.trace")],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Error:" not in done.stdout, done.stdout
    for name in ("Tool Selection Accuracy", "Argument Correctness", "Step Efficiency",
                 "Goal Completion Rate"):
        assert f"'{name}': MetricResult(" in done.stdout


def quickstart() -> tuple[AgentTrace, EvalTestCase]:
    """The core-engine example of 0.2.1's README."""
    test_case = EvalTestCase(
        task_id="quickstart-1", input="Search for weather in Tokyo",
        expected_tool_calls=[{"tool": "search", "args": {"query": "weather in Tokyo"}}],
        expected_final_state={"searched": True}, expected_output_contains=[], max_steps=5,
        timeout_seconds=10.0,
    )
    trace = AgentTrace(
        task_id="quickstart-1", input="Search for weather in Tokyo",
        steps=[TraceStep(step_id=1, type="tool_call", content="", tool_name="search",
                         tool_args={"query": "weather in Tokyo"},
                         tool_result="85 degrees and sunny", timestamp=0.0)],
        final_output="The weather in Tokyo is 85 degrees and sunny.",
        actual_state={"searched": True}, metadata={},
    )
    return trace, test_case


def test_run_eval_returns_the_021_shape_and_warns() -> None:
    trace, test_case = quickstart()
    metrics = [ToolSelectionAccuracy(), ArgumentCorrectness(), StepEfficiency(),
               GoalCompletionRate()]
    with pytest.warns(DeprecationWarning, match="run_eval is the openeval-core 0.2.1 API"):
        result = run_eval(trace, test_case, metrics)
    assert result["task_id"] == "quickstart-1"
    assert list(result["metrics"]) == ["Tool Selection Accuracy", "Argument Correctness",
                                       "Step Efficiency", "Goal Completion Rate"]
    assert all(r.passed for r in result["metrics"].values())
    assert ToolSelectionAccuracy().explain(result["metrics"]["Tool Selection Accuracy"]) == (
        "tool_selection_accuracy: expected tool calls made: 1/1 Score: 1.00."
    )


def test_a_021_base_metric_subclass_warns_and_still_scores() -> None:
    with pytest.warns(DeprecationWarning, match="BaseMetric"):
        class Shouting(BaseMetric):
            name = "Shouting"

            def score(self, trace: AgentTrace, test_case: EvalTestCase) -> MetricResult:
                loud = trace.final_output.isupper()
                return MetricResult(self.name, 0.0 if loud else 1.0, not loud, "checked case")

        class Broken(BaseMetric):
            name = "Broken"

            def score(self, trace: AgentTrace, test_case: EvalTestCase) -> MetricResult:
                raise KeyError("oops")

    trace, test_case = quickstart()
    with pytest.warns(DeprecationWarning):
        result = run_eval(trace, test_case, [Shouting(), Broken()])
    assert result["metrics"]["Shouting"].passed is True
    broken = result["metrics"]["Broken"]
    assert (broken.passed, broken.details) == (False, "Metric raised an error: 'oops'")


def test_run_suite_with_metric_objects_is_the_021_form() -> None:
    with pytest.warns(DeprecationWarning, match="run_suite"):
        results = run_suite(DATA / "suites" / "legacy_021", [ToolSelectionAccuracy(),
                                                             GoalCompletionRate()])
    assert sorted(results) == ["lookup", "refund"]
    refund = results["refund"]["metrics"]
    assert refund["Goal Completion Rate"].passed is False
    assert refund["Tool Selection Accuracy"].metric_name == "tool_selection_accuracy"
