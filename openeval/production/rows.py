"""One record scored into one ``results.jsonl`` row: a JSON-ready dict, and its exact bytes.

A row is one of (proposals/0080-production-scoring.md):

- a scored trace: ``trace_id``, ``task_id``, ``file``, ``line``, ``format``, ``status``
  (``passed``, ``failed``, ``error`` or ``n.a.``, as a case's) and ``checks``: per check
  instance name, its ``verdict``, its ``scores`` (score name -> value) and, when it failed or
  errored, its one-line ``details``;
- a trace left out of the sample: the same without ``checks``, ``status`` ``not sampled``;
- a line that could not be read: ``file``, ``line`` (0: the file itself), ``status``
  ``unreadable`` and ``message``.

:func:`score_record` is pure: the same record and plan give the same row in any process, so
every engine writes the same bytes (:func:`row_line`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import orjson

from openeval.production.plan import ScorePlan
from openeval.production.records import TraceRecord, Unreadable
from openeval.production.sample import sampled
from openeval.results.records import CheckResult
from openeval.scoring.scorer import score

RowStatus = Literal["passed", "failed", "error", "n.a.", "not sampled", "unreadable"]
ROW_STATUSES: tuple[str, ...] = ("passed", "failed", "error", "n.a.", "not sampled",
                                 "unreadable")

_DETAILED = frozenset(("fail", "error"))


def score_record(
    item: TraceRecord | Unreadable, plan: ScorePlan, *, sample_threshold: int | None = None
) -> dict[str, Any]:
    """Return the row of one record: scored by ``plan``, or left out of the sample cut at
    ``sample_threshold`` (None: every trace is scored), or unreadable."""
    if isinstance(item, Unreadable):
        return {"file": item.file, "line": item.line, "status": "unreadable",
                "message": item.message}
    row: dict[str, Any] = {
        "trace_id": item.trace_id,
        "task_id": item.trace.task_id,
        "file": item.file,
        "line": item.line,
        "format": item.format,
    }
    if sample_threshold is not None and not sampled(item.trace_id, sample_threshold):
        row["status"] = "not sampled"
        return row
    results = score(item.trace, plan.case)
    row["status"] = _status(results)
    row["checks"] = {result.name: _check_cell(result) for result in results}
    return row


def _status(results: tuple[CheckResult, ...]) -> RowStatus:
    seen_fail = seen_pass = False
    for result in results:  # one look per result, no set: this runs once per trace
        verdict = result.verdict
        if verdict == "error":
            return "error"
        if verdict == "fail":
            seen_fail = True
        elif verdict == "pass":
            seen_pass = True
    if seen_fail:
        return "failed"
    return "passed" if seen_pass else "n.a."


def _check_cell(result: CheckResult) -> dict[str, Any]:
    scores: dict[str, Any] = {}
    for index, score_ in enumerate(result.scores):  # a loop: one or two scores a check
        scores[score_.name or f"score_{index}"] = score_.value
    verdict = result.verdict
    cell: dict[str, Any] = {"verdict": verdict, "scores": scores}
    if verdict in _DETAILED:
        cell["details"] = result.details
    return cell


def row_line(row: Mapping[str, Any]) -> bytes:
    """Return the bytes written for ``row``: compact JSON, keys sorted, one newline."""
    return orjson.dumps(row, option=orjson.OPT_SORT_KEYS | orjson.OPT_APPEND_NEWLINE)
