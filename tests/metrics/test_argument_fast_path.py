"""argument_correctness's fast path gives what the full pairing gives, and refuses what it
refuses (tests/data/metrics/fast_path/argument_correctness.json).

The metric first tries to match every expected call with the first executed call left that
carries all its values; only when that fails does it solve the full assignment
(:func:`~openeval.metrics.arguments.pair_calls`). A run that does what the case says then
costs one comparison per call. The fast path may never answer where the pairing would not:
past the comparison bound the pairing refuses, and so must the metric.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openeval.errors import OpenEvalError
from openeval.metrics.arguments import ArgumentCorrectness, ExpectedArgs, pair_calls
from openeval.models import AgentTrace, EvalTestCase, TraceStep

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[1] / "data" / "metrics" / "fast_path" / "argument_correctness.json")
    .read_text("utf-8"))["cases"]


def _scaled(calls: list[dict[str, Any]], case: dict[str, Any]) -> list[dict[str, Any]]:
    copies = [{**args, "i": i} for i in range(case.get("scale", 1)) for args in calls]
    return copies[::-1] if case.get("reverse") else copies


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_fast_path_agrees_with_the_pairing(case: dict[str, Any]) -> None:
    expected = _scaled(case["expected"], {**case, "reverse": False})
    executed = _scaled(case["executed"], case)
    test_case = EvalTestCase(task_id="t", expected_tool_calls=[
        {"tool": "f", "args": args} for args in expected])
    trace = AgentTrace(task_id="t", steps=[
        TraceStep(step_id=i + 1, type="tool_call", tool_name="f", tool_args=args)
        for i, args in enumerate(executed)])
    rows = [ExpectedArgs(args, f"expected_tool_calls[{i}].args")
            for i, args in enumerate(expected)]
    total = sum(len(args) for args in expected)
    try:
        pairing: float | str = pair_calls(rows, executed).matched / total
    except OpenEvalError as exc:
        pairing = str(exc)
    try:
        found: float | str = ArgumentCorrectness().measure(trace, test_case).score
    except OpenEvalError as exc:
        found = str(exc)
    assert found == pairing
