"""``tool_selection_accuracy`` and ``argument_correctness`` on a case whose expected calls
carry order or count keys: both read the one assignment of :mod:`openeval.matching.shared`.

- Tool selection: the share of expected calls whose count holds (an entry without a count
  key: made once; ``optional``: at most once; ``times`` / ``min_times`` / ``max_times``: as
  written). Order is ``trajectory_match``'s to judge, not this metric's.
- Arguments: each (expected call, executed call) pair of the assignment scores the expected
  key-value pairs that call carries; an expected call left without a call (and not optional)
  is shown beside a spare call of its tool, when there is one, so the details say which value
  differs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openeval.matching.alignment import (
    AlignedCall,
    Difference,
    alignment_data,
    args_problem,
    trajectory_rows,
)
from openeval.matching.constraints import Constraints, read_constraints
from openeval.matching.shared import case_spec
from openeval.matching.trajectory import TrajectoryMatch
from openeval.metrics._common import expected_calls, join_bounded, with_unrecorded_note
from openeval.metrics.base import Measurement, not_applicable
from openeval.models import AgentTrace, EvalTestCase

_NO_ARGS: Mapping[str, Any] = {}


def _rules(test_case: EvalTestCase) -> Constraints:
    found = read_constraints(test_case.expected_tool_calls)
    assert found is not None  # counts_match answered, so the case has such keys
    return found


def _made(found: TrajectoryMatch, size: int) -> list[list[int]]:
    made: list[list[int]] = [[] for _ in range(size)]
    for entry, step in found.taken:
        made[entry].append(step)
    return made


def selection_by_rules(
    found: TrajectoryMatch, trace: AgentTrace, test_case: EvalTestCase
) -> Measurement:
    """Return ``tool_selection_accuracy`` from the shared assignment ``found``."""
    calls = expected_calls(test_case)
    rules = _rules(test_case)
    made = _made(found, len(calls))
    by_count = {b.entry: b.text for b in found.broken if b.kind == "count"}
    held = 0
    problems: list[str] = []
    for call in calls:
        e = call.position
        count, high = len(made[e]), rules.high[e]
        if rules.low[e] <= count and (high is None or count <= high):
            held += 1
        elif e in by_count:
            problems.append(by_count[e])
        else:
            problems.append(f"{call.tool}: not called" + _other_args(trace, found, call.tool))
    total = len(calls)
    head = f"expected tool calls made: {held}/{total}"
    if held == total:
        return Measurement(1.0, head)
    score = held / total
    rows = trajectory_rows(trace.steps, test_case.expected_tool_calls, case_spec(test_case),
                           found)
    return Measurement(score, with_unrecorded_note(join_bounded([head, *problems]), score, trace),
                       data=alignment_data(rows))


def _other_args(trace: AgentTrace, found: TrajectoryMatch, tool: str) -> str:
    """Return a note when a call of ``tool`` was made but taken by no expected call."""
    taken = {step for _, step in found.taken}
    spare = sum(1 for n, step in enumerate(trace.steps)
                if step.type == "tool_call" and step.tool_name == tool and n not in taken
                and not step.denied and step.error is None)
    return f" with the expected arguments ({spare} other {tool} call{'s' if spare != 1 else ''})" \
        if spare else ""


def arguments_by_rules(
    found: TrajectoryMatch, trace: AgentTrace, test_case: EvalTestCase
) -> Measurement:
    """Return ``argument_correctness`` from the shared assignment ``found``."""
    from openeval.metrics.arguments import ExpectedArgs

    calls = expected_calls(test_case)
    rules = _rules(test_case)
    made = _made(found, len(calls))
    taken = {step for _, step in found.taken}
    spare: dict[str, list[int]] = {}
    for n, step in enumerate(trace.steps):
        if (step.type == "tool_call" and n not in taken and not step.denied
                and step.tool_name is not None):
            spare.setdefault(step.tool_name, []).append(n)
    total = matched = 0
    problems: list[str] = []
    aligned: list[AlignedCall] = []
    for call in calls:
        if not call.args:
            continue
        e = call.position
        row = ExpectedArgs(call.args, f"expected_tool_calls[{e}].args")
        steps = made[e]
        if not steps and rules.low[e] == 0:
            continue  # an optional call not made: nothing to judge
        if not steps and spare.get(call.tool):
            steps = [spare[call.tool].pop(0)]
        size = len(row.items)
        if not steps:
            total += size
            problems.append(f"{call.tool}: not called")
            aligned.append(AlignedCall(e, None, call.tool, "missing", False))
            continue
        for n in steps:
            step = trace.steps[n]
            total += size
            broken = args_problem(step)
            if broken is not None:
                problems.append(f"{call.tool}: {broken}")
                aligned.append(AlignedCall(e, step.step_id, call.tool, "args differ", False,
                                           (Difference("arguments", "a JSON object", broken),)))
                continue
            args = step.tool_args or _NO_ARGS
            matched += row.weight(args)
            found_here = row.mismatches(args)
            problems.extend(f"{call.tool}.{m}" for m in found_here)
            aligned.append(AlignedCall(
                e, step.step_id, call.tool, "args differ" if found_here else "matched",
                not found_here, tuple(Difference.of(m) for m in found_here),
            ))
    if not total:
        return not_applicable("no expected arguments")
    head = f"expected argument values matched: {matched}/{total}"
    if matched == total:
        return Measurement(1.0, head)
    score = matched / total
    return Measurement(score, with_unrecorded_note(join_bounded([head, *problems]), score, trace),
                       data=alignment_data(aligned))
