"""Test cases compiled into plans: what runs, with which pass line, and what is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openeval.errors import TestCaseError
from openeval.models import EvalTestCase
from openeval.scoring import compile_plan

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[1] / "data" / "scoring" / "plan_cases.json").read_text()
)["cases"]


@pytest.mark.parametrize("row", CASES, ids=[row["id"] for row in CASES])
def test_plan(row: dict[str, Any]) -> None:
    test_case = EvalTestCase.from_dict(row["testcase"])
    if "error" in row:
        with pytest.raises(TestCaseError) as caught:
            compile_plan(test_case, metrics=row.get("run_metrics"), source="case.json")
        assert caught.value.source == "case.json"
        assert caught.value.location == row["error_at"]
        assert row["error"] in caught.value.message
        return
    plan = compile_plan(test_case, metrics=row.get("run_metrics"))
    if "names" in row:
        assert [spec.name for spec in plan.checks] == row["names"]
    lines = {spec.name: spec.threshold for spec in plan.checks}
    for name, line in row.get("thresholds", {}).items():
        assert lines[name] == line, name
    specs = {spec.name: spec for spec in plan.checks}
    for name, arguments in row.get("arguments", {}).items():
        # Converted once: JSON lists become the tuples a check's signature asks for.
        ready = specs[name].arguments
        assert ready is not None
        assert {k: list(v) if isinstance(v, tuple) else v for k, v in ready.items()} == arguments


PICKS = [
    ({}, None), ({}, ["step_budget", "tool_selection_accuracy"]),
    ({"metrics": ["step_budget", "output_contains"]}, None),
    ({"metrics": ["output_contains", "step_budget"]}, ["step_budget"]),
    ({"thresholds": {"step_efficiency": 0.25}}, None),
    ({"metrics": ["step_efficiency"], "thresholds": {"step_efficiency": 0.0}}, None),
    ({"checks": [{"check": "pii_leak"}]}, ["output_contains"]),
]


@pytest.mark.parametrize(("fields", "run"), PICKS)
def test_the_metric_specs_follow_the_selection_rule(fields: dict[str, Any],
                                                    run: list[str] | None) -> None:
    """Every path through the selection (every metric, the case's list, the run's list, both)
    gives the metrics both select, in registry order, each at its case or default line."""
    from openeval.metrics.registry import metric_class, metric_names

    case = EvalTestCase(task_id="t", **fields)
    plan = compile_plan(case, metrics=run)
    chosen = [name for name in metric_names()
              if (case.metrics is None or name in case.metrics) and (run is None or name in run)]
    found = [(s.name, s.threshold) for s in plan.checks if s.family == "metric"]
    assert found == [(name, case.thresholds.get(name, metric_class(name).default_threshold))
                     for name in chosen]
    assert [s.name for s in plan.checks if s.family != "metric"] == [
        entry.get("name", entry["check"]) for entry in case.checks]
