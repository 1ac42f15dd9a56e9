"""The Fixtura adapter: ``.trace`` recordings (:mod:`.reader`) and their drift verdicts
(:mod:`.drift`).

Fixtura's own ``fixtura.tools.openeval_adapter`` imports ``from_fixtura_trace`` from here.
"""

from __future__ import annotations

from openeval.adapters.fixtura.drift import DriftReport, compute_verdict, recorded_verdict
from openeval.adapters.fixtura.reader import (
    ADAPTER,
    EVENT_TYPES,
    PERMISSION_DECISIONS,
    FixturaAdapter,
    from_fixtura_trace,
    read_fixtura,
)

__all__ = [
    "ADAPTER",
    "EVENT_TYPES",
    "PERMISSION_DECISIONS",
    "DriftReport",
    "FixturaAdapter",
    "compute_verdict",
    "from_fixtura_trace",
    "read_fixtura",
    "recorded_verdict",
]
