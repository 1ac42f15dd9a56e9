"""The counts of a run, made once from its records: every reporter reads these, none recounts.

Rules (docs/semantics.md#pass-rate, proposals/0002-scoring-core.md):

- A judged result is a check result whose verdict is ``pass``, ``fail`` or ``error``; ``n.a.``
  is never judged. A case that could not be scored counts as one ``error`` result.
- Pass rate = passed results / judged results; None when nothing was judged.
- Case pass rate = passed cases / cases that were judged (n.a. cases left out).
- A case with trials counts as one case (its status follows its trials rule); the check results
  of every trial count in the pass rates, and an unscored trial as one ``error`` result.
- The gate passes when something was judged, no case errored, and either no case failed or,
  with ``fail_under`` / ``fail_under_cases``, the pass rate / case pass rate reaches it; and
  every per-metric gate passes: the pass rate of that metric or check alone reaches its line
  (a name with no judged result fails its gate). Proposals 0002 and 0060.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from openeval.results.trials import TrialsSummary

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
class Gate:
    """One per-metric gate of a run: the pass rate of ``name`` alone must reach ``line``."""

    name: str
    """A metric or check entry name, as in :attr:`Summary.per_check`."""
    figure: float | None
    """The pass rate of that name over the run; None when none of its results was judged."""
    line: float
    passed: bool

    @classmethod
    def judge(cls, name: str, line: float, tally: Tally | None) -> Gate:
        """Return the gate on ``name`` at ``line`` over its ``tally`` (None: never judged);
        the one rule of ``run`` and ``score``: a name with no judged result fails."""
        figure = None if tally is None else tally.pass_rate
        return cls(name, figure, line, figure is not None and figure >= line)

    @property
    def reason(self) -> str:
        """One phrase saying how the figure compares with the line."""
        if self.figure is None:
            return f"gate {self.name}: no judged result, needs {self.line:.1%}"
        verb = "reaches" if self.passed else "is under"
        return f"gate {self.name}: {self.figure:.1%} {verb} {self.line:.1%}"

    def to_dict(self) -> dict[str, Any]:
        """Return the gate as one entry of the summary's ``gates`` list."""
        return {"name": self.name, "figure": self.figure, "line": self.line,
                "passed": self.passed}


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
    gates: tuple[Gate, ...] = ()
    """The per-metric gates, in the order given, each with its figure and verdict."""
    fail_under_cases: float | None = None
    trials: TrialsSummary | None = None
    """The trials of the run (cases run several times); None when no case had trials."""

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
        return cls.count(suite.cases, suite.fail_under, gates=suite.gates,
                         fail_under_cases=suite.fail_under_cases,
                         sources=dict(suite.gate_sources), notes=suite.gate_notes)

    @classmethod
    def count(
        cls,
        cases: Iterable[CaseResult],
        fail_under: float | None,
        *,
        gates: Iterable[tuple[str, float]] = (),
        fail_under_cases: float | None = None,
        sources: Mapping[str, str] | None = None,
        notes: Sequence[str] = (),
    ) -> Summary:
        """Count ``cases`` under the gate's ``fail_under``, per-metric ``gates`` and
        ``fail_under_cases``; ``sources`` names the configuration file of a line that came from
        one (the reason says so), ``notes`` are appended to the reason."""
        total = _Counter()
        per: dict[str, _Counter] = {}
        statuses = {"passed": 0, "failed": 0, "error": 0, "n.a.": 0}
        stats = []
        labels = []
        n = 0
        for case in cases:
            n += 1
            statuses[case.status] += 1
            if case.error is not None:
                total.add("error")
            case_stats = case.trial_stats
            if case_stats is not None:
                stats.append(case_stats)
                if case.flaky_band is not None:
                    labels.append(case.stability)
            for record in case.trials:
                if record.error is not None:
                    total.add("error")
            for record in case.judged():
                for check in record.checks:
                    total.add(check.verdict)
                    counter = per.get(check.spec.name)
                    if counter is None:
                        counter = per[check.spec.name] = _Counter()
                    counter.add(check.verdict)
        results = total.freeze()
        per_check = {name: c.freeze() for name, c in per.items()}
        judged_cases = n - statuses["n.a."]
        case_rate = statuses["passed"] / judged_cases if judged_cases else None
        gate_list = tuple(_metric_gate(name, line, per_check) for name, line in gates)
        gate_passed, reason = _gate(results, statuses, fail_under, fail_under_cases, case_rate,
                                    gate_list, sources or {})
        if notes:
            reason = "; ".join((reason, *notes))
        return cls(
            cases=n,
            passed_cases=statuses["passed"],
            failed_cases=statuses["failed"],
            errored_cases=statuses["error"],
            not_evaluated_cases=statuses["n.a."],
            results=results,
            per_check=per_check,
            fail_under=fail_under,
            gate_passed=gate_passed,
            gate_reason=reason,
            gates=gate_list,
            fail_under_cases=fail_under_cases,
            trials=TrialsSummary.of(stats, labels),
        )

    def unknown_gates(self) -> list[str]:
        """Return the gate names that name no metric or check of the run, in gate order."""
        return [g.name for g in self.gates if g.name not in self.per_check]

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
            "fail_under_cases": self.fail_under_cases,
            "gates": [g.to_dict() for g in self.gates],
            "trials": None if self.trials is None else self.trials.to_dict(),
        }


