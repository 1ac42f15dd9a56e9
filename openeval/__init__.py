"""OpenEval: deterministic evaluation of AI-agent trajectories, without an LLM judge.

Read a trace (any supported format) with :func:`openeval.adapters.load_trace`, describe what
should have happened in an :class:`EvalTestCase`, and score it with the metrics in
:mod:`openeval.metrics`, or run whole suites with :mod:`openeval.runner`.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

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


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(module), name)


def __dir__() -> list[str]:
    return sorted(__all__)


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
