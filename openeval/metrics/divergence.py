"""How far did a replayed run follow its recording? (``divergence_score``)"""

from __future__ import annotations

from openeval.metrics._common import plural, step_divergent
from openeval.metrics.base import Measurement, Metric, not_applicable
from openeval.models import AgentTrace, EvalTestCase


class DivergenceScore(Metric):
    """How far into the trace the first divergent step comes, as a share of all steps.

    Adapters mark ``divergent=True`` on the step where a replayed (branch) run left the
    recorded trajectory. Score: the 0-based position of the first such step over the number of
    steps, so a run that diverged at once scores 0.0 and one that never diverged scores 1.0.

    Passes when the score reaches the pass line (default 1.0: no divergence at all); lower the
    line in ``thresholds`` to accept late divergence. Fails when the run diverged earlier.
    A trace with no divergent step (or no steps) scores 1.0 and passes when its source records
    divergence (Fixtura replays, native JSON); on any other source it is not applicable, since
    nothing there could ever be marked divergent.
    """

    name = "divergence_score"
    default_threshold = 1.0

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return the first divergent step's position over the step count (1.0 when none)."""
        steps = trace.steps
        # Most traces hold no divergent step: one pass in C says so before the search.
        for position, step in enumerate(steps if any(map(step_divergent, steps)) else ()):
            if step.divergent:
                what = step.tool_name or step.type
                return Measurement(
                    position / len(steps),
                    f"first divergence at step {position + 1} of {len(steps)} ({what})",
                )
        if not trace.records("divergence"):
            return not_applicable("this trace's format records no replay divergence")
        return Measurement(1.0, f"no divergent step in {plural(len(steps), 'step')}")
