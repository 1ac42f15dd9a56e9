"""OpenEval: deterministic evaluation of AI-agent trajectories, without an LLM judge.

The front door: what a Python user needs to read, score, run and report, from one import::

    import openeval

    trace = openeval.load_trace("runs/refund.json")          # any supported format
    case = openeval.EvalTestCase.from_dict({...})            # what should have happened
    results = openeval.score(trace, openeval.compile_plan(case))
    suite = openeval.run_suite("evals")                      # every case of a folder
    print(openeval.render(suite, "markdown"))

- read: :func:`load_trace` (one file), :func:`iter_traces` (a file or folder of many);
- score: :func:`compile_plan` then :func:`score`, or :func:`assert_trace` in a test;
- run: :func:`run_suite` returns a :class:`SuiteResult` of :class:`CaseResult` and
  :class:`CheckResult` values; :func:`read_results` reads one back from its folder and
  :func:`diff_results` compares two;
- report: :func:`render` in any registered format;
- the models (:class:`AgentTrace`, :class:`TraceStep`, :class:`EvalTestCase`,
  :class:`MetricResult`, :class:`Score`, :class:`Scores`) and the errors (all
  :class:`OpenEvalError`).

Everything else stays in its package (``openeval.metrics``, ``openeval.checks``,
``openeval.adapters`` ...). Names resolve on first use, so ``import openeval`` and
``openeval --help`` stay light.
"""

from __future__ import annotations

from openeval.lazy import lazy_exports
from openeval.version import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing for `openeval --help`

# Resolved on first use, so that `openeval --help` (which imports this package) stays fast.
_LAZY: dict[str, str] = {
    "AgentTrace": "openeval.models",
    "EvalTestCase": "openeval.models",
    "MetricResult": "openeval.models",
    "TraceStep": "openeval.models",
    "Score": "openeval.scores",
    "Scores": "openeval.scores",
    "CaseResult": "openeval.results.records",
    "CheckResult": "openeval.results.records",
    "SuiteResult": "openeval.results.records",
    "MissingDependencyError": "openeval.errors",
    "OpenEvalError": "openeval.errors",
    "ResultFileError": "openeval.errors",
    "SuiteError": "openeval.errors",
    "TestCaseError": "openeval.errors",
    "TraceFormatError": "openeval.errors",
    "load_trace": "openeval.adapters.registry",
    "iter_traces": "openeval.adapters.stream",
    "compile_plan": "openeval.scoring.plan",
    "score": "openeval.scoring",
    "run_suite": "openeval.runner",
    "read_results": "openeval.results.files",
    "diff_results": "openeval.results.diff",
    "render": "openeval.report.registry",
    "assert_trace": "openeval.testing",
}

if TYPE_CHECKING:
    from openeval.adapters.registry import load_trace
    from openeval.adapters.stream import iter_traces
    from openeval.errors import (
        MissingDependencyError,
        OpenEvalError,
        ResultFileError,
        SuiteError,
        TestCaseError,
        TraceFormatError,
    )
    from openeval.models import AgentTrace, EvalTestCase, MetricResult, TraceStep
    from openeval.report.registry import render
    from openeval.results.diff import diff_results
    from openeval.results.files import read_results
    from openeval.results.records import CaseResult, CheckResult, SuiteResult
    from openeval.runner import run_suite
    from openeval.scores import Score, Scores
    from openeval.scoring import score
    from openeval.scoring.plan import compile_plan
    from openeval.testing import assert_trace
del TYPE_CHECKING


__all__ = [
    "AgentTrace",
    "CaseResult",
    "CheckResult",
    "EvalTestCase",
    "MetricResult",
    "MissingDependencyError",
    "OpenEvalError",
    "ResultFileError",
    "Score",
    "Scores",
    "SuiteError",
    "SuiteResult",
    "TestCaseError",
    "TraceFormatError",
    "TraceStep",
    "__version__",
    "assert_trace",
    "compile_plan",
    "diff_results",
    "iter_traces",
    "load_trace",
    "read_results",
    "render",
    "run_suite",
    "score",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
