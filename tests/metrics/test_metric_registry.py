"""The registry holds the built-in metrics, in table order, each documenting when it passes,
fails and is not applicable."""

from __future__ import annotations

import re

import pytest

import openeval.metrics as metrics_pkg
from openeval.errors import OpenEvalError, TestCaseError
from openeval.metrics import Metric, all_metrics, get_metric, metric_names
from openeval.models import AgentTrace, EvalTestCase, MetricResult

# The table of docs/semantics.md#metrics: class name -> metric name, in registry order.
METRIC_TABLE = [
    ("ToolSelectionAccuracy", "tool_selection_accuracy"),
    ("ArgumentCorrectness", "argument_correctness"),
    ("StepEfficiency", "step_efficiency"),
    ("GoalCompletionRate", "goal_completion_rate"),
    ("DenialRecoveryRate", "denial_recovery_rate"),
    ("DivergenceScore", "divergence_score"),
    ("FixtureFreshness", "fixture_freshness"),
    ("OutputContains", "output_contains"),
    ("StepBudget", "step_budget"),
]
DEFAULT_LINES = {
    "tool_selection_accuracy": 1.0, "argument_correctness": 1.0, "step_efficiency": 0.5,
    "goal_completion_rate": 1.0, "denial_recovery_rate": 1.0, "divergence_score": 1.0,
    "fixture_freshness": None, "output_contains": 1.0, "step_budget": 1.0,
    "trajectory_match": 1.0, "state_diff": 1.0, "turn_expectations": 1.0,
}
SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")


def test_registry_lists_the_built_in_metrics_in_table_order() -> None:
    assert metric_names()[: len(METRIC_TABLE)] == [name for _, name in METRIC_TABLE]


@pytest.mark.parametrize(("class_name", "name"), METRIC_TABLE)
def test_metric_class_is_exported_and_named(class_name: str, name: str) -> None:
    cls = getattr(metrics_pkg, class_name)
    assert issubclass(cls, Metric)
    assert cls.name == name
    assert isinstance(get_metric(name), cls)


@pytest.mark.parametrize("metric", all_metrics(), ids=lambda m: m.name)
def test_every_metric_documents_when_it_passes_and_fails(metric: Metric) -> None:
    doc = type(metric).__doc__ or ""
    assert SNAKE.match(metric.name)
    assert metric.default_threshold == DEFAULT_LINES[metric.name]
    # The docstring says when the metric passes, fails, and is (or is never) not applicable.
    for word in ("Passes", "Fails", "pplicable"):
        assert word in doc, f"{metric.name} docstring lacks {word!r}"


@pytest.mark.parametrize("metric", all_metrics(), ids=lambda m: m.name)
def test_every_metric_scores_an_empty_trace(metric: Metric) -> None:
    result = metric.score(AgentTrace(task_id="t"), EvalTestCase(task_id="t"))
    assert isinstance(result, MetricResult)
    assert result.metric_name == metric.name
    assert 0.0 <= result.score <= 1.0
    assert result.details and "\n" not in result.details
    # With nothing to judge, only the two never-n.a. metrics give a verdict.
    never_na = {"denial_recovery_rate", "divergence_score"}
    assert (result.passed is None) == (metric.name not in never_na)


def test_unknown_metric_lists_the_valid_names() -> None:
    with pytest.raises(OpenEvalError, match="tool_selection_accuracy"):
        get_metric("tool_selection")


@pytest.mark.parametrize(
    ("calls", "where"),
    [
        (["search"], "expected_tool_calls[0]"),
        ([{"tool": "search"}, {"args": {}}], "expected_tool_calls[1].tool"),
        ([{"tool": ""}], "expected_tool_calls[0].tool"),
        ([{"tool": "search", "args": ["q"]}], "expected_tool_calls[0].args"),
    ],
)
@pytest.mark.parametrize("name", ["tool_selection_accuracy", "argument_correctness"])
def test_malformed_expected_call_is_a_test_case_error(
    name: str, calls: list[object], where: str
) -> None:
    test_case = EvalTestCase(task_id="t", expected_tool_calls=calls)  # type: ignore[arg-type]
    with pytest.raises(TestCaseError) as caught:
        get_metric(name).score(AgentTrace(task_id="t"), test_case)
    assert caught.value.location == where


def test_details_stay_one_bounded_line_on_a_huge_failing_trace() -> None:
    from openeval.models import Message, TraceStep

    steps = [
        TraceStep(step_id=i, type="tool_call", tool_name=f"tool_{i % 50}",
                  tool_args={"text": "x" * 500, "n": i}, denied=i % 3 == 0, divergent=i == 7,
                  turn=1)
        for i in range(400)
    ]
    trace = AgentTrace(task_id="t", steps=steps, final_output="",
                       messages=[Message("user", "hi"), Message("assistant", "", turn=1)],
                       actual_state={f"k{i}": "y" * 500 for i in range(100)},
                       metadata={"verdict": "z" * 1000})
    test_case = EvalTestCase(
        task_id="t",
        expected_tool_calls=[{"tool": f"want_{i}", "args": {"text": "w" * 500}} for i in range(100)]
        + [{"tool": "tool_1", "args": {"text": "q" * 500, "n": "1"}}],
        expected_final_state={f"k{i}": "v" * 500 for i in range(100)},
        expected_output_contains=["s" * 500] * 50,
        max_steps=3, timeout_seconds=1, optimal_steps=2, trajectory={"mode": "strict"},
        turns=[{"user": 9, "expected_tool_calls": [{"tool": "x"}]}],
        state={"initial": {f"k{i}": "x" * 500 for i in range(100)},
               "changes": {f"k{i}": "w" * 500 for i in range(50)}},
    )
    for metric in all_metrics():
        result = metric.score(trace, test_case)
        assert result.passed is False, metric.name
        assert "\n" not in result.details
        assert len(result.details) <= 400, (metric.name, len(result.details))


def test_product_readme_quickstart_runs() -> None:
    from openeval.metrics import ArgumentCorrectness, ToolSelectionAccuracy
    from openeval.models import TraceStep

    test_case = EvalTestCase(
        task_id="quickstart-1", input="Search for weather in Tokyo",
        expected_tool_calls=[{"tool": "search", "args": {"query": "weather in Tokyo"}}],
        expected_final_state={"searched": True}, expected_output_contains=[],
        max_steps=5, timeout_seconds=10.0,
    )
    trace = AgentTrace(
        task_id="quickstart-1", input="Search for weather in Tokyo",
        steps=[TraceStep(step_id=1, type="tool_call", content="", tool_name="search",
                         tool_args={"query": "weather in Tokyo"},
                         tool_result="85 degrees and sunny", timestamp=0.0)],
        final_output="The weather in Tokyo is 85 degrees and sunny.",
        actual_state={"searched": True}, metadata={},
    )
    for metric in (ToolSelectionAccuracy(), ArgumentCorrectness()):
        result = metric.score(trace, test_case)
        assert (result.score, result.passed) == (1.0, True), result.details
