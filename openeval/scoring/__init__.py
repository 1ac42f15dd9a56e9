"""Scoring: a test case compiled once into a plan of check instances (:mod:`.plan`), and the
pure function that scores a trace against it (:mod:`.scorer`)."""

from __future__ import annotations

import sys

from openeval.scoring import scorer as _scorer
from openeval.scoring.plan import CasePlan, compile_plan
from openeval.scoring.scorer import score

# The scorer module was called ``score``, which the function of that name shadowed (``import
# openeval.scoring.score as m`` bound the function). Its old dotted name still reaches the
# module for ``from openeval.scoring.score import ...``.
sys.modules.setdefault(f"{__name__}.score", _scorer)

__all__ = ["CasePlan", "compile_plan", "score"]
