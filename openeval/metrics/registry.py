"""The metric registry: every metric by name, in a stable order.

A built-in metric registers itself with the :func:`register_metric` class decorator in its own
module, and ``openeval/metrics/__init__.py`` imports that module: one new file and one import
line add a metric. Third-party metrics register through the ``openeval.metrics`` entry-point
group (the entry point names the class); they run after the built-ins.
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import entry_points
from typing import TypeVar

from openeval.errors import OpenEvalError
from openeval.metrics.base import Metric

_M = TypeVar("_M", bound=type[Metric])

_REGISTRY: dict[str, type[Metric]] = {}
_entry_points_loaded = False


def register_metric(cls: _M) -> _M:
    """Register the metric class ``cls`` under its ``name``; return it unchanged.

    Raises ValueError when the class has no docstring (its docstring is its contract) or when
    another class already holds the name.
    """
    if not (cls.__doc__ or "").strip():
        raise ValueError(f"metric {cls.__name__} needs a docstring saying when it passes")
    existing = _REGISTRY.get(cls.name)
    if existing is not None and existing is not cls:
        raise ValueError(f"metric name {cls.name!r} is taken by {existing.__name__}")
    _REGISTRY[cls.name] = cls
    return cls


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    for ep in entry_points(group="openeval.metrics"):
        module_name, _, attr = ep.value.partition(":")
        register_metric(getattr(import_module(module_name), attr))


def metric_names() -> list[str]:
    """Return the names of every registered metric, built-ins first, in registry order."""
    _load_entry_points()
    return list(_REGISTRY)


def get_metric(name: str) -> Metric:
    """Return a new instance of the metric called ``name``.

    Raises OpenEvalError listing the valid names when there is no such metric.
    """
    _load_entry_points()
    cls = _REGISTRY.get(name)
    if cls is None:
        raise OpenEvalError(f"unknown metric {name!r}; expected one of: {', '.join(_REGISTRY)}")
    return cls()


def all_metrics() -> list[Metric]:
    """Return one instance of every registered metric, in registry order."""
    return [get_metric(name) for name in metric_names()]
