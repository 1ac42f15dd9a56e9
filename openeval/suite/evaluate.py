"""One case, end to end: its test case read and compiled, its trace read, then scored.

:func:`evaluate_case` raises :class:`~openeval.errors.OpenEvalError` when a file cannot be
read (single-case mode reports that as bad usage); :func:`run_case` turns that into an errored
:class:`~openeval.results.records.CaseResult`, so a suite goes on and nothing is dropped.
:class:`RunPlan` is everything a run adds to the case files, as one picklable value that any
engine (a process pool under spawn, a Ray worker) can carry to where the case is scored.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from openeval.errors import OpenEvalError, TestCaseError
from openeval.results.records import CaseResult
from openeval.suite.discover import display_path

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
    confine_to: str | None = None
    """Traces must lie in this folder (the suite's, symbolic links resolved); None: a ``trace``
    key must stay in its test case's folder, and a trace named on the command line is free."""
    allow_outside: bool = False
    """Lift the confinement (``--allow-outside-suite``)."""
    code_time_limit: float | None = None
    """Seconds a code check may run when its entry sets no ``time_limit``; None for 5 s."""

    @classmethod
    def of(
        cls,
        metrics: Sequence[str] | None = None,
        format: str | None = None,
        options: LoadOptions | None = None,
        *,
        confine_to: str | Path | None = None,
        allow_outside: bool = False,
    ) -> RunPlan:
        """Return a plan, the metric names copied into a tuple and the folder resolved."""
        root = None if confine_to is None else os.path.realpath(confine_to)
        return cls(None if metrics is None else tuple(metrics), format, options, root,
                   allow_outside)


def confine(trace_file: Path, root: str, *, source: Path, named_by_key: bool) -> None:
    """Raise TestCaseError when ``trace_file`` (links resolved) lies outside ``root``.

    In a pull request the test cases are the author's: without this, ``"trace":
    "/etc/passwd"`` or a link beside the test case would put another file's values into
    details, result files and the job summary.
    """
    real = os.path.realpath(trace_file)
    if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
        return
    what = "its 'trace' key names" if named_by_key else "its trace file links to"
    raise TestCaseError(
        f"{what} {display_path(trace_file)}, which lies outside {display_path(root)}; traces "
        "are read only inside the suite folder (pass --allow-outside-suite to lift this)",
        source=display_path(source), location="trace" if named_by_key else None,
    )


def evaluate_case(
    testcase_path: str | Path,
    trace_path: str | Path | None,
    *,
    plan: RunPlan | None = None,
    case_id: str | None = None,
    problem: str | None = None,
    found_beside: bool = False,
) -> CaseResult:
    """Return the scored result of one case; raise OpenEvalError when a file cannot be read.

    ``trace_path`` None means "the file the test case's ``trace`` key names"; when the key is
    absent too, TestCaseError says ``problem`` (or that no trace was given). A ``trace`` key is
    read relative to the test case file. A ``trace_path`` given by the caller wins over the
    key; one discovery merely ``found_beside`` the test case does not (CONTRACT 3). Without a
    ``case_id`` (single-case mode, or a suite that is one case folder) the case is named by its
    task id.
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
    if found_beside and test_case.trace is not None:
        trace_file = None
    named_by_key = trace_file is None and test_case.trace is not None
    if named_by_key:
        assert test_case.trace is not None  # narrowed for mypy: named_by_key says so
        if "\x00" in test_case.trace:
            raise TestCaseError("holds a NUL character, which no file name can",
                                source=display_path(testcase_path), location="trace")
        trace_file = testcase_path.parent / test_case.trace
    if trace_file is None:
        raise TestCaseError(problem or "no trace given for this test case", source=testcase_path)
    if not plan.allow_outside and (plan.confine_to is not None or named_by_key):
        root = plan.confine_to or os.path.realpath(testcase_path.parent)
        confine(trace_file, root, source=testcase_path, named_by_key=named_by_key)
    trace, trace_format = read_trace(trace_file, plan.format, options=plan.options)
    return CaseResult(
        case_id=case_id or test_case.task_id,
        task_id=test_case.task_id,
        testcase_path=display_path(testcase_path),
        trace_path=display_path(trace_file),
        trace_format=trace_format,
        checks=score(trace, case_plan),
        trace_task_id=trace.task_id,
        warnings=task_id_warning(test_case.task_id, trace.task_id, trace_file),
    )


def task_id_warning(expected: str, found: str, trace_file: Path) -> tuple[str, ...]:
    """Return a warning when a trace names another task than its test case (a trace mixed up
    with another case's); none when the trace's id was only its file name."""
    name = trace_file.name
    if not found or found == expected or name == found or name.startswith(found + "."):
        return ()
    return (f"the trace's task id {found!r} differs from the test case's {expected!r}: is this "
            "the right trace for this case?",)


def run_case(
    testcase_path: str | Path,
    trace_path: str | Path | None,
    *,
    plan: RunPlan | None = None,
    case_id: str | None = None,
    problem: str | None = None,
    found_beside: bool = False,
) -> CaseResult:
    """Return the result of one case; a file that cannot be read gives an errored result.

    Same arguments as :func:`evaluate_case`. Only OpenEvalError becomes an errored result;
    checks are isolated by the scorer, so anything else escaping here is a bug and propagates.
    """
    try:
        return evaluate_case(
            testcase_path, trace_path, plan=plan, case_id=case_id, problem=problem,
            found_beside=found_beside,
        )
    except OpenEvalError as exc:
        testcase_path = Path(testcase_path)
        task_id = _task_id_hint(testcase_path)
        return CaseResult(
            case_id=case_id or task_id,
            task_id=task_id,
            testcase_path=display_path(testcase_path),
            trace_path=display_path(Path(trace_path)) if trace_path is not None else None,
            trace_format=None,
            error=display_path(str(exc)),
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
