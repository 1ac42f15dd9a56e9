"""The results of a run, as one value that every report format serialises.

The runner builds a :class:`SuiteResult`; ``openeval run --output`` writes it as files and
``openeval report`` reads those files back into the same value, so every format renders the
same records whichever way they arrived.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from openeval.models import MetricResult


@dataclass(frozen=True)
class CaseResult:
    """The outcome of one case: its metric results, or the reason it could not be scored."""

    case_id: str
    """Unique, stable id of the case in its suite (its folder or file path, POSIX style)."""
    task_id: str
    """The test case's task id (not unique: two cases may share one)."""
    testcase_path: str | None
    """Path of the test case file as given on the command line or found in the suite."""
    trace_path: str | None
    """Path of the trace file; None when it was never found."""
    trace_format: str | None
    """The adapter that read the trace; None when it was never read."""
    metrics: tuple[MetricResult, ...] = ()
    """One result per metric run, in registry order."""
    error: str | None = None
    """Why the case could not be scored (unreadable file, ...); None when it was scored."""
    trace_task_id: str | None = None
    """The task id the trace itself carries (may differ from ``task_id``); None when unread."""

    @property
    def errored(self) -> bool:
        """True when the case could not be scored."""
        return self.error is not None

    @property
    def passed(self) -> bool:
        """True when the case did not error and no metric failed."""
        return self.error is None and all(m.passed is not False for m in self.metrics)

    def to_dict(self) -> dict[str, Any]:
        """Return the case as the JSON object of its result file."""
        return {
            "case_id": self.case_id,
            "task_id": self.task_id,
            "testcase": self.testcase_path,
            "trace": self.trace_path,
            "trace_format": self.trace_format,
            "status": "error" if self.errored else ("passed" if self.passed else "failed"),
            "error": self.error,
            "metrics": [m.to_dict() for m in self.metrics],
            "trace_task_id": self.trace_task_id,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CaseResult:
        """Build a case from its result-file JSON object (already schema-checked)."""
        return cls(
            case_id=data["case_id"],
            task_id=data["task_id"],
            testcase_path=data.get("testcase"),
            trace_path=data.get("trace"),
            trace_format=data.get("trace_format"),
            metrics=tuple(MetricResult.from_dict(m) for m in data.get("metrics", [])),
            error=data.get("error"),
            trace_task_id=data.get("trace_task_id"),
        )


@dataclass(frozen=True)
class MetricTally:
    """How one metric (or all of them) fared over a suite."""

    passed: int = 0
    failed: int = 0
    not_applicable: int = 0

    @property
    def pass_rate(self) -> float | None:
        """Return passed / (passed + failed), or None when the metric never applied."""
        judged = self.passed + self.failed
        return self.passed / judged if judged else None

    def add(self, passed: bool | None) -> MetricTally:
        """Return a new tally with one more result counted."""
        if passed is None:
            return MetricTally(self.passed, self.failed, self.not_applicable + 1)
        if passed:
            return MetricTally(self.passed + 1, self.failed, self.not_applicable)
        return MetricTally(self.passed, self.failed + 1, self.not_applicable)


@dataclass(frozen=True)
class SuiteResult:
    """Every case of a run, in a stable order, with the pass-rate rule applied once."""

    cases: tuple[CaseResult, ...]
    fail_under: float | None = None
    """The gate's pass-rate floor, when one was given."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Run settings worth recording (suite path, metrics chosen); never wall-clock times."""

    @property
    def counted(self) -> tuple[int, int]:
        """Return ``(passed, evaluated)`` metric results; an errored case counts as one failure."""
        passed = evaluated = 0
        for case in self.cases:
            if case.errored:
                evaluated += 1
                continue
            for metric in case.metrics:
                if metric.passed is None:
                    continue
                evaluated += 1
                passed += metric.passed
        return passed, evaluated

    @property
    def pass_rate(self) -> float | None:
        """Return passed / evaluated metric results, or None when nothing was evaluated."""
        passed, evaluated = self.counted
        return passed / evaluated if evaluated else None

    def per_metric(self) -> dict[str, MetricTally]:
        """Return a tally per metric name, in order of first appearance (registry order)."""
        tallies: dict[str, MetricTally] = {}
        for case in self.cases:
            for metric in case.metrics:
                tallies[metric.metric_name] = tallies.get(
                    metric.metric_name, MetricTally()
                ).add(metric.passed)
        return tallies

    def metric_totals(self) -> MetricTally:
        """Return the tally of every metric result of every case (errored cases not included)."""
        total = MetricTally()
        for case in self.cases:
            for metric in case.metrics:
                total = total.add(metric.passed)
        return total

    @property
    def gate_reason(self) -> str:
        """Return one sentence saying why the gate passed or failed."""
        rate = self.pass_rate
        errored = sum(c.errored for c in self.cases)
        if rate is None:
            return "no pass rate: nothing evaluated"
        if errored:
            return f"{errored} case(s) errored"
        if self.fail_under is not None:
            verb = "reaches" if rate >= self.fail_under else "is under"
            return f"pass rate {rate:.1%} {verb} --fail-under {self.fail_under:g}"
        failed = sum(not c.passed for c in self.cases)
        if failed:
            return f"{failed} case(s) failed"
        return "every case passed"

    @property
    def gate_passed(self) -> bool:
        """True when the run passes the gate (CONTRACT §4).

        No case errored, something was evaluated, and either every case passed or, with
        ``fail_under``, the pass rate reaches it.
        """
        rate = self.pass_rate
        if rate is None or any(c.errored for c in self.cases):
            return False
        if self.fail_under is not None:
            return rate >= self.fail_under
        return all(c.passed for c in self.cases)
