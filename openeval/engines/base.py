"""The protocol every engine follows."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from openeval.results.records import CaseResult
from openeval.suite.discover import CaseSpec
from openeval.suite.evaluate import RunPlan, run_case


class Engine(Protocol):
    """Scores discovered cases under one run plan."""

    name: str
    """Short name for logs and ``--engine``."""

    def run(self, plan: RunPlan, cases: Sequence[CaseSpec]) -> Iterator[CaseResult]:
        """Yield one result per case of ``cases``, in the same order."""
        ...


def run_spec(spec: CaseSpec, plan: RunPlan) -> CaseResult:
    """Return the result of one discovered case under ``plan`` (what every engine calls)."""
    return run_case(
        spec.testcase_path, spec.trace_path, plan=plan, case_id=spec.case_id,
        problem=spec.problem, trials=spec.trials,
    )
