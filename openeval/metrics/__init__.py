"""The built-in metrics, in the order every report lists them.

Each metric is a :class:`Metric` subclass whose docstring says when it passes, fails and is
not applicable; ``score(trace, test_case)`` returns a :class:`~openeval.models.MetricResult`.
Import order below is registry order: :func:`all_metrics` and every report follow it.
"""

from __future__ import annotations

from openeval.metrics.base import Measurement, Metric, not_applicable
from openeval.metrics.registry import all_metrics, get_metric, metric_names, register_metric

# Registry order follows the CONTRACT's metric table; keep these imports in that order.
from openeval.metrics.tool_selection import ToolSelectionAccuracy  # isort: skip
from openeval.metrics.arguments import ArgumentCorrectness  # isort: skip
from openeval.metrics.efficiency import StepEfficiency  # isort: skip
from openeval.metrics.goal import GoalCompletionRate  # isort: skip
from openeval.metrics.denials import DenialRecoveryRate  # isort: skip
from openeval.metrics.divergence import DivergenceScore  # isort: skip
from openeval.metrics.freshness import FixtureFreshness  # isort: skip
from openeval.metrics.output import OutputContains  # isort: skip
from openeval.metrics.budget import StepBudget  # isort: skip
from openeval.metrics.trajectory import TrajectoryMatching  # isort: skip

__all__ = [
    "ArgumentCorrectness",
    "DenialRecoveryRate",
    "DivergenceScore",
    "FixtureFreshness",
    "GoalCompletionRate",
    "Measurement",
    "Metric",
    "OutputContains",
    "StepBudget",
    "StepEfficiency",
    "ToolSelectionAccuracy",
    "TrajectoryMatching",
    "all_metrics",
    "get_metric",
    "metric_names",
    "not_applicable",
    "register_metric",
]
