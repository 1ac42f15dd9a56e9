"""``tool_schema_conformance`` against the table in ``tests/data/checks/tool_schema.json``.

A row is ``id``; ``definitions`` (the trace's ``tool_definitions``); ``calls`` (``[tool, args]``
or ``[tool, args, "denied"]``); optional ``settings``; the expected ``verdict`` (``pass``,
``fail`` or ``n.a.``) and ``comment``, a phrase the score's comment must hold.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from openeval.checks import tool_schema_conformance
from openeval.jsonio import read_json_file
from openeval.models import AgentTrace, TraceStep
from openeval.scores import verdict

ROWS = read_json_file(Path(__file__).resolve().parents[1] / "data" / "checks" / "tool_schema.json")


def _trace(row: dict[str, Any]) -> AgentTrace:
    steps = [
        TraceStep(n + 1, "tool_call", tool_name=call[0], tool_args=call[1],
                  denied=len(call) > 2 and call[2] == "denied")
        for n, call in enumerate(row["calls"])
    ]
    return AgentTrace(task_id=row["id"], steps=steps, tool_definitions=row["definitions"])


@pytest.mark.parametrize("row", [pytest.param(r, id=r["id"]) for r in ROWS])
def test_tool_schema_case(row: dict[str, Any]) -> None:
    scores = tool_schema_conformance(_trace(row), **row.get("settings", {}))
    assert verdict(scores) == row["verdict"], scores
    assert row["comment"] in (scores[0].comment or "")
    assert scores == tool_schema_conformance(_trace(row), **row.get("settings", {}))


def test_the_table_has_every_verdict() -> None:
    assert {row["verdict"] for row in ROWS} == {"pass", "fail", "n.a."}


def test_a_huge_schema_is_refused_not_used() -> None:
    wide = {"type": "object", "properties": {f"p{n}": {"type": "string"} for n in range(5000)}}
    trace = AgentTrace(task_id="t", steps=[TraceStep(1, "tool_call", tool_name="a", tool_args={})],
                       tool_definitions=[{"name": "a", "parameters": wide}])
    scores = tool_schema_conformance(trace)
    assert verdict(scores) == "fail"
    assert "bytes, above the 65,536 allowed" in (scores[0].comment or "")
