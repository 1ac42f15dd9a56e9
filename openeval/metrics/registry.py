"""The metric registry: every metric by name, built-ins first in the CONTRACT's table order.

Built-ins are listed in :data:`BUILTIN_METRICS` and imported on first use; each module also
marks its class with :func:`register_metric`, which checks the docstring (a metric's docstring
is its contract). Third-party metrics register through the ``openeval.metrics`` entry-point
group (the entry point names the class) and run after the built-ins. The registry itself is
the shared :class:`openeval.registry.Registry`.
"""

from __future__ import annotations

from typing import TypeVar

from openeval.errors import OpenEvalError
from openeval.metrics.base import Metric
from openeval.registry import Registry

_M = TypeVar("_M", bound=type[Metric])

BUILTIN_METRICS: dict[str, str] = {
    "tool_selection_accuracy": "openeval.metrics.tool_selection:ToolSelectionAccuracy",
    "argument_correctness": "openeval.metrics.arguments:ArgumentCorrectness",
    "step_efficiency": "openeval.metrics.efficiency:StepEfficiency",
    "goal_completion_rate": "openeval.metrics.goal:GoalCompletionRate",
    "denial_recovery_rate": "openeval.metrics.denials:DenialRecoveryRate",
    "divergence_score": "openeval.metrics.divergence:DivergenceScore",
    "fixture_freshness": "openeval.metrics.freshness:FixtureFreshness",
    "output_contains": "openeval.metrics.output:OutputContains",
    "step_budget": "openeval.metrics.budget:StepBudget",
    "trajectory_match": "openeval.metrics.trajectory:TrajectoryMatching",
    "state_diff": "openeval.metrics.state_diff:StateDiff",
    "turn_expectations": "openeval.metrics.turns:TurnExpectations",
}
"""Built-in metrics in the order every report lists them; one line adds a metric."""

METRICS: Registry[type[Metric]] = Registry("metric", "openeval.metrics", BUILTIN_METRICS)


def register_metric(cls: _M) -> _M:
    """Register the metric class ``cls`` under its ``name``; return it unchanged.

    Raises ValueError when the class has no docstring (its docstring is its contract) or when
    another class already holds the name.
    """
    if not (cls.__doc__ or "").strip():
        raise ValueError(f"metric {cls.__name__} needs a docstring saying when it passes")
    METRICS.register(cls.name, cls)
    return cls


def metric_names() -> list[str]:
    """Return the names of every registered metric, built-ins first, in registry order."""
    return METRICS.names()


def metric_class(name: str) -> type[Metric]:
    """Return the metric class called ``name``; raise OpenEvalError listing the valid names."""
    cls = METRICS.get(name)
    if not (isinstance(cls, type) and issubclass(cls, Metric)):
        raise OpenEvalError(f"metric {name!r} does not name a Metric class (it is {cls!r})")
    return cls


def get_metric(name: str, /, **settings: object) -> Metric:
    """Return a new instance of the metric called ``name``, built with ``settings``.

    Raises OpenEvalError listing the valid names when there is no such metric, or the valid
    settings when one is unknown.
    """
    metric_class(name)
    metric: Metric = METRICS.create(name, **settings)
    return metric


def all_metrics() -> list[Metric]:
    """Return one instance of every registered metric, in registry order."""
    return [get_metric(name) for name in metric_names()]
