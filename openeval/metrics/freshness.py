"""Is the recorded fixture still true to the agent? (``fixture_freshness``)"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openeval.metrics.base import Measurement, Metric, not_applicable
from openeval.metrics.registry import register_metric
from openeval.models import AgentTrace, EvalTestCase
from openeval.values import short_json

_VERDICTS: dict[str, Measurement] = {
    "PASS": Measurement(1.0, "fingerprint verdict PASS: fixture matches the current agent",
                        passed=True),
    "DRIFTED": Measurement(
        0.0, "fingerprint verdict DRIFTED: the agent's tools or prompts changed since this "
        "fixture was recorded; re-record it", passed=False),
    "UNVERIFIED": Measurement(
        0.0, "fingerprint verdict UNVERIFIED: the drift check could not run; fix the check "
        "(agent spec, fixtura install) and re-run it", passed=False),
}


def drift_verdict(metadata: Mapping[str, Any]) -> Any:
    """Return the drift verdict recorded in trace metadata, or None when there is none.

    Looked up in order: ``fingerprint_verdict``, ``verdict``, then ``fingerprint.verdict``
    (only when ``fingerprint`` is an object; a string fingerprint is a bare hash).
    """
    for key in ("fingerprint_verdict", "verdict"):
        value = metadata.get(key)
        if value is not None:
            return value
    fingerprint = metadata.get("fingerprint")
    if isinstance(fingerprint, Mapping):
        return fingerprint.get("verdict")
    return None


@register_metric
class FixtureFreshness(Metric):
    """The drift verdict of the fixture the trace was recorded against.

    The verdict comes from trace metadata (``fingerprint_verdict``, ``verdict`` or
    ``fingerprint.verdict``), compared without regard to case. It is a verdict, not a ratio:
    there is no pass line and ``thresholds`` do not apply.

    Passes on PASS (score 1.0). Fails on DRIFTED (the agent changed since recording), on
    UNVERIFIED (the check could not run) and on any other value, which the details name
    (all score 0.0). Not applicable, with score 1.0, when the trace carries no verdict: it was
    never drift-checked.
    """

    name = "fixture_freshness"
    default_threshold = None

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return the measurement fixed by the trace's drift verdict."""
        verdict = drift_verdict(trace.metadata)
        if verdict is None:
            return not_applicable("no drift verdict in trace metadata: never drift-checked")
        known = _VERDICTS.get(str(verdict).strip().upper()) if isinstance(verdict, str) else None
        if known is not None:
            return known
        return Measurement(
            0.0,
            f"unknown fingerprint verdict {short_json(verdict)}; expected PASS, DRIFTED or "
            "UNVERIFIED",
            passed=False,
        )
