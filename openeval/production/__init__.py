"""Scoring production traces: many traces per file in, one result row per trace out.

The pieces are pure so that every engine (the local loop of ``openeval score``, Ray Data in
:mod:`openeval.distributed.ray`) gives the same rows and the same summary
(proposals/0080-production-scoring.md):

- :mod:`.records`: the traces of files, folders and globs, one record per trace or
  unreadable line (built on :mod:`openeval.adapters.stream`);
- :mod:`.plan`: the checks file compiled once into a picklable :class:`ScorePlan`;
- :mod:`.sample`: the deterministic sample, a bottom-k of a stable hash of the trace id;
- :mod:`.rows`: one record scored into one JSON-ready row, and the exact bytes of that row;
- :mod:`.summary`: the counts of a run, accumulated from rows only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openeval.lazy import lazy_exports

_LAZY: dict[str, str] = {
    "DEFAULT_CHECKS": "openeval.production.plan",
    "ScorePlan": "openeval.production.plan",
    "ScoreSummary": "openeval.production.summary",
    "TraceRecord": "openeval.production.records",
    "Unreadable": "openeval.production.records",
    "expand_inputs": "openeval.production.records",
    "load_checks": "openeval.production.plan",
    "read_blob_records": "openeval.production.records",
    "read_records": "openeval.production.records",
    "row_line": "openeval.production.rows",
    "sample_key": "openeval.production.sample",
    "score_record": "openeval.production.rows",
}

__all__ = [
    "DEFAULT_CHECKS",
    "ScorePlan",
    "ScoreSummary",
    "TraceRecord",
    "Unreadable",
    "expand_inputs",
    "load_checks",
    "read_blob_records",
    "read_records",
    "row_line",
    "sample_key",
    "score_record",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)

if TYPE_CHECKING:
    from openeval.production.plan import DEFAULT_CHECKS, ScorePlan, load_checks
    from openeval.production.records import (
        TraceRecord,
        Unreadable,
        expand_inputs,
        read_blob_records,
        read_records,
    )
    from openeval.production.rows import row_line, score_record
    from openeval.production.sample import sample_key
    from openeval.production.summary import ScoreSummary
