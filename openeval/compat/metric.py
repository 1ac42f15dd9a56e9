"""openeval-core 0.2.1's metric base class, kept working as a deprecated shim.

Teams subclassed it (``name`` plus ``score(trace, test_case) -> MetricResult``); such a class
still scores with :func:`openeval.compat.legacy.run_eval` and the 0.2.1 form of ``run_suite``.
It is importable from its old path, :mod:`openeval.metrics`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

from openeval.compat.deprecation import deprecated
from openeval.models import AgentTrace, EvalTestCase, MetricResult


class BaseMetric(ABC):
    """openeval-core 0.2.1's metric base: subclasses define ``name`` and ``score``.

    Deprecated: subclass :class:`Metric` (``measure`` returns a :class:`Measurement`; the pass
    line and the verdict rule are applied for you). Subclassing this warns once per class; the
    subclass keeps working with ``run_eval`` and ``run_suite(path, metrics)``.
    """

    name: ClassVar[str]
    description: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        deprecated("openeval.metrics.BaseMetric", "openeval.metrics.Metric")

    @abstractmethod
    def score(self, trace: AgentTrace, test_case: EvalTestCase) -> MetricResult:
        """Return the metric's result on ``trace``."""

    def explain(self, result: MetricResult) -> str:
        """Return ``result`` as one sentence."""
        return f"{self.name}: {result.details} Score: {result.score:.2f}."
