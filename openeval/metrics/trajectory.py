"""Did the agent call the tools in the expected shape? (``trajectory_match``)"""

from __future__ import annotations

from openeval.matching.alignment import alignment_data, trajectory_rows
from openeval.matching.calls import ExpectedCall
from openeval.matching.shared import case_match
from openeval.matching.trajectory import TrajectorySpec, compile_calls, match_trajectory
from openeval.metrics._common import with_unrecorded_note
from openeval.metrics.arguments import constrained
from openeval.metrics.base import Measurement, Metric, not_applicable
from openeval.metrics.compiled import CompiledCase
from openeval.models import AgentTrace, EvalTestCase

_NEED_EXPECTED = ("in_order", "superset")


class TrajectoryMatching(Metric):
    """Whether the executed tool calls match ``expected_tool_calls`` as the test case's
    ``trajectory`` object asks (docs/semantics.md#trajectory-matching).

    ``mode`` is ``strict`` (same calls, same order; calls of one turn in any order),
    ``in_order`` (the default: expected calls in order, others may come between),
    ``unordered`` (same calls, any order), ``superset`` (every expected call made, extras
    allowed) or ``subset`` (every call made was expected). ``args`` (``exact``, ``superset``
    the default, ``subset``, ``ignore``), ``per_tool``, ``ignore_args`` and ``defaults`` say how
    arguments compare; expected values may be argument matchers. Denied calls and calls that
    failed (``error`` set) were not made, unless ``include_denied``. The pairing is optimal:
    the case passes whenever any pairing of calls satisfies the mode.
    Score: 1.0 when the calls match, else 0.0.

    Passes when the calls match (extra calls the mode allows are noted). Fails otherwise;
    details name the first divergence (the call, what was expected there and, for arguments,
    the path with both values), then the missing and extra calls (and, for a trace recorded
    without message content, that it could not show calls and how to record them), and the
    result's data holds the expected and executed calls side by side
    (:mod:`openeval.matching.alignment`). Not applicable when the test case has no
    ``trajectory``, or when its mode is ``in_order`` or ``superset`` and it expects no calls
    (nothing to look for).

    Expected calls may carry ``id``, ``after`` and ``uses_result_of`` (a partial order, honoured
    in every mode), and ``times`` / ``min_times`` / ``max_times`` / ``optional`` (counts): one
    exact search finds whether any assignment meets the mode, every edge and every count
    (:mod:`openeval.matching.solver`), and the details name the broken edge or count with its
    steps. ``uses_result_of`` on a trace that records no model turns is an error.
    """

    name = "trajectory_match"
    default_threshold = 1.0

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return 1.0 when the executed calls match the expected ones under the spec."""
        return self.measure_compiled(trace, CompiledCase(test_case))

    def measure_compiled(self, trace: AgentTrace, case: CompiledCase) -> Measurement:
        """:meth:`measure`, the spec read and the expected calls compiled once per case."""
        test_case = case.test_case
        if test_case.trajectory is None:
            return not_applicable("no trajectory in the test case")
        spec = case.once(_spec)
        if not test_case.expected_tool_calls and spec.mode in _NEED_EXPECTED:
            return not_applicable(f"no expected tool calls for {spec.mode} to look for")
        found = (case_match(trace.steps, test_case) if case.once(constrained) else None) or \
            match_trajectory(trace.steps, test_case.expected_tool_calls, spec,
                             calls=case.once(_calls))
        if found.matched:
            extra = sorted({trace.steps[p.executed].tool_name or "" for p in found.pairs
                            if p.expected is None and p.executed is not None
                            and p.reason.startswith("extra")})
            notes = [f"extra calls ({spec.mode} allows them): {', '.join(extra)}"] if extra else []
            return Measurement(1.0, found.details, data={"notes": notes} if notes else {})
        rows = trajectory_rows(trace.steps, test_case.expected_tool_calls, spec, found)
        return Measurement(0.0, with_unrecorded_note(found.details, 0.0, trace),
                           data=alignment_data(rows))


def _spec(test_case: EvalTestCase) -> TrajectorySpec:
    return TrajectorySpec.from_json(test_case.trajectory)


def _calls(test_case: EvalTestCase) -> list[ExpectedCall]:
    return compile_calls(test_case.expected_tool_calls, _spec(test_case))
