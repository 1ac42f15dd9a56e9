"""The counts of a run, made once from its records: every reporter reads these, none recounts.

Rules (CONTRACT section 3, proposals/0002-scoring-core.md):

- A judged result is a check result whose verdict is ``pass``, ``fail`` or ``error``; ``n.a.``
  is never judged. A case that could not be scored counts as one ``error`` result.
- Pass rate = passed results / judged results; None when nothing was judged.
- Case pass rate = passed cases / cases that were judged (n.a. cases left out).
- The gate passes when something was judged, no case errored, and either no case failed or,
  with ``fail_under``, the pass rate reaches it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openeval.results.records import CaseResult, SuiteResult


@dataclass(frozen=True)
class Tally:
    """How many results of one check (or of all) passed, failed, errored or were n.a."""

    passed: int = 0
    failed: int = 0
    errored: int = 0
    not_applicable: int = 0

    @property
    def judged(self) -> int:
        """Results that count in a pass rate: passed, failed and errored."""
        return self.passed + self.failed + self.errored

    @property
    def pass_rate(self) -> float | None:
        """Return passed / judged, or None when nothing was judged."""
        return self.passed / self.judged if self.judged else None

    def to_dict(self) -> dict[str, Any]:
        """Return the tally as a JSON object, with its pass rate."""
        return {
            "passed": self.passed,
            "failed": self.failed,
            "errored": self.errored,
            "not_applicable": self.not_applicable,
            "pass_rate": self.pass_rate,
        }


class _Counter:
    """A mutable tally used while counting (Tally itself is a frozen value)."""

    __slots__ = ("errored", "failed", "not_applicable", "passed")

    def __init__(self) -> None:
        self.passed = self.failed = self.errored = self.not_applicable = 0

    def add(self, verdict: str) -> None:
        if verdict == "pass":
            self.passed += 1
        elif verdict == "fail":
            self.failed += 1
        elif verdict == "error":
            self.errored += 1
        else:
            self.not_applicable += 1

    def freeze(self) -> Tally:
        return Tally(self.passed, self.failed, self.errored, self.not_applicable)


@dataclass(frozen=True)
class Summary:
    """Everything a report says about a run as a whole."""

    cases: int
    passed_cases: int
    failed_cases: int
    errored_cases: int
    not_evaluated_cases: int
    """Cases in which nothing was judged (every check n.a., or none ran)."""
    results: Tally
    """Every check result of every case; an unscored case counts as one errored result."""
    per_check: dict[str, Tally]
    """A tally per check instance name, in order of first appearance."""
    fail_under: float | None
    gate_passed: bool
    gate_reason: str

    @property
    def pass_rate(self) -> float | None:
        """Passed over judged results; None when nothing was judged."""
        return self.results.pass_rate

    @property
    def case_pass_rate(self) -> float | None:
        """Passed cases over judged cases; None when no case was judged."""
        judged = self.cases - self.not_evaluated_cases
        return self.passed_cases / judged if judged else None

    @classmethod
    def of(cls, suite: SuiteResult) -> Summary:
        """Count ``suite``."""
        return cls.count(suite.cases, suite.fail_under)

    @classmethod
    def count(cls, cases: Iterable[CaseResult], fail_under: float | None) -> Summary:
        """Count ``cases`` under the gate's ``fail_under``."""
        total = _Counter()
        per: dict[str, _Counter] = {}
        statuses = {"passed": 0, "failed": 0, "error": 0, "n.a.": 0}
        n = 0
        for case in cases:
            n += 1
            statuses[case.status] += 1
            if case.error is not None:
                total.add("error")
            for check in case.checks:
                total.add(check.verdict)
                counter = per.get(check.spec.name)
                if counter is None:
                    counter = per[check.spec.name] = _Counter()
                counter.add(check.verdict)
        results = total.freeze()
        gate_passed, reason = _gate(results, statuses, fail_under)
        return cls(
            cases=n,
            passed_cases=statuses["passed"],
            failed_cases=statuses["failed"],
            errored_cases=statuses["error"],
            not_evaluated_cases=statuses["n.a."],
            results=results,
            per_check={name: c.freeze() for name, c in per.items()},
            fail_under=fail_under,
            gate_passed=gate_passed,
            gate_reason=reason,
        )

    def to_dict(self) -> dict[str, Any]:
        """Return the summary as the JSON object ``summary.json`` holds (without file list)."""
        return {
            "pass_rate": self.pass_rate,
            "case_pass_rate": self.case_pass_rate,
            "cases": self.cases,
            "passed_cases": self.passed_cases,
            "failed_cases": self.failed_cases,
            "errored_cases": self.errored_cases,
            "not_evaluated_cases": self.not_evaluated_cases,
            "results": self.results.to_dict(),
            "per_check": {name: t.to_dict() for name, t in self.per_check.items()},
            "fail_under": self.fail_under,
            "gate_passed": self.gate_passed,
            "gate_reason": self.gate_reason,
        }


def _gate(results: Tally, statuses: dict[str, int], fail_under: float | None) -> tuple[bool, str]:
    rate = results.pass_rate
    if rate is None:
        return False, "no pass rate: nothing evaluated"
    if statuses["error"]:
        return False, f"{statuses['error']} case(s) errored"
    if fail_under is not None:
        verb = "reaches" if rate >= fail_under else "is under"
        return rate >= fail_under, f"pass rate {rate:.1%} {verb} --fail-under {fail_under:g}"
    if statuses["failed"]:
        return False, f"{statuses['failed']} case(s) failed"
    return True, "every case passed"


def percent(rate: float | None) -> str:
    """Return a rate as ``87.5%``, or ``n.a.`` when it is None (one spelling everywhere)."""
    return "n.a." if rate is None else f"{rate:.1%}"
