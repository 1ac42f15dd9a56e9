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
