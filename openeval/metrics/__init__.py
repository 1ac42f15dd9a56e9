"""The built-in metrics, in the order every report lists them.

Each metric is a :class:`Metric` subclass whose docstring says when it passes, fails and is
not applicable; ``score(trace, test_case)`` returns a :class:`~openeval.models.MetricResult`.
Registry order is :data:`~openeval.metrics.registry.BUILTIN_METRICS`; the classes below are
imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openeval.lazy import lazy_exports
from openeval.metrics.base import BaseMetric, Measurement, Metric, not_applicable
from openeval.metrics.registry import (
    BUILTIN_METRICS,
    all_metrics,
    get_metric,
    metric_names,
    register_metric,
)

_LAZY: dict[str, str] = {
    target.partition(":")[2]: target.partition(":")[0] for target in BUILTIN_METRICS.values()
}

if TYPE_CHECKING:
    from openeval.metrics.arguments import ArgumentCorrectness
    from openeval.metrics.budget import StepBudget
    from openeval.metrics.denials import DenialRecoveryRate
    from openeval.metrics.divergence import DivergenceScore
    from openeval.metrics.efficiency import StepEfficiency
    from openeval.metrics.freshness import FixtureFreshness
    from openeval.metrics.goal import GoalCompletionRate
    from openeval.metrics.output import OutputContains
    from openeval.metrics.state_diff import StateDiff
    from openeval.metrics.tool_selection import ToolSelectionAccuracy
    from openeval.metrics.trajectory import TrajectoryMatching
    from openeval.metrics.turns import TurnExpectations

__all__ = [
    "ArgumentCorrectness",
    "BaseMetric",
    "DenialRecoveryRate",
    "DivergenceScore",
    "FixtureFreshness",
    "GoalCompletionRate",
    "Measurement",
    "Metric",
    "OutputContains",
    "StateDiff",
    "StepBudget",
    "StepEfficiency",
    "ToolSelectionAccuracy",
    "TrajectoryMatching",
    "TurnExpectations",
    "all_metrics",
    "get_metric",
    "metric_names",
    "not_applicable",
    "register_metric",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)
