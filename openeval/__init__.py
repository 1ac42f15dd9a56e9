"""OpenEval: deterministic evaluation of AI-agent trajectories, without an LLM judge.

Read a trace (any supported format) with :func:`openeval.adapters.load_trace`, describe what
should have happened in an :class:`EvalTestCase`, and score it with the metrics in
:mod:`openeval.metrics`, or run whole suites with :mod:`openeval.runner`.
"""

from __future__ import annotations

from openeval.errors import (
    MissingDependencyError,
    OpenEvalError,
    ResultFileError,
    SuiteError,
    TestCaseError,
    TraceFormatError,
)
from openeval.models import AgentTrace, EvalTestCase, MetricResult, TraceStep
from openeval.version import __version__

__all__ = [
    "AgentTrace",
    "EvalTestCase",
    "MetricResult",
    "MissingDependencyError",
    "OpenEvalError",
    "ResultFileError",
    "SuiteError",
    "TestCaseError",
    "TraceFormatError",
    "TraceStep",
    "__version__",
]