def _metric_gate(name: str, line: float, per_check: dict[str, Tally]) -> Gate:
    return Gate.judge(name, line, per_check.get(name))


def _gate(
    results: Tally,
    statuses: dict[str, int],
    fail_under: float | None,
    fail_under_cases: float | None,
    case_rate: float | None,
    gates: tuple[Gate, ...],
    sources: Mapping[str, str],
) -> tuple[bool, str]:
    def named(key: str, flag: str, line: float) -> str:
        where = sources.get(key)
        return f"{flag} {line:g}" if where is None else f"{key} {line:g} ({where})"

    rate = results.pass_rate
    if rate is None:
        return False, "no pass rate: nothing evaluated"
    if statuses["error"]:
        return False, f"{statuses['error']} case(s) errored"
    # Each floor given replaces "every case passed"; per-metric gates always add to the rule.
    parts: list[tuple[bool, str]] = []
    if fail_under is not None:
        verb = "reaches" if rate >= fail_under else "is under"
        parts.append((rate >= fail_under, f"pass rate {rate:.1%} {verb} "
                                          + named("fail_under", "--fail-under", fail_under)))
    if fail_under_cases is not None:
        ok = case_rate is not None and case_rate >= fail_under_cases
        figure = "n.a." if case_rate is None else f"{case_rate:.1%}"
        parts.append((ok, f"case pass rate {figure} {'reaches' if ok else 'is under'} "
                          + named("fail_under_cases", "--fail-under-cases", fail_under_cases)))
    if fail_under is None and fail_under_cases is None:
        failed = statuses["failed"]
        parts.append((not failed, f"{failed} case(s) failed" if failed else "every case passed"))
    # Every line names where it was set: the configuration's place, else the option.
    parts += [(g.passed, g.reason + f" ({sources.get(f'gates.{g.name}') or _gate_flag(g)})")
              for g in gates]
    failing = [text for ok, text in parts if not ok]
    if failing:
        return False, "; ".join(failing)
    return True, "; ".join(text for _, text in parts)


def _gate_flag(gate: Gate) -> str:
    return f"--fail-under-metric {gate.name}={gate.line:g}"


def percent(rate: float | None) -> str:
    """Return a rate as ``87.5%``, or ``n.a.`` when it is None (one spelling everywhere)."""
    return "n.a." if rate is None else f"{rate:.1%}"
