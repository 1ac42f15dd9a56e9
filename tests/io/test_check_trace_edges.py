"""check_trace at its edges: within both limits it builds no budget, and past either it
raises what TraceBudget raises, word for word."""

from __future__ import annotations

import pytest

from openeval.errors import TraceFormatError
from openeval.io.limits import ReadLimits, TraceBudget, check_trace, trace_chars
from openeval.models import AgentTrace, TraceStep

TRACE = AgentTrace(task_id="t", input="abc", final_output="de",
                   steps=[TraceStep(step_id=i, type="thought", content="xy") for i in (1, 2)])
CHARS = trace_chars(TRACE)  # 3 + 2 + 2 * 2

EDGES = {
    "both at the limit": ReadLimits(max_steps=2, max_text_chars=CHARS),
    "one step over": ReadLimits(max_steps=1, max_text_chars=CHARS),
    "one character over": ReadLimits(max_steps=2, max_text_chars=CHARS - 1),
    "both over": ReadLimits(max_steps=1, max_text_chars=CHARS - 1),
    "defaults": ReadLimits(),
}


def _raised(run: object) -> str | None:
    try:
        run()  # type: ignore[operator]
    except TraceFormatError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize("limits", EDGES.values(), ids=list(EDGES))
def test_check_trace_says_what_the_budget_says(limits: ReadLimits) -> None:
    assert CHARS == 9
    found = _raised(lambda: check_trace(TRACE, limits, "f.jsonl"))
    budget = TraceBudget(limits, "f.jsonl")
    assert found == _raised(lambda: budget.add(CHARS, steps=len(TRACE.steps)))


@pytest.mark.parametrize("limits", EDGES.values(), ids=list(EDGES))
@pytest.mark.parametrize("size", [CHARS, CHARS + 40, 10**9],
                         ids=["text only", "text and keys", "huge"])
def test_the_size_of_the_text_read_changes_no_verdict(limits: ReadLimits, size: int) -> None:
    # A size is that of the JSON text the trace came from: never below its characters.
    assert _raised(lambda: check_trace(TRACE, limits, "f.json", size=size)) == _raised(
        lambda: check_trace(TRACE, limits, "f.json"))
