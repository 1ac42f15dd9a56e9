"""What a run found: the result record (:mod:`.records`), the trace excerpt a run may keep in it
(:mod:`.excerpt`), its counts (:mod:`.summary`), repeated trials (:mod:`.trials`) and the files
it is stored in (:mod:`.files`)."""

from __future__ import annotations

from openeval.results.excerpt import ExcerptStep, TraceExcerpt
from openeval.results.records import CaseResult, CheckResult, CheckSpec, SuiteResult
from openeval.results.summary import Gate, Summary, Tally
from openeval.results.trials import TrialsRule, TrialStats

__all__ = [
    "CaseResult",
    "CheckResult",
    "CheckSpec",
    "ExcerptStep",
    "Gate",
    "SuiteResult",
    "Summary",
    "Tally",
    "TraceExcerpt",
    "TrialStats",
    "TrialsRule",
]
