"""Drafting a test case from a known-good trace (``openeval snapshot``).

The draft pins down what a good run *did*: the tools it ran with their arguments, its final
state, and a step budget equal to its number of tool calls. It leaves the wording of the final
answer unchecked (``expected_output_contains`` stays empty), because model text changes from
run to run while tool calls and state should not; add the phrases that matter by hand.
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any

from openeval.models import AgentTrace, EvalTestCase


def expected_calls(trace: AgentTrace) -> list[dict[str, Any]]:
    """Return ``{"tool": name, "args": {...}}`` for each executed call (not denied, not failed).

    ``args`` is left out when the trace does not know the call's arguments as a JSON object.
    """
    calls: list[dict[str, Any]] = []
    for step in trace.tool_calls():
        if step.denied or step.error is not None or not step.tool_name:
            continue
        call: dict[str, Any] = {"tool": step.tool_name}
        if step.tool_args is not None:
            call["args"] = copy.deepcopy(step.tool_args)
        calls.append(call)
    return calls


def trace_reference(trace_path: Path, testcase_path: Path) -> str:
    """Return ``trace_path`` relative to the folder of ``testcase_path``, with ``/`` separators.

    This is the value of a test case's ``trace`` key, which is read relative to the test case.
    """
    base = testcase_path.resolve().parent
    relative = os.path.relpath(trace_path.resolve(), base)
    return Path(relative).as_posix()


def draft_test_case(
    trace: AgentTrace, *, task_id: str | None = None, trace_ref: str | None = None
) -> EvalTestCase:
    """Return a test case that the given known-good ``trace`` passes.

    ``task_id`` defaults to the trace's; ``trace_ref`` becomes the case's ``trace`` key (None
    leaves it unset). ``max_steps`` is the trace's number of tool calls, denied ones included;
    when some calls were denied or failed (so they are not expected), ``optimal_steps`` says the
    trace's own count is the efficient one.
    """
    expected = expected_calls(trace)
    calls = len(trace.tool_calls())
    return EvalTestCase(
        task_id=task_id or trace.task_id,
        input=trace.input,
        expected_tool_calls=expected,
        expected_final_state=copy.deepcopy(trace.actual_state),
        expected_output_contains=[],
        max_steps=calls,
        optimal_steps=calls if calls != len(expected) else None,
        trace=trace_ref,
    )


def case_document(case: EvalTestCase) -> dict[str, Any]:
    """Return the JSON object to write for ``case``: its fields, without the unset optional ones.

    Keys whose value is None, or an empty ``thresholds``, ``checks`` or ``denied_when``, are
    left out so the file stays short; they load back to the same defaults.
    """
    document = case.to_dict()
    return {
        key: value
        for key, value in document.items()
        if value is not None and not (key in _EMPTY_LEFT_OUT and not value)
    }


_EMPTY_LEFT_OUT = ("thresholds", "checks", "denied_when")
