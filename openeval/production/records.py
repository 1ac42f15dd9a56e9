"""The records ``openeval score`` reads: one per trace, or per line that is not one.

The reading itself lives with the adapters (:mod:`openeval.adapters.stream`, behind
:func:`openeval.adapters.iter_traces`); this module is where production code finds it.
"""

from __future__ import annotations

from openeval.adapters.stream import (
    TraceRecord,
    Unreadable,
    expand_inputs,
    read_blob_records,
    read_records,
)

__all__ = ["TraceRecord", "Unreadable", "expand_inputs", "read_blob_records", "read_records"]
