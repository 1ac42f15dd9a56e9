"""The failure text of a case: one line per failed or errored check, shared by
:func:`openeval.testing.assert_case` and the pytest plugin."""

from __future__ import annotations

from collections.abc import Iterable

from openeval.results.records import CheckResult


def failure_lines(checks: Iterable[CheckResult], error: str | None = None) -> list[str]:
    """Return one line per check that failed or errored, in plan order, or the one reason
    the case could not be scored (``error``)."""
    if error is not None:
        return [f"case not scored: {error}"]
    return [_line(check) for check in checks if check.verdict in ("fail", "error")]


def _line(check: CheckResult) -> str:
    if check.verdict == "error":
        return f"{check.name}: error: {check.details or 'no details'}"
    score = check.score_text()
    line = f" (threshold {check.spec.threshold:g})" if check.spec.threshold is not None else ""
    details = f": {check.details}" if check.details else ""
    return f"{check.name}: fail, score {score}{line}{details}"
