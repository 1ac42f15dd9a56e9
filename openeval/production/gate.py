"""The gate of an ``openeval score`` run: its verdict from the summary and the per-check gates.

The rules (proposals/0080-production-scoring.md, proposals/0091-one-gate.md):

- a run that scored nothing never passes, nor one with an unreadable line or an errored check
  (a broken pipeline is never green);
- without gates, a failed trace fails the run;
- with gates, every gated check's pass rate must reach its line (judged as ``run`` judges its
  per-metric gates, :meth:`openeval.results.summary.Gate.judge`); failures of checks with no
  gate are then reported, not gated.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openeval.errors import SuiteError
from openeval.production.plan import ScorePlan
from openeval.production.summary import ScoreSummary
from openeval.registry import unknown_name
from openeval.results.gates import GateRule
from openeval.results.summary import Gate, Tally


@dataclass(frozen=True)
class ScoreVerdict:
    """Whether a score run passed, and what each of its gates found."""

    passed: bool
    gates: tuple[tuple[GateRule, Gate], ...] = ()
    """Each gate as asked for, with what it found, in the order given."""


def check_gate_names(gates: Sequence[GateRule], plan: ScorePlan) -> None:
    """Raise SuiteError for a gate on a check ``plan`` does not run, naming where it was
    given and the checks it runs."""
    for gate in gates:
        if gate.name not in plan.names:
            raise SuiteError(f"{gate.given}: " + unknown_name("check", gate.name, plan.names))


def score_verdict(summary: ScoreSummary, gates: Sequence[GateRule] = ()) -> ScoreVerdict:
    """Return the verdict of a run with ``summary`` under ``gates`` (see the module rules)."""
    found = tuple(
        (rule, Gate.judge(rule.name, rule.line, _tally(summary, rule.name))) for rule in gates
    )
    if gates:
        passed = (all(gate.passed for _, gate in found) and summary.unreadable == 0
                  and summary.statuses["error"] == 0)
    else:
        passed = summary.clean
    return ScoreVerdict(passed=passed and summary.scored > 0, gates=found)


def _tally(summary: ScoreSummary, name: str) -> Tally | None:
    counts = summary.checks.get(name)
    return None if counts is None else counts.tally()
