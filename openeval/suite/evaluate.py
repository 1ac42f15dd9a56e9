"""One case, end to end: its test case read and compiled, its trace read, then scored.

:func:`evaluate_case` raises :class:`~openeval.errors.OpenEvalError` when a file cannot be
read (single-case mode reports that as bad usage); :func:`run_case` turns that into an errored
:class:`~openeval.results.records.CaseResult`, so a suite goes on and nothing is dropped.
:class:`RunPlan` is everything a run adds to the case files, as one picklable value that any
engine (a process pool under spawn, a Ray worker) can carry to where the case is scored.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from openeval.errors import OpenEvalError, TestCaseError
from openeval.results.records import CaseResult

if TYPE_CHECKING:
    from openeval.adapters.base import LoadOptions


@dataclass(frozen=True)
class RunPlan:
    """The settings of a run that apply to every case; picklable, holds no live objects."""

    metrics: tuple[str, ...] | None = None
    """Narrow every case to these metric names; None for the case's own selection."""
    format: str | None = None
    """Read every trace with this adapter instead of detecting its format."""
    options: LoadOptions | None = None
    """Read limits and the Fixtura agent spec."""
    code_time_limit: float | None = None
    """Seconds a code check may run when its entry sets no ``time_limit``; None for 5 s."""

    @classmethod
    def of(
        cls,
        metrics: Sequence[str] | None = None,
        format: str | None = None,
        options: LoadOptions | None = None,
    ) -> RunPlan:
        """Return a plan, the metric names copied into a tuple."""
        return cls(None if metrics is None else tuple(metrics), format, options)


def evaluate_case(
    testcase_path: str | Path,
    trace_path: str | Path | None,
    *,
    plan: RunPlan | None = None,
    case_id: str | None = None,
    problem: str | None = None,
) -> CaseResult:
    """Return the scored result of one case; raise OpenEvalError when a file cannot be read.

    ``trace_path`` None means "the file the test case's ``trace`` key names"; when the key is
    absent too, TestCaseError says ``problem`` (or that no trace was given). A ``trace`` key is
    read relative to the test case file; an explicit ``trace_path`` wins over it.
    """
    from openeval.adapters.registry import read_trace
    from openeval.scoring import compile_plan, score
    from openeval.testcase_file import load_test_case

    plan = plan or RunPlan()
    testcase_path = Path(testcase_path)
    test_case = load_test_case(testcase_path)
    case_plan = compile_plan(test_case, metrics=plan.metrics, source=testcase_path,
                             code_time_limit=plan.code_time_limit)
    trace_file = Path(trace_path) if trace_path is not None else None
    if trace_file is None and test_case.trace is not None:
        trace_file = testcase_path.parent / test_case.trace
    if trace_file is None:
        raise TestCaseError(problem or "no trace given for this test case", source=testcase_path)
    trace, trace_format = read_trace(trace_file, plan.format, options=plan.options)
    return CaseResult(
        case_id=case_id if case_id is not None else testcase_path.as_posix(),
        task_id=test_case.task_id,
        testcase_path=testcase_path.as_posix(),
        trace_path=trace_file.as_posix(),
        trace_format=trace_format,
        checks=score(trace, case_plan),
        trace_task_id=trace.task_id,
    )


def run_case(
    testcase_path: str | Path,
    trace_path: str | Path | None,
    *,
    plan: RunPlan | None = None,
    case_id: str | None = None,
    problem: str | None = None,
) -> CaseResult:
    """Return the result of one case; a file that cannot be read gives an errored result.

    Same arguments as :func:`evaluate_case`. Only OpenEvalError becomes an errored result;
    checks are isolated by the scorer, so anything else escaping here is a bug and propagates.
    """
    try:
        return evaluate_case(
            testcase_path, trace_path, plan=plan, case_id=case_id, problem=problem
        )
    except OpenEvalError as exc:
        testcase_path = Path(testcase_path)
        return CaseResult(
            case_id=case_id if case_id is not None else testcase_path.as_posix(),
            task_id=_task_id_hint(testcase_path),
            testcase_path=testcase_path.as_posix(),
            trace_path=Path(trace_path).as_posix() if trace_path is not None else None,
            trace_format=None,
            error=str(exc),
        )


def _task_id_hint(testcase_path: Path) -> str:
    """Return the task id of a test case that failed to load, as best known, for reports."""
    from openeval.jsonio import parse_json

    try:
        document = parse_json(testcase_path.read_bytes())
    except (OSError, ValueError, OpenEvalError):
        return testcase_path.stem
    task_id = document.get("task_id") if isinstance(document, dict) else None
    return task_id if isinstance(task_id, str) else testcase_path.stem
