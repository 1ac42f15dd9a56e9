"""What a run found: the result record (:mod:`.records`), its counts (:mod:`.summary`), repeated
trials (:mod:`.trials`) and the files it is stored in (:mod:`.files`)."""

from __future__ import annotations

from openeval.results.records import CaseResult, CheckResult, CheckSpec, SuiteResult
from openeval.results.summary import Gate, Summary, Tally
from openeval.results.trials import TrialsRule, TrialStats

__all__ = [
    "CaseResult",
    "CheckResult",
    "CheckSpec",
    "Gate",
    "SuiteResult",
    "Summary",
    "Tally",
    "TrialStats",
    "TrialsRule",
]
