"""``openeval inspect TRACE --testcase C``: a test case's expected calls against a trace.

The rows are the same data the metrics write into ``CheckResult.data`` (proposals/0050): with a
``trajectory`` key, the alignment of ``trajectory_match`` (shown whether it matched or not);
without one, that of ``argument_correctness`` when an argument differs, else that of
``tool_selection_accuracy`` (names only). The test case is read as ``openeval run`` reads it
(its suite configuration merged, its denial rule applied to the trace).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openeval.matching.alignment import AlignedCall
    from openeval.models import AgentTrace


@dataclass(frozen=True)
class CaseAlignment:
    """What ``inspect --testcase`` prints: which metric's alignment, its details and rows."""

    metric: str
    details: str
    data: dict[str, Any]
    """``alignment`` (every row, never cut here), ``first_divergence`` when there is one."""


def case_alignment(trace: AgentTrace, testcase_path: Path) -> CaseAlignment:
    """Return the alignment of the test case at ``testcase_path`` against ``trace``.

    Raises OpenEvalError (TestCaseError naming the file and JSON path) when the test case
    cannot be read or holds a malformed ``trajectory`` or expected call.
    """
    from openeval.matching.alignment import selection_rows, trajectory_rows
    from openeval.matching.trajectory import TrajectorySpec, match_trajectory
    from openeval.metrics._common import expected_calls
    from openeval.metrics.arguments import ArgumentCorrectness
    from openeval.metrics.tool_selection import ToolSelectionAccuracy
    from openeval.suite.evaluate import RunPlan, read_case

    case = read_case(testcase_path, RunPlan())
    test_case = case.test_case
    if case.plan.denied_when:
        from openeval.scoring.denials import mark_denials

        trace = mark_denials(trace, case.plan.denied_when)
    if test_case.trajectory is not None:
        spec = TrajectorySpec.from_json(test_case.trajectory, source=testcase_path)
        found = match_trajectory(trace.steps, test_case.expected_tool_calls, spec)
        rows = trajectory_rows(trace.steps, test_case.expected_tool_calls, spec, found)
        return CaseAlignment("trajectory_match", found.details, _whole(rows))
    arguments = ArgumentCorrectness().measure(trace, test_case)
    if arguments.data.get("alignment"):
        return CaseAlignment("argument_correctness", arguments.details, dict(arguments.data))
    selection = ToolSelectionAccuracy().measure(trace, test_case)
    rows = selection_rows(trace.steps, [call.tool for call in expected_calls(test_case)])
    return CaseAlignment("tool_selection_accuracy", selection.details, _whole(rows))


def _whole(rows: list[AlignedCall]) -> dict[str, Any]:
    """Every row: a terminal can page through what a result file keeps bounded."""
    from openeval.matching.alignment import MAX_ROWS, alignment_data

    return alignment_data(rows, max_rows=max(MAX_ROWS, len(rows)))


@dataclass(frozen=True)
class CaseFrame:
    """A state diff or per-turn result ``inspect --testcase`` prints below the calls."""

    metric: str
    details: str
    data: dict[str, Any]
    """``state_diff`` rows or ``turns`` entries, as the metric writes them into results."""


FRAMED = ("state_diff", "turn_expectations")
"""The metrics whose data ``inspect --testcase`` draws as tables, in that order."""


def case_frames(trace: AgentTrace, testcase_path: Path) -> list[CaseFrame]:
    """Return the state diff and per-turn results of the test case at ``testcase_path`` on
    ``trace``, for those of its ``state`` and ``turns`` keys it sets (none: an empty list).

    A metric that cannot judge this trace (no initial state, no user turns) gives a frame with
    no data whose details say why; the calls above it are still worth printing.
    """
    from openeval.errors import OpenEvalError
    from openeval.metrics.registry import metric_class
    from openeval.suite.evaluate import RunPlan, read_case

    test_case = read_case(testcase_path, RunPlan()).test_case
    frames = []
    for name in FRAMED:
        try:
            found = metric_class(name)().measure(trace, test_case)
        except OpenEvalError as exc:
            frames.append(CaseFrame(name, str(exc), {}))
            continue
        if found.applicable:
            frames.append(CaseFrame(name, found.details, dict(found.data)))
    return frames
