"""The counts of an ``openeval score`` run, accumulated from its rows and nothing else.

Because :class:`ScoreSummary` reads only rows, any engine that writes the same rows writes the
same ``summary.json``; partial summaries (one per worker or block) :meth:`~ScoreSummary.merge`
into the whole, as long as they are merged in row order. Rules:

- every row is counted once: ``rows = scored + not_sampled + unreadable``, so every input
  line is either a trace or a counted unreadable line;
- per check: how many traces it passed, failed, errored on or found nothing to judge (n.a.),
  and its pass rate, passed / (passed + failed + errored), as ``openeval run`` counts it
  (None when nothing was judged); the first :data:`FIRST_N` trace ids it failed, and errored;
- the first :data:`FIRST_N` unreadable lines, as ``file:line: message``.

The summary holds no time or machine figure: the same input gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openeval.results.summary import Tally

FIRST_N = 20
"""How many failing trace ids per check, and unreadable lines, the summary names."""

SUMMARY_SCHEMA = "openeval.score.summary/1"

_VERDICT_KEYS = {"pass": "passed", "fail": "failed", "error": "errored",
                 "n.a.": "not_applicable"}


class _CheckCounts:
    __slots__ = ("errored", "errored_traces", "failed", "failing_traces", "not_applicable",
                 "passed")

    def __init__(self) -> None:
        self.passed = self.failed = self.errored = self.not_applicable = 0
        self.failing_traces: list[str] = []
        self.errored_traces: list[str] = []

    def add(self, verdict: str, trace_id: str) -> None:
        if verdict == "pass":
            self.passed += 1
        elif verdict == "fail":
            self.failed += 1
            if len(self.failing_traces) < FIRST_N:
                self.failing_traces.append(trace_id)
        elif verdict == "error":
            self.errored += 1
            if len(self.errored_traces) < FIRST_N:
                self.errored_traces.append(trace_id)
        else:
            self.not_applicable += 1

    def merge(self, other: _CheckCounts) -> None:
        self.passed += other.passed
        self.failed += other.failed
        self.errored += other.errored
        self.not_applicable += other.not_applicable
        self.failing_traces.extend(other.failing_traces[: FIRST_N - len(self.failing_traces)])
        self.errored_traces.extend(other.errored_traces[: FIRST_N - len(self.errored_traces)])

    def tally(self) -> Tally:
        """Return the counts as the one tally type every report reads (its pass rate rule)."""
        return Tally(self.passed, self.failed, self.errored, self.not_applicable)

    @property
    def pass_rate(self) -> float | None:
        return self.tally().pass_rate

    def to_json(self) -> dict[str, Any]:
        return {
            **self.tally().to_dict(),
            "failing_traces": list(self.failing_traces),
            "errored_traces": list(self.errored_traces),
        }


class ScoreSummary:
    """Counts rows as they are written; :meth:`to_json` is ``summary.json``."""

    def __init__(self) -> None:
        self.rows = 0
        self.scored = 0
        self.not_sampled = 0
        self.unreadable = 0
        self.first_unreadable: list[str] = []
        self.statuses: dict[str, int] = {"passed": 0, "failed": 0, "error": 0, "n.a.": 0}
        self.checks: dict[str, _CheckCounts] = {}

    def add(self, row: Mapping[str, Any]) -> None:
        """Count one row (as :func:`openeval.production.rows.score_record` builds it)."""
        self.rows += 1
        status = row["status"]
        if status == "unreadable":
            self.unreadable += 1
            if len(self.first_unreadable) < FIRST_N:
                where = f"{row['file']}:{row['line']}" if row["line"] else row["file"]
                self.first_unreadable.append(f"{where}: {row['message']}")
            return
        if status == "not sampled":
            self.not_sampled += 1
            return
        self.scored += 1
        self.statuses[status] += 1
        trace_id = row["trace_id"]
        checks = self.checks
        for name, cell in row["checks"].items():
            counts = checks.get(name)
            if counts is None:
                counts = checks[name] = _CheckCounts()
            verdict = cell["verdict"]
            if verdict == "pass":  # the usual verdict, counted here: one call less a check
                counts.passed += 1
            else:
                counts.add(verdict, trace_id)

    def merge(self, other: ScoreSummary) -> None:
        """Add the counts of ``other``, whose rows come after this summary's rows."""
        self.rows += other.rows
        self.scored += other.scored
        self.not_sampled += other.not_sampled
        self.unreadable += other.unreadable
        room = FIRST_N - len(self.first_unreadable)
        self.first_unreadable.extend(other.first_unreadable[:room])
        for status, count in other.statuses.items():
            self.statuses[status] += count
        for name, counts in other.checks.items():
            mine = self.checks.get(name)
            if mine is None:
                mine = self.checks[name] = _CheckCounts()
            mine.merge(counts)

    def pass_rate(self, check: str) -> float | None:
        """Return the pass rate of ``check``; None when it judged nothing (or never ran)."""
        counts = self.checks.get(check)
        return None if counts is None else counts.pass_rate

    @property
    def clean(self) -> bool:
        """True when every line was read, no check errored and no scored trace failed."""
        return (self.unreadable == 0 and self.statuses["error"] == 0
                and self.statuses["failed"] == 0)

    def to_json(self) -> dict[str, Any]:
        """Return the summary as the JSON object of ``summary.json``."""
        return {
            "schema": SUMMARY_SCHEMA,
            "rows": self.rows,
            "traces": self.scored + self.not_sampled,
            "scored": self.scored,
            "not_sampled": self.not_sampled,
            "unreadable": {"count": self.unreadable, "first": list(self.first_unreadable)},
            "statuses": dict(self.statuses),
            "checks": {name: counts.to_json() for name, counts in self.checks.items()},
        }
