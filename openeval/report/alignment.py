"""Reading the alignment of expected and executed calls back out of a result, for the reports.

The metrics that pair calls write ``data["alignment"]`` and ``data["first_divergence"]``
(:mod:`openeval.matching.alignment`). The Markdown and HTML reports and ``openeval inspect
--testcase`` draw them; this module picks which check of a case to draw and reads the rows
tolerantly: a result file is input, so a row of another shape is skipped, never a crash.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from openeval.results.records import CaseResult, CheckResult

ALIGNED_FIRST = ("trajectory_match", "argument_correctness", "tool_selection_accuracy")
"""Which alignment explains a case best when several checks hold one: the trajectory says most
(order and arguments), argument rows say which value, tool selection only which tool."""


def aligned_check(record: CaseResult) -> CheckResult | None:
    """Return the check of ``record`` whose alignment to draw: a failed one first, in
    :data:`ALIGNED_FIRST` order, else any that holds one; None when none does."""
    held = [c for c in record.checks if isinstance(c.data.get("alignment"), list)]
    if not held:
        return None
    rank = {kind: n for n, kind in enumerate(ALIGNED_FIRST)}
    return min(held, key=lambda c: (c.verdict != "fail", rank.get(c.spec.kind, len(rank))))


@dataclass(frozen=True)
class Alignment:
    """The rows of one check's alignment, and where its first divergence is."""

    rows: tuple[Mapping[str, Any], ...]
    first: int | None
    """Index in ``rows`` of the first divergence; None when there is none."""
    start: int = 0
    """Position of ``rows[0]`` in the whole alignment (more than 0 when it was cut)."""
    total: int = 0
    """Rows in the whole alignment."""

    @classmethod
    def of(cls, check: CheckResult) -> Alignment:
        """Return the alignment ``check.data`` holds (no rows when it holds none)."""
        listed = check.data.get("alignment")
        rows = tuple(r for r in listed if isinstance(r, Mapping)) if isinstance(
            listed, list) else ()
        found = check.data.get("first_divergence")
        first = found.get("row") if isinstance(found, Mapping) else None
        if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < len(rows):
            first = None
        cut = check.data.get("alignment_cut")
        start = cut.get("from") if isinstance(cut, Mapping) else None
        total = cut.get("rows") if isinstance(cut, Mapping) else None
        return cls(rows, first, start if isinstance(start, int) else 0,
                   total if isinstance(total, int) else len(rows))

    @property
    def divergent_step(self) -> int | None:
        """The step id of the first divergence, when it is an executed call."""
        if self.first is None:
            return None
        step = self.rows[self.first].get("step_id")
        return step if isinstance(step, int) and not isinstance(step, bool) else None


def text_of(value: Any) -> str:
    """Return a row's value as text: strings as they are, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    from openeval.jsonio import dump_json_compact

    try:
        return dump_json_compact(value)
    except Exception:  # a value JSON cannot hold (a newer record): shown, never raised
        return repr(value)


def difference_parts(row: Mapping[str, Any]) -> list[tuple[str, str | None, str, str | None]]:
    """Return a row's differences as ``(where, expected, got, reason)`` texts."""
    found = row.get("differences")
    if not isinstance(found, list):
        return []
    out = []
    for item in found:
        if not isinstance(item, Mapping):
            continue
        expected = item.get("expected")
        reason = item.get("reason")
        out.append((text_of(item.get("where", "")),
                    None if expected is None else text_of(expected),
                    text_of(item.get("got", "")),
                    None if reason is None else text_of(reason)))
    return out


def position(row: Mapping[str, Any]) -> str:
    """Return the expected call's number as shown (1-based), or ``""`` for an executed one."""
    expected = row.get("expected")
    if isinstance(expected, int) and not isinstance(expected, bool):
        return str(expected + 1)
    return ""
