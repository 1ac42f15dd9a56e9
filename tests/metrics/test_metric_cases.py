"""Every metric against the tables of cases in ``tests/data/metrics/<metric name>.json``.

A case is a JSON object: ``id``; ``steps`` in a compact form (see :func:`expand_step`); optional
``final_output``, ``actual_state``, ``initial_state``, ``messages``, ``metadata``; ``testcase``
(EvalTestCase fields, ``task_id`` optional); and the expected ``score``, ``passed`` (true, false
or null for n.a.) and ``details`` (a substring the details line must contain). A case may also
give what the result's structured data holds: ``alignment`` (``[expected index, step id,
status]`` per row), ``first_divergence`` (its ``[expected index, step id, status]``),
``differences`` (``[where, expected, got]`` of the first divergence's row), ``notes``, and
``turn_records`` (``[user, passed, [metric or check name, ...]]`` per turn entry, the shape of
docs/semantics.md#per-turn-expectations); ``"alignment": []`` says the data holds no alignment.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson
import pytest

from openeval.jsonio import read_json_file
from openeval.metrics import get_metric, metric_names
from openeval.models import AgentTrace, EvalTestCase, Message, TraceStep
from openeval.results.records import CheckSpec
from openeval.scoring import score
from openeval.scoring.plan import CasePlan

DATA = Path(__file__).resolve().parents[1] / "data" / "metrics"

# Compact step keys -> TraceStep fields. The first key present of the "kind" keys sets the type.
_KINDS = {"call": "tool_call", "think": "thought", "result": "tool_result", "out": "output"}
_FIELDS = {"args": "tool_args", "denied": "denied", "ts": "timestamp", "ms": "latency_ms",
           "div": "divergent", "id": "step_id", "turn": "turn", "error": "error"}


def expand_step(index: int, compact: dict[str, Any]) -> TraceStep:
    """Return the TraceStep that a compact step such as ``{"call": "search", "args": {}}`` means.

    ``call``/``think``/``result``/``out`` give the step type and its tool name or text; ``args``,
    ``denied``, ``error``, ``turn``, ``ts`` (timestamp), ``ms`` (latency_ms), ``div`` (divergent)
    and ``id`` (step_id, default: position + 1) fill the rest.
    """
    kinds = [key for key in compact if key in _KINDS]
    assert len(kinds) == 1, f"step {index}: give exactly one of {sorted(_KINDS)}: {compact}"
    kind = kinds[0]
    values: dict[str, Any] = {"step_id": index + 1, "type": _KINDS[kind]}
    if kind == "call":
        values["tool_name"] = compact[kind]
    else:
        values["content"] = compact[kind]
    for key, value in compact.items():
        if key == kind:
            continue
        assert key in _FIELDS, f"step {index}: unknown compact key {key!r}"
        values[_FIELDS[key]] = value
    return TraceStep(**values)


def _load_cases() -> list[Any]:
    params = []
    for path in sorted(DATA.glob("*.json")):
        metric = path.stem
        for case in read_json_file(path):
            params.append(pytest.param(metric, case, id=f"{metric}/{case['id']}"))
    return params


CASES = _load_cases()


def test_every_metric_has_a_case_file() -> None:
    assert sorted(p.stem for p in DATA.glob("*.json")) == sorted(metric_names())


def case_inputs(case: dict[str, Any]) -> tuple[AgentTrace, EvalTestCase]:
    """Return the trace and the test case a case row describes."""
    trace = AgentTrace(
        task_id="case",
        steps=[expand_step(i, s) for i, s in enumerate(case["steps"])],
        final_output=case.get("final_output", ""),
        actual_state=case.get("actual_state", {}),
        initial_state=case.get("initial_state"),
        messages=[Message.from_dict(m) for m in case.get("messages", [])],
        metadata=case.get("metadata", {}),
        signals=case.get("signals"),
    )
    return trace, EvalTestCase.from_dict({"task_id": "case", **case.get("testcase", {})})


@pytest.mark.parametrize(("metric_name", "case"), CASES)
def test_metric_case(metric_name: str, case: dict[str, Any]) -> None:
    trace, test_case = case_inputs(case)
    result = get_metric(metric_name).score(trace, test_case)
    assert result.metric_name == metric_name
    assert result.score == pytest.approx(case["score"], abs=1e-9), result.details
    assert result.passed is case["passed"], result.details
    assert case["details"] in result.details
    assert "\n" not in result.details
    # Scoring is pure: the same input gives the same result again.
    assert get_metric(metric_name).score(trace, test_case) == result
    check_data(get_metric(metric_name).measure(trace, test_case).data, case)


@pytest.mark.parametrize(("metric_name", "case"), CASES)
def test_one_plan_scores_every_trace_alike(metric_name: str, case: dict[str, Any]) -> None:
    # A plan compiles the case once for every trace it scores: forms built on another trace
    # first must give the same result as the metric measuring the case alone.
    trace, test_case = case_inputs(case)
    alone = get_metric(metric_name).measure(trace, test_case)
    # Built by hand: some cases are ones compile_plan refuses (a threshold a verdict ignores).
    plan = CasePlan(test_case, (CheckSpec(kind=metric_name, name=metric_name, family="metric"),))
    other = AgentTrace(task_id="case", steps=[expand_step(0, {"call": "other", "args": {}})])
    score(other, plan)
    (found,) = score(trace, plan)
    assert bool(found.scores) is alone.applicable, found.details
    assert found.details == alone.details
    if alone.applicable:
        assert found.scores[0].value == alone.score
        assert dict(found.data) == dict(alone.data)


def check_data(data: Mapping[str, Any], case: dict[str, Any]) -> None:
    """Assert the structured data a case expects (see the module docstring)."""
    rows = data.get("alignment", [])
    if "alignment" in case:
        assert [[r["expected"], r["step_id"], r["status"]] for r in rows] == case["alignment"]
    first = data.get("first_divergence")
    if "first_divergence" in case:
        assert first is not None, data
        assert [first["expected"], first["step_id"], first["status"]] == case["first_divergence"]
    if "differences" in case:
        assert first is not None, data
        found = rows[first["row"]]["differences"]
        assert [[d["where"], d["expected"], d["got"]] for d in found] == case["differences"]
    if "notes" in case:
        assert data.get("notes", []) == case["notes"]
    if "turn_records" in case:
        found = [[t["user"], t["passed"], [r.get("metric", r.get("check")) for r in t["results"]]]
                 for t in data["turns"]]
        assert found == case["turn_records"]
        for turn in data["turns"]:
            assert set(turn) <= {"user", "passed", "results", "why"}
            assert ("why" in turn) is (turn["passed"] is not True)
            for sub in turn["results"]:
                assert set(sub) in ({"metric", "passed", "details"}, {"check", "passed", "details"})
    orjson.dumps(data)  # JSON values only
