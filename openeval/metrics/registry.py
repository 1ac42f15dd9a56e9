"""The metric registry: every metric by name, built-ins first, in the order reports list them.

The recipe every kind of entry follows (proposals/0110-one-registry-recipe.md): a built-in is
one line in :data:`BUILTIN` naming ``module:Class``, imported on first use; a metric added at
run time goes through :func:`register`; third-party metrics register through the
``openeval.metrics`` entry-point group (the entry point names the class) and run after the
built-ins. :func:`get` and :func:`names` read all three. The registry itself is the shared
:class:`openeval.registry.Registry`. A metric's docstring is its contract: :func:`register`
refuses a class without one, and a test holds every built-in to it.
"""

from __future__ import annotations

from typing import TypeVar

from openeval.errors import OpenEvalError
from openeval.metrics.base import Metric
from openeval.registry import Registry

_M = TypeVar("_M", bound=type[Metric])

BUILTIN: dict[str, str] = {
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

BUILTIN_METRICS = BUILTIN
"""The name :data:`BUILTIN` had before every registry followed one recipe."""

REGISTRY: Registry[type[Metric]] = Registry("metric", "openeval.metrics", BUILTIN)

METRICS = REGISTRY
"""The name :data:`REGISTRY` had before every registry followed one recipe."""


def register(cls: _M) -> _M:
    """Register the metric class ``cls`` under its ``name``; return it unchanged (a decorator).

    Raises ValueError when the class has no docstring (its docstring is its contract) or when
    another class already holds the name.
    """
    if not (cls.__doc__ or "").strip():
        raise ValueError(f"metric {cls.__name__} needs a docstring saying when it passes")
    REGISTRY.register(cls.name, cls)
    return cls


_CHECKED: dict[str, type[Metric]] = {}
"""The class each name was last found to be a Metric subclass: the registry is asked every
time (an entry may be replaced), the slow subclass test only when the answer changed."""


def get(name: str) -> type[Metric]:
    """Return the metric class called ``name``; raise OpenEvalError listing the valid names."""
    cls = REGISTRY.get(name)
    if _CHECKED.get(name) is cls:
        return cls
    if not (isinstance(cls, type) and issubclass(cls, Metric)):
        raise OpenEvalError(f"metric {name!r} does not name a Metric class (it is {cls!r})")
    _CHECKED[name] = cls
    return cls


def names() -> list[str]:
    """Return the names of every registered metric, built-ins first, in registry order."""
    return REGISTRY.names()


register_metric = register
metric_class = get
metric_names = names


def get_metric(name: str, /, **settings: object) -> Metric:
    """Return a new instance of the metric called ``name``, built with ``settings``.

    Raises OpenEvalError listing the valid names when there is no such metric, or the valid
    settings when one is unknown.
    """
    get(name)
    metric: Metric = REGISTRY.create(name, **settings)
    return metric


def all_metrics() -> list[Metric]:
    """Return one instance of every registered metric, in registry order."""
    return [get_metric(name) for name in names()]
