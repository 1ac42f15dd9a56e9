"""The scorer's marks on results: a pass line of 0 is legitimate but marked report only
(tests/data/scoring/report_only_cases.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openeval.models import AgentTrace, EvalTestCase, TraceStep
from openeval.scoring import compile_plan
from openeval.scoring.score import score

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[1] / "data" / "scoring" / "report_only_cases.json").read_text()
)["cases"]


@pytest.mark.parametrize("row", CASES, ids=[row["id"] for row in CASES])
def test_report_only(row: dict[str, Any]) -> None:
    steps = [TraceStep(step_id=i, type="tool_call", tool_name=tool, tool_args=args)
             for i, (tool, args) in enumerate(row["steps"], 1)]
    trace = AgentTrace(task_id="t", steps=steps, final_output="no refund today")
    results = score(trace, compile_plan(EvalTestCase.from_dict({"task_id": "t",
                                                                 **row["testcase"]})))
    found = {r.name: [r.verdict, r.report_only] for r in results}
    assert found == row["results"]
    for result in results:  # the mark is in the record, where every report reads it
        assert ("report_only" in result.to_dict().get("data", {})) is result.report_only
