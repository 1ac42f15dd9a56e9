"""Old import path of :mod:`openeval.suite.engines.base`."""

from __future__ import annotations

from openeval.suite.engines.base import Engine, run_spec, unreadable_case

__all__ = ["Engine", "run_spec", "unreadable_case"]
