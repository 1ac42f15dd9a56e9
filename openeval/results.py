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
        )


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
