"""Running a suite: discover its cases, score them on an engine, return one :class:`SuiteResult`.

This module is the front door; the rooms behind it are :mod:`openeval.suite.discover` (which
cases a folder holds), :mod:`openeval.suite.evaluate` (one case end to end),
:mod:`openeval.scoring` (the pure scorer) and :mod:`openeval.engines` (where cases are scored).
Every case found appears in the result: a case whose files cannot be read is an errored
:class:`CaseResult` holding the reason, and a check that crashes is an errored check result.
Nothing here prints: the CLI passes a ``progress`` callback to draw its bar.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, overload

from openeval.errors import SuiteError
from openeval.legacy import ScoresATrace, run_eval, run_suite_021
from openeval.registry import unknown_name
from openeval.results.records import CaseResult, SuiteResult
from openeval.suite.discover import CaseSpec, discover, is_trace_name
from openeval.suite.evaluate import RunPlan, evaluate_case, run_case

if TYPE_CHECKING:
    from openeval.adapters.base import LoadOptions
    from openeval.engines.base import Engine

Progress = Callable[[int, int, CaseResult], None]
"""Called after each case with ``(cases done, cases in total, the case's result)``."""


def check_metric_selection(names: Sequence[str] | None) -> None:
    """Return None when every name in ``names`` is a registered metric.

    Raises SuiteError naming an unknown metric and listing the valid ones.
    """
    if names is None:
        return
    from openeval.metrics.registry import metric_names

    known = metric_names()
    for name in names:
        if name not in known:
            raise SuiteError(unknown_name("metric", name, known))


@overload
def run_suite(
    suite_dir: str | Path,
    legacy_metrics: None = None,
    /,
    *,
    metrics: Sequence[str] | None = None,
    format: str | None = None,
    options: LoadOptions | None = None,
    fail_under: float | None = None,
    progress: Progress | None = None,
    workers: int | None = None,
    engine: Engine | None = None,
    allow_outside: bool = False,
) -> SuiteResult: ...
@overload
def run_suite(
    suite_dir: str | Path, legacy_metrics: Sequence[ScoresATrace], /
) -> dict[str, Any]: ...
def run_suite(
    suite_dir: str | Path,
    legacy_metrics: Sequence[ScoresATrace] | None = None,
    /,
    *,
    metrics: Sequence[str] | None = None,
    format: str | None = None,
    options: LoadOptions | None = None,
    fail_under: float | None = None,
    progress: Progress | None = None,
    workers: int | None = None,
    engine: Engine | None = None,
    allow_outside: bool = False,
) -> SuiteResult | dict[str, Any]:
    """Return the results of every case under ``suite_dir``, in sorted path order.

    ``metrics`` narrows the registered metrics by name (None for all); ``format`` forces a
    trace adapter. ``engine`` scores the cases (default: this process, or a pool of ``workers``
    processes, one per CPU, for suites of PARALLEL_FROM cases or more); the result is the same
    either way. Traces are read only inside ``suite_dir`` (links resolved) unless
    ``allow_outside``. Raises SuiteError when the folder holds no case or a metric name is
    unknown.

    ``run_suite(path, [metric objects])``, the openeval-core 0.2.1 form, still works: it warns
    (DeprecationWarning) and returns 0.2.1's ``{task_id: {"task_id", "metrics"}}`` dict.
    """
    if legacy_metrics is not None:
        return run_suite_021(suite_dir, legacy_metrics)
    from openeval.engines.local import default_engine

    check_metric_selection(metrics)
    if format is not None:
        from openeval.adapters.registry import get_adapter

        get_adapter(format)
    specs = discover(suite_dir)
    plan = RunPlan.of(metrics, format, options, confine_to=suite_dir, allow_outside=allow_outside)
    chosen = engine or default_engine(len(specs), workers)
    cases: list[CaseResult] = []
    for case in chosen.run(plan, specs):
        cases.append(case)
        if progress is not None:
            progress(len(cases), len(specs), case)
    metadata: dict[str, Any] = {"suite": Path(suite_dir).as_posix()}
    if metrics is not None:
        metadata["metrics"] = list(metrics)
    if format is not None:
        metadata["format"] = format
    return SuiteResult(cases=tuple(cases), fail_under=fail_under, metadata=metadata)


__all__ = [
    "CaseSpec",
    "Progress",
    "RunPlan",
    "check_metric_selection",
    "discover",
    "evaluate_case",
    "is_trace_name",
    "run_case",
    "run_eval",
    "run_suite",
]
