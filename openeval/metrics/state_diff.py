"""Did the agent change what it had to, and nothing else? (``state_diff``)"""

from __future__ import annotations

from openeval.errors import OpenEvalError
from openeval.matching.state import describe_row, diff_data, diff_state, read_state_spec
from openeval.metrics._common import join_bounded, plural
from openeval.metrics.base import Measurement, Metric, not_applicable
from openeval.metrics.registry import register_metric
from openeval.models import AgentTrace, EvalTestCase


@register_metric
class StateDiff(Metric):
    """The final state as a frame condition: the test case's ``state`` object.

    The state before the run (``state.initial``, else the trace's ``initial_state``) and after it
    (``state.final``, else the trace's ``actual_state``) are compared path by path (dotted,
    ``orders.1042.status``; a SQLite file reads as ``TABLE.KEY.COLUMN``). Every path in
    ``state.changes`` must have changed, to a value its expected value or matcher accepts;
    every other changed path (added, removed or changed) must match a glob of
    ``state.allowed``; nothing else may change.
    Score: 1.0 when all three hold, else 0.0.

    Passes when the changes are exactly the required and allowed ones. Fails otherwise; details
    name the unexpected changes (``2 unexpected changes: orders.1043.status: "paid" ->
    "refunded"; users.7.email: removed``) and the required changes that did not happen, and
    the result's data holds the diff (path, before, after, verdict), bounded. Not applicable
    when the test case has no ``state``. A ``state`` with no initial state and a trace without
    one is an error: no diff can be made.
    """

    name = "state_diff"
    default_threshold = 1.0

    def not_applicable_to(self, test_case: EvalTestCase) -> Measurement | None:
        """Return "not applicable" when the test case has no ``state``."""
        return not_applicable("no state in the test case") if test_case.state is None else None

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return 1.0 when only the required and allowed paths changed, as required."""
        blank = self.not_applicable_to(test_case)
        if blank is not None:
            return blank
        spec = read_state_spec(test_case.state)
        before = spec.initial if spec.initial is not None else trace.initial_state
        if before is None:
            raise OpenEvalError(
                "state_diff: no initial state: give the test case's state.initial, or record "
                "the trace's initial_state")
        after = spec.final if spec.final is not None else trace.actual_state
        rows = diff_state(before, after, spec)
        unexpected = [row for row in rows if row.verdict == "unexpected"]
        missing = [row for row in rows if row.verdict == "missing"]
        required = sum(1 for row in rows if row.verdict == "required")
        allowed = sum(1 for row in rows if row.verdict == "allowed")
        if not unexpected and not missing:
            return Measurement(1.0, (
                f"state changed as required: {plural(required, 'required change')}, "
                f"{plural(allowed, 'allowed change')}, nothing else"), data=diff_data(rows))
        parts = [describe_row(row) for row in unexpected]
        if parts:
            parts[0] = f"{plural(len(unexpected), 'unexpected change')}: {parts[0]}"
        parts += [f"{row.path}: {row.why}" + (
                      f" ({describe_row(row).split(': ', 1)[1]})" if row.why.startswith("changed")
                      else "")
                  for row in missing]
        return Measurement(0.0, join_bounded(parts), data=diff_data(rows))
