"""Reading the state diff and the per-turn results back out of a result, for the reports.

``state_diff`` writes ``data["state_diff"]`` (one row per changed or required path: path, before,
after, verdict ``required`` / ``allowed`` / ``unexpected`` / ``missing``, failing rows first) and
``data["state_diff_cut"]`` when it kept fewer rows than it found; ``turn_expectations`` writes
``data["turns"]`` (per entry: the user turn, whether it held, each metric's sub-result and why it
did not hold). The Markdown and HTML reports and ``openeval inspect --testcase`` draw them as
tables, bounded as the alignment is (:mod:`openeval.report.alignment`). A result file is input:
a row of another shape is skipped, never a crash.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from openeval.report.alignment import text_of
from openeval.results.records import CaseResult, CheckResult

STATE_KIND = "state_diff"
TURNS_KIND = "turn_expectations"

MAX_TABLE_ROWS = 25
"""Rows one state-diff or per-turn table shows in a report, as the alignment table does; the
rest are counted under it."""

STATE_COLUMNS = ("path", "before", "after", "verdict")
TURN_COLUMNS = ("user turn", "verdict", "sub-results", "why")


@dataclass(frozen=True)
class StateRow:
    """One path of a state diff, as texts."""

    path: str
    before: str
    after: str
    verdict: str
    """``required``, ``allowed``, ``unexpected`` or ``missing``."""
    ok: bool
    why: str = ""


@dataclass(frozen=True)
class StateDiff:
    """The rows a state-diff result holds, and how many the metric found."""

    rows: tuple[StateRow, ...]
    total: int

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> StateDiff:
        """Return the diff ``data`` (a result's data) holds; no rows when it holds none."""
        listed = data.get("state_diff")
        rows = []
        for row in listed if isinstance(listed, list) else ():
            if not isinstance(row, Mapping):
                continue
            verdict = text_of(row.get("verdict", ""))
            ok = row.get("ok")
            why = row.get("why")
            rows.append(StateRow(
                text_of(row.get("path", "")), _value(row, "before"), _value(row, "after"),
                verdict, ok if isinstance(ok, bool) else verdict in ("required", "allowed"),
                why if isinstance(why, str) else "",
            ))
        cut = data.get("state_diff_cut")
        total = cut.get("rows") if isinstance(cut, Mapping) else None
        return cls(tuple(rows), total if isinstance(total, int) and total >= len(rows)
                   else len(rows))

    def cells(self, limit: int = MAX_TABLE_ROWS) -> tuple[list[tuple[str, ...]], int]:
        """Return the first ``limit`` rows as :data:`STATE_COLUMNS` texts (the verdict with
        its reason) and how many rows of the whole diff are not among them."""
        shown: list[tuple[str, ...]] = [
            (r.path, r.before, r.after, r.verdict + (f": {r.why}" if r.why else ""))
            for r in self.rows[:limit]
        ]
        return shown, self.total - len(shown)


def _value(row: Mapping[str, Any], key: str) -> str:
    # The metric writes each value as compact JSON text; absent means the path did not exist.
    value = row.get(key)
    return "(absent)" if value is None else text_of(value)


@dataclass(frozen=True)
class SubResult:
    """One metric's verdict on one turn's segment."""

    metric: str
    passed: bool
    details: str


@dataclass(frozen=True)
class TurnRow:
    """One ``turns`` entry: the user turn it is about, whether it held, and why."""

    user: str
    held: bool
    results: tuple[SubResult, ...]
    why: str


@dataclass(frozen=True)
class Turns:
    """The per-turn rows a ``turn_expectations`` result holds."""

    rows: tuple[TurnRow, ...]

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Turns:
        """Return the turns ``data`` (a result's data) holds; no rows when it holds none."""
        listed = data.get("turns")
        rows = []
        for entry in listed if isinstance(listed, list) else ():
            if not isinstance(entry, Mapping):
                continue
            found = entry.get("results")
            results = tuple(
                SubResult(text_of(r.get("metric", "")), r.get("passed") is True,
                          text_of(r.get("details", "")))
                for r in (found if isinstance(found, list) else ()) if isinstance(r, Mapping)
            )
            why = entry.get("why")
            rows.append(TurnRow(text_of(entry.get("user", "")), entry.get("passed") is True,
                                results, why if isinstance(why, str) else ""))
        return cls(tuple(rows))

    def cells(self, limit: int = MAX_TABLE_ROWS) -> tuple[list[tuple[str, ...]], int]:
        """Return the first ``limit`` rows as :data:`TURN_COLUMNS` texts and how many rows
        are not among them."""
        shown: list[tuple[str, ...]] = [
            (row.user, "held" if row.held else "not held",
             ", ".join(f"{r.metric} {'pass' if r.passed else 'fail'}" for r in row.results)
             or "nothing judged", row.why)
            for row in self.rows[:limit]
        ]
        return shown, len(self.rows) - len(shown)


def framed_checks(record: CaseResult) -> list[CheckResult]:
    """Return the checks of ``record`` holding a state diff or per-turn results, in order."""
    return [c for c in record.checks
            if (c.spec.kind == STATE_KIND and isinstance(c.data.get("state_diff"), list))
            or (c.spec.kind == TURNS_KIND and isinstance(c.data.get("turns"), list))]


def table_of(check: CheckResult, limit: int = MAX_TABLE_ROWS
             ) -> tuple[tuple[str, ...], list[tuple[str, ...]], int]:
    """Return ``(columns, rows, rows left out)`` of a check :func:`framed_checks` returned."""
    return table_of_data(check.spec.kind, check.data, limit)


def table_of_data(kind: str, data: Mapping[str, Any], limit: int = MAX_TABLE_ROWS
                  ) -> tuple[tuple[str, ...], list[tuple[str, ...]], int]:
    """Return ``(columns, rows, rows left out)`` of the ``data`` of a ``kind`` result."""
    if kind == STATE_KIND:
        return (STATE_COLUMNS, *StateDiff.of(data).cells(limit))
    return (TURN_COLUMNS, *Turns.of(data).cells(limit))


def row_ok(kind: str, row: tuple[str, ...]) -> bool:
    """Whether a row of :func:`table_of` holds (an expected or allowed change, a held turn)."""
    if kind == STATE_KIND:
        return row[3].split(":", 1)[0] in ("required", "allowed")
    return row[1] == "held"
