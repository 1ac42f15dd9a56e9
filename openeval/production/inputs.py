"""What ``openeval score`` reads: the files its inputs name, and the folders it could not list.

The walk is the adapters' (:func:`openeval.adapters.stream.trace_inputs`), the one
:func:`openeval.adapters.iter_traces` uses too: a file, a folder (recursively, links followed
once per real folder) or a glob, and an :class:`~openeval.production.records.Unreadable` at the
place of each folder that cannot be listed, which every engine writes as a row and counts, so
the run cannot pass with traces unaccounted for.
"""

from __future__ import annotations

from pathlib import Path

from openeval.adapters.stream import Unreadable, folder_inputs
from openeval.adapters.stream import trace_inputs as score_inputs

ScoreInput = Path | Unreadable
"""One input of an engine: a file to read, or a folder already known to be unreadable."""

__all__ = ["ScoreInput", "folder_inputs", "score_inputs"]
