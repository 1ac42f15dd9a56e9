"""The functions of openeval-core 0.2.1's Python API, kept working as deprecated shims.

Real clients call it: fixtura 2.0.1's ``fixtura eval`` imports :func:`run_eval`, and teams
wrote ``run_suite(path, metrics)`` and subclasses of ``BaseMetric``. Each shim warns with a
:class:`DeprecationWarning` naming its replacement and returns what 0.2.1 returned, keyed by
0.2.1's display names ("Tool Selection Accuracy"), so code reading those dicts keeps working.
The migration is in the README ("Moving from openeval-core 0.2.1").
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ParamSpec, Protocol, cast

from openeval.compat.deprecation import deprecated, display_name
from openeval.models import AgentTrace, EvalTestCase, MetricResult

if TYPE_CHECKING:
    from openeval.results.records import SuiteResult

P = ParamSpec("P")


class ScoresATrace(Protocol):
    """What 0.2.1 called a metric: a ``name`` and a ``score(trace, test_case)``."""

    name: str

    def score(self, trace: AgentTrace, test_case: EvalTestCase) -> MetricResult:
        """Return the metric's result on ``trace``."""
        ...


def run_eval(
    trace: AgentTrace, test_case: EvalTestCase, metrics: Sequence[ScoresATrace]
) -> dict[str, Any]:
    """Score ``trace`` with ``metrics`` as 0.2.1 did: ``{"task_id", "metrics": {name: result}}``.

    Deprecated: compile a plan and score it (:func:`openeval.scoring.score`), or call
    :meth:`Metric.score` directly. As in 0.2.1, a metric that raises gives a failed result
    saying so (never a pass).
    """
    deprecated("openeval.runner.run_eval", "openeval.scoring.score or Metric.score")
    return _run_eval(trace, test_case, metrics)


def _run_eval(
    trace: AgentTrace, test_case: EvalTestCase, metrics: Sequence[ScoresATrace]
) -> dict[str, Any]:
    results: dict[str, MetricResult] = {}
    for metric in metrics:
        key = display_name(metric.name)
        try:
            results[key] = metric.score(trace, test_case)
        except Exception as exc:  # 0.2.1's contract: an error is a failed result, not a crash
            results[key] = MetricResult(key, 0.0, False, f"Metric raised an error: {exc}")
    return {"task_id": trace.task_id, "metrics": results}


def run_suite_021(suite_dir: str | Path, metrics: Sequence[ScoresATrace]) -> dict[str, Any]:
    """Score a suite as 0.2.1's ``run_suite(path, metrics)`` did: ``{task_id: run_eval(...)}``.

    Cases are found by today's discovery (both layouts) and read by today's readers; a case
    that cannot be read gives ``{"task_id", "error", "metrics": {}}`` as in 0.2.1.
    Deprecated: ``openeval.runner.run_suite(path, metrics=[names])`` returns a SuiteResult.
    """
    deprecated("openeval.runner.run_suite(path, metrics)",
               "openeval.runner.run_suite(path, metrics=[names])")
    from openeval.adapters.registry import read_trace
    from openeval.errors import OpenEvalError
    from openeval.suite.discover import discover
    from openeval.testcase_file import load_test_case

    results: dict[str, Any] = {}
    for spec in discover(suite_dir):
        key = Path(spec.case_id).stem if spec.case_id.endswith(".json") else spec.case_id
        key = key or spec.testcase_path.parent.name
        try:
            test_case = load_test_case(spec.testcase_path)
            trace_file = spec.trace_path
            if test_case.trace is not None:
                trace_file = spec.testcase_path.parent / test_case.trace
            if trace_file is None:
                raise OpenEvalError(spec.problem or "no trace for this test case")
            trace, _ = read_trace(trace_file)
        except OpenEvalError as exc:
            results[key] = {"task_id": key, "error": str(exc), "metrics": {}}
            continue
        results[key] = _run_eval(trace, test_case, metrics)
    return results


def with_021_form(run_suite: Callable[P, SuiteResult]) -> Callable[P, SuiteResult]:
    """Return ``run_suite`` also accepting 0.2.1's ``run_suite(path, [metric objects])``.

    The function keeps its one signature and return type for type checkers; only a call with
    a second positional argument that is not None (the 0.2.1 form) goes to
    :func:`run_suite_021`, which warns and returns 0.2.1's dict.
    """

    @functools.wraps(run_suite)
    def run(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 2 and args[1] is not None:
            return run_suite_021(args[0], args[1])
        if len(args) == 2:
            args = args[:1]
        return run_suite(*args, **kwargs)

    return cast("Callable[P, SuiteResult]", run)
