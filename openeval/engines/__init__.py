"""The engines of ``openeval run``, under their old import path.

They live with the pipeline that uses them, in :mod:`openeval.suite.engines`; this package
re-exports them so code written against ``openeval.engines`` keeps working.
"""

from __future__ import annotations

from openeval.suite.engines import Engine, ProcessPoolEngine, SerialEngine, default_engine

__all__ = ["Engine", "ProcessPoolEngine", "SerialEngine", "default_engine"]
