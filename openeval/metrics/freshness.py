"""Is the recorded fixture still true to the agent? (``fixture_freshness``)"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openeval.metrics._common import join_bounded
from openeval.metrics.base import Measurement, Metric, not_applicable
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


def _reasons(metadata: Mapping[str, Any], key: str) -> list[str]:
    value = metadata.get(key)
    if not isinstance(value, list):
        return []
    return [item.strip().rstrip(".") for item in value if isinstance(item, str) and item.strip()]


def _explained(found: Measurement, verdict: str, metadata: Mapping[str, Any]) -> Measurement:
    """Return ``found`` with what Fixtura's comparison said changed (or could not be compared),
    as ``fixtura check-drift`` prints it, and the agent spec it compared with."""
    reasons = _reasons(metadata, "fingerprint_changes" if verdict == "DRIFTED"
                       else "fingerprint_notes")
    if verdict == "PASS" or not reasons:
        return found
    spec = metadata.get("fingerprint_agent_spec")
    against = f" against agent spec {spec}" if isinstance(spec, str) and spec else ""
    what = "changed" if verdict == "DRIFTED" else "not verified"
    advice = ("re-record this fixture" if verdict == "DRIFTED"
              else "record the missing part of the fingerprint, then re-run")
    details = join_bounded([f"fingerprint verdict {verdict}{against}: {what}: {reasons[0]}",
                            *reasons[1:], advice])
    return Measurement(found.score, details, passed=found.passed)


class FixtureFreshness(Metric):
    """The drift verdict of the fixture the trace was recorded against.

    The verdict comes from trace metadata (``fingerprint_verdict``, ``verdict`` or
    ``fingerprint.verdict``), compared without regard to case. It is a verdict, not a ratio:
    there is no pass line and ``thresholds`` do not apply.

    Passes on PASS (score 1.0). Fails on DRIFTED (the agent changed since recording), on
    UNVERIFIED (the check could not run, or a part of the fingerprint was not recorded) and on
    any other value, which the details name (all score 0.0). When the verdict was computed
    (``--agent-spec``, or a test case's ``agent_spec``), the details say what changed, as
    ``fixtura check-drift`` does (``tool schema changed: search``, ``system prompt changed``),
    or what could not be compared, and against which agent spec. Not applicable, with score
    1.0, when the trace carries no verdict: it was never drift-checked.
    """

    name = "fixture_freshness"
    default_threshold = None

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return the measurement fixed by the trace's drift verdict."""
        verdict = drift_verdict(trace.metadata)
        if verdict is None:
            return not_applicable("no drift verdict in trace metadata: never drift-checked")
        name = verdict.strip().upper() if isinstance(verdict, str) else None
        known = _VERDICTS.get(name) if name is not None else None
        if known is not None:
            return _explained(known, name or "", trace.metadata)
        return Measurement(
            0.0,
            f"unknown fingerprint verdict {short_json(verdict)}; expected PASS, DRIFTED or "
            "UNVERIFIED",
            passed=False,
        )
