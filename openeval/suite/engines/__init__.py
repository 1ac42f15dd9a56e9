"""Engines: where the cases of a run are scored (this process, a process pool, later Ray).

Every engine takes the same picklable :class:`~openeval.suite.evaluate.RunPlan` and the
discovered cases, and yields one :class:`~openeval.results.records.CaseResult` per case in
suite order; which engine ran never changes a byte of the results.
"""

from __future__ import annotations

from openeval.suite.engines.base import Engine
from openeval.suite.engines.local import ProcessPoolEngine, SerialEngine, default_engine

__all__ = ["Engine", "ProcessPoolEngine", "SerialEngine", "default_engine"]
