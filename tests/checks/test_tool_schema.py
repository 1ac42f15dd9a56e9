"""``tool_schema_conformance`` against its cases in ``tests/data/checks/tool_schema.json``.

A case's trace carries the ``tool_definitions`` and the calls (compact steps); the case
expects a ``verdict`` and a phrase of the score's comment.
"""

from __future__ import annotations

from check_cases import area_tests, load

from openeval.checks import tool_schema_conformance
from openeval.models import AgentTrace, TraceStep
from openeval.scores import verdict

(
    test_case,
    test_none_means_the_default,
    test_random_input,
    test_huge_input,
    test_every_check_passes_and_fails,
) = area_tests("tool_schema")


def test_the_cases_reach_every_verdict() -> None:
    assert {case["verdict"] for case in load("tool_schema")["cases"]} == {"pass", "fail", "n.a."}


def test_a_huge_schema_is_refused_not_used() -> None:
    wide = {"type": "object", "properties": {f"p{n}": {"type": "string"} for n in range(5000)}}
    trace = AgentTrace(task_id="t", steps=[TraceStep(1, "tool_call", tool_name="a", tool_args={})],
                       tool_definitions=[{"name": "a", "parameters": wide}])
    scores = tool_schema_conformance(trace)
    assert verdict(scores) == "fail"
    assert "bytes, above the 65,536 allowed" in (scores[0].comment or "")
