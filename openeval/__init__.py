"""OpenEval: deterministic evaluation of AI-agent trajectories, without an LLM judge.

Read a trace (any supported format) with :func:`openeval.adapters.load_trace`, describe what
should have happened in an :class:`EvalTestCase`, and score it with the metrics in
:mod:`openeval.metrics`, or run whole suites with :mod:`openeval.runner`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openeval.lazy import lazy_exports
from openeval.version import __version__

# Resolved on first use, so that `openeval --help` (which imports this package) stays fast.
_LAZY: dict[str, str] = {
    "AgentTrace": "openeval.models",
    "EvalTestCase": "openeval.models",
    "MetricResult": "openeval.models",
    "TraceStep": "openeval.models",
    "MissingDependencyError": "openeval.errors",
    "OpenEvalError": "openeval.errors",
    "ResultFileError": "openeval.errors",
    "SuiteError": "openeval.errors",
    "TestCaseError": "openeval.errors",
    "TraceFormatError": "openeval.errors",
}

if TYPE_CHECKING:
    from openeval.errors import (
        MissingDependencyError,
        OpenEvalError,
        ResultFileError,
        SuiteError,
        TestCaseError,
        TraceFormatError,
    )
    from openeval.models import AgentTrace, EvalTestCase, MetricResult, TraceStep


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

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
