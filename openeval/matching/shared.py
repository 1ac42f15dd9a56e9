"""The assignment of executed to expected calls that the call metrics read, for a case whose
expected calls carry order or count keys (:mod:`openeval.matching.constraints`).

:func:`case_match` is the one ``trajectory_match`` judges: found under the case's
``trajectory`` (or, without one, the ``superset`` mode with ``superset`` arguments: every
expected call made with its expected values, extra calls allowed), every edge and count
honoured. ``tool_selection_accuracy`` and ``argument_correctness`` read the same assignment
whenever it meets every rule (:func:`counts_match`); when it does not, they read the one that
meets the counts in any order, since order is the trajectory's to judge, not theirs.

The scorer hands every metric of a case the same trace object, so the last answers are kept
and each search runs once per trace and case.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from threading import Lock

from openeval.matching.constraints import uses_constraints
from openeval.matching.trajectory import TrajectoryMatch, TrajectorySpec, match_trajectory
from openeval.models import EvalTestCase, TraceStep

DEFAULT_SPEC = TrajectorySpec(mode="superset", args="superset")
"""The rules of a case with order or count keys but no ``trajectory`` object."""

_lock = Lock()
_last: dict[bool, tuple[Sequence[TraceStep], EvalTestCase, TrajectoryMatch]] = {}


def case_spec(test_case: EvalTestCase) -> TrajectorySpec:
    """Return the trajectory rules the assignment of ``test_case`` is found under."""
    if test_case.trajectory is None:
        return DEFAULT_SPEC
    return TrajectorySpec.from_json(test_case.trajectory)


def _kept(steps: Sequence[TraceStep], test_case: EvalTestCase, which: bool,
          ) -> TrajectoryMatch | None:
    last = _last.get(which)
    if last is not None and last[0] is steps and last[1] is test_case:
        return last[2]
    return None


def _keep(steps: Sequence[TraceStep], test_case: EvalTestCase, which: bool,
          found: TrajectoryMatch) -> TrajectoryMatch:
    with _lock:
        _last[which] = (steps, test_case, found)
    return found


def case_match(steps: Sequence[TraceStep], test_case: EvalTestCase) -> TrajectoryMatch | None:
    """Return the assignment of ``steps`` to the case's expected calls under every rule, or
    None when the case uses no order or count key (each metric then pairs calls as always)."""
    if not uses_constraints(test_case.expected_tool_calls):
        return None
    found = _kept(steps, test_case, True)
    if found is None:
        found = _keep(steps, test_case, True, match_trajectory(
            steps, test_case.expected_tool_calls, case_spec(test_case)))
    return found


def counts_match(steps: Sequence[TraceStep], test_case: EvalTestCase) -> TrajectoryMatch | None:
    """Return the assignment ``tool_selection_accuracy`` and ``argument_correctness`` read:
    :func:`case_match`'s when it meets every rule, else one meeting the counts in any order
    (None when the case uses no order or count key)."""
    full = case_match(steps, test_case)
    if full is None or full.matched:
        return full
    found = _kept(steps, test_case, False)
    if found is None:
        spec = replace(case_spec(test_case), mode="superset")
        found = _keep(steps, test_case, False, match_trajectory(
            steps, test_case.expected_tool_calls, spec, edges=False))
    return found
