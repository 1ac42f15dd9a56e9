"""What a run found: the result record (:mod:`.records`), its counts (:mod:`.summary`) and the
files it is stored in (:mod:`.files`)."""

from __future__ import annotations

from openeval.results.records import CaseResult, CheckResult, CheckSpec, SuiteResult
from openeval.results.summary import Summary, Tally

__all__ = ["CaseResult", "CheckResult", "CheckSpec", "SuiteResult", "Summary", "Tally"]
