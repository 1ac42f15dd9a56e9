"""Does the final answer say what it must? (``output_contains``)"""

from __future__ import annotations

from openeval.metrics._common import join_bounded
from openeval.metrics.base import Measurement, Metric, not_applicable
from openeval.models import AgentTrace, EvalTestCase
from openeval.values import short_json


class OutputContains(Metric):
    """Share of the expected substrings found in the trace's ``final_output``.

    Matching is exact and case-sensitive; each listed substring counts once, in list order.

    Passes when the score reaches the pass line (default 1.0: every substring present).
    Fails when one is absent; details quote the missing ones.
    Not applicable when ``expected_output_contains`` is empty.
    """

    name = "output_contains"
    default_threshold = 1.0

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return the share of expected substrings present in the final output."""
        wanted = test_case.expected_output_contains
        if not wanted:
            return not_applicable("no expected output substrings")
        text = trace.final_output
        missing = [part for part in wanted if part not in text]
        total = len(wanted)
        if not missing:
            return Measurement(1.0, f"expected substrings found in final output: {total}/{total}")
        found = total - len(missing)
        where = "final output is empty" if not text else f"found {found}/{total}"
        quoted = join_bounded([short_json(part) for part in missing], sep=", ")
        return Measurement(found / total, f"missing in final output: {quoted} ({where})")
