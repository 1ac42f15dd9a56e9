"""The one assignment of executed to expected calls that the call metrics read, for a case
whose expected calls carry order or count keys (:mod:`openeval.matching.constraints`).

``trajectory_match``, ``tool_selection_accuracy`` and ``argument_correctness`` each judge such a
case from the same assignment: the one :func:`case_match` finds under the case's ``trajectory``
(or, without one, the ``superset`` mode with ``superset`` arguments: every expected call made
with its expected values, extra calls allowed). The scorer hands every metric of a case the
same trace object, so the last answer is kept and the search runs once per trace and case.
"""

from __future__ import annotations

from collections.abc import Sequence
from threading import Lock

from openeval.matching.constraints import uses_constraints
from openeval.matching.trajectory import TrajectoryMatch, TrajectorySpec, match_trajectory
from openeval.models import EvalTestCase, TraceStep

_lock = Lock()
_last: tuple[Sequence[TraceStep], EvalTestCase, TrajectoryMatch] | None = None

DEFAULT_SPEC = TrajectorySpec(mode="superset", args="superset")
"""The rules of a case with order or count keys but no ``trajectory`` object."""


def case_spec(test_case: EvalTestCase) -> TrajectorySpec:
    """Return the trajectory rules the assignment of ``test_case`` is found under."""
    if test_case.trajectory is None:
        return DEFAULT_SPEC
    return TrajectorySpec.from_json(test_case.trajectory)


def case_match(steps: Sequence[TraceStep], test_case: EvalTestCase) -> TrajectoryMatch | None:
    """Return the assignment of ``steps`` to the case's expected calls, or None when the case
    uses no order or count key (each metric then pairs calls as it always has)."""
    global _last
    if not uses_constraints(test_case.expected_tool_calls):
        return None
    last = _last
    if last is not None and last[0] is steps and last[1] is test_case:
        return last[2]
    found = match_trajectory(steps, test_case.expected_tool_calls, case_spec(test_case))
    with _lock:
        _last = (steps, test_case, found)
    return found
