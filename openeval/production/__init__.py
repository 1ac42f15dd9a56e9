"""Scoring production traces: many traces per file in, one result row per trace out.

This package is the whole ``openeval score`` pipeline; the command only parses, calls
:func:`score_to_folder` and prints (proposals/0090-pipeline-layout.md). Its pieces:

- :mod:`.inputs`: the files of files, folders and globs, and the folders that cannot be listed;
- :mod:`.records`: one record per trace or unreadable line (built on
  :mod:`openeval.adapters.stream`);
- :mod:`.plan`: the checks file compiled once into a picklable :class:`ScorePlan`;
- :mod:`.sample`: the deterministic sample, a bottom-k of a stable hash of the trace id;
- :mod:`.rows`: one record scored into one JSON-ready row, and the exact bytes of that row;
- :mod:`.engines`: where rows are scored, by name: ``local`` (:mod:`.engines.local`) and
  ``ray`` (:mod:`.engines.ray`); every engine gives the same rows;
- :mod:`.summary`: the counts of a run, accumulated from rows only;
- :mod:`.output`: ``results.jsonl`` and ``summary.json``, under the folder lock;
- :mod:`.gate`: the run's verdict, with the per-check gates;
- :mod:`.pipeline`: all of it as one call, :func:`score_to_folder`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openeval.lazy import lazy_exports

_LAZY: dict[str, str] = {
    "DEFAULT_CHECKS": "openeval.production.plan",
    "ScoreOutcome": "openeval.production.pipeline",
    "ScorePlan": "openeval.production.plan",
    "ScoreVerdict": "openeval.production.gate",
    "ScoreSummary": "openeval.production.summary",
    "TraceRecord": "openeval.production.records",
    "Unreadable": "openeval.production.records",
    "expand_inputs": "openeval.production.records",
    "load_checks": "openeval.production.plan",
    "read_blob_records": "openeval.production.records",
    "read_records": "openeval.production.records",
    "row_line": "openeval.production.rows",
    "sample_key": "openeval.production.sample",
    "score_inputs": "openeval.production.inputs",
    "score_record": "openeval.production.rows",
    "score_to_folder": "openeval.production.pipeline",
    "score_verdict": "openeval.production.gate",
    "write_score_output": "openeval.production.output",
}

__all__ = [
    "DEFAULT_CHECKS",
    "ScoreOutcome",
    "ScorePlan",
    "ScoreSummary",
    "ScoreVerdict",
    "TraceRecord",
    "Unreadable",
    "expand_inputs",
    "load_checks",
    "read_blob_records",
    "read_records",
    "row_line",
    "sample_key",
    "score_inputs",
    "score_record",
    "score_to_folder",
    "score_verdict",
    "write_score_output",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)

if TYPE_CHECKING:
    from openeval.production.gate import ScoreVerdict, score_verdict
    from openeval.production.inputs import score_inputs
    from openeval.production.output import write_score_output
    from openeval.production.pipeline import ScoreOutcome, score_to_folder
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
