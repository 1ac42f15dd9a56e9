"""The protocol every engine follows."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Protocol

from openeval.results.records import CaseResult
from openeval.suite.discover import CaseSpec, display_path
from openeval.suite.evaluate import RunPlan, run_case


def unreadable_case(spec: CaseSpec) -> CaseResult:
    """Return the errored result of a case whose folder could not be listed."""
    where = display_path(spec.testcase_path)
    return CaseResult(
        case_id=spec.case_id, task_id=spec.case_id, testcase_path=where, trace_path=None,
        trace_format=None, error=f"{where}: {spec.problem}",
    )


class Engine(Protocol):
    """Scores discovered cases under one run plan."""

    name: str
    """Short name for logs and ``--engine``."""

    def run(self, plan: RunPlan, cases: Sequence[CaseSpec]) -> Iterator[CaseResult]:
        """Yield one result per case of ``cases``, in the same order."""
        ...


def run_spec(spec: CaseSpec, plan: RunPlan) -> CaseResult:
    """Return the result of one discovered case under ``plan`` (what every engine calls)."""
    if spec.unreadable:
        return unreadable_case(spec)
    return run_case(
        spec.testcase_path, spec.trace_path, plan=plan, case_id=spec.case_id,
        problem=spec.problem, found_beside=True, trials=spec.trials, trace_real=spec.trace_real,
    )
