"""Scoring: a test case compiled once into a plan of check instances (:mod:`.plan`), and the
pure function that scores a trace against it (:mod:`.score`)."""

from __future__ import annotations

from openeval.scoring.plan import CasePlan, compile_plan
from openeval.scoring.score import score

__all__ = ["CasePlan", "compile_plan", "score"]
